"""The lab's `gaji expand label | bench` through gaji's CLI, with `run` and `keywords` from the product around them."""
from __future__ import annotations

import json

from gaji.cli.main import main

REPLY = json.dumps({"title": "경복궁의 창건", "questions": ["경복궁은 언제?", "누가 지었나?", "zqcli 질문?"]},
                   ensure_ascii=False)
ROWS = [
    {"id": "gb", "title": "경복궁", "text": "경복궁은 1395년에 지어진 조선의 법궁이다."},
    {"id": "py", "title": "Python", "text": "Python is a programming language."},
]


def _corpus(path, rows=ROWS):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_subset_label_and_bench(tmp_path, capsys):
    qs = tmp_path / "q.jsonl"
    qs.write_text(json.dumps({"id": "q1", "question": "경복궁은 언제 지어졌나?", "supporting": [{"doc_id": "gb"}]},
                             ensure_ascii=False) + "\n", encoding="utf-8")
    c = _corpus(tmp_path / "c.jsonl")
    e = tmp_path / "e.jsonl"
    assert main(["expand", "run", str(c), "--out", str(e), "--llm", f"scripted:{REPLY}", "--no-progress"]) == 0
    capsys.readouterr()
    lab = tmp_path / "lab.jsonl"
    kw = json.dumps({"keywords": ["경복궁"]}, ensure_ascii=False)
    assert main(["expand", "label", "--questions", str(qs), "--expansions", str(e), "--out", str(lab),
                 "--llm", f"scripted:{kw}"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["labelled"] == 4 and st["failed"] == 0  # 1 question + 3 distinct generated questions
    rows = [json.loads(x) for x in lab.read_text(encoding="utf-8").splitlines()]
    assert any("KB" in r["labels"] for r in rows)
    assert main(["expand", "keywords", "경복궁은 언제 지어졌나?", "--llm", f"scripted:{kw}", "--bio"]) == 0
    out = capsys.readouterr().out
    assert "경복궁\tNNP\tKB" in out and out.strip().endswith('["경복궁"]')
    rc = main(["expand", "bench", str(c), "--questions", str(qs), "--expansions", str(e), "--cases", "plain,1,6",
               "--retrievers", "bm25", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "res"), "--label", "t"])
    assert rc == 0
    md = capsys.readouterr().out
    assert "| case6 | questions + chunk |" in md
    res = json.loads((tmp_path / "res" / "t.json").read_text(encoding="utf-8"))
    assert set(res["cases"]) == {"plain", "case1", "case6"}
    assert res["cases"]["case6"]["bm25"]["top"]["1"] == 100.0


def test_bench_only_expanded_cuts_corpus_and_questions(tmp_path, capsys):
    rows = ROWS + [{"id": "zz", "title": "Zebra", "text": "Zebras live in Africa."}]
    c = _corpus(tmp_path / "c.jsonl", rows)
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in [
        {"id": "q1", "question": "경복궁은 언제 지어졌나?", "supporting": [{"doc_id": "gb"}]},
        {"id": "q2", "question": "Where do zebras live?", "supporting": [{"doc_id": "zz"}]},
    ]), encoding="utf-8")
    e = tmp_path / "e.jsonl"
    assert main(["expand", "run", str(c), "--out", str(e), "--llm", f"scripted:{REPLY}", "--max-chunks", "2",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["expand", "bench", str(c), "--questions", str(qs), "--expansions", str(e), "--cases", "6",
                 "--retrievers", "bm25", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "res"),
                 "--label", "cut", "--only-expanded"]) == 0
    res = json.loads((tmp_path / "res" / "cut.json").read_text(encoding="utf-8"))
    assert res["questions"] == 1 and res["cases"]["case6"]["chunks"] == 2 and "restricted" in res["note"]
