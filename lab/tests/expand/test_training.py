"""Training the small models end to end (gaji/expand/training.py): the multi-task model against the LLM."""
from __future__ import annotations

import json

import pytest

from gaji.testing import MULTITASK_CHUNKS as CHUNKS

torch = pytest.importorskip("torch")


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
