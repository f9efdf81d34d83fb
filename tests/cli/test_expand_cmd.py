"""`gaji expand run|show` and `gaji index build --expand` through the CLI (label, subset and bench are the lab's:
lab/tests/cli/test_expand_lab_cmd.py)."""
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


def test_expand_run_show_and_resume(tmp_path, capsys):
    c = _corpus(tmp_path / "c.jsonl")
    out = tmp_path / "e.jsonl"
    assert main(["expand", "run", str(c), "--out", str(out), "--llm", f"scripted:{REPLY}", "--no-progress"]) == 0
    st = json.loads(capsys.readouterr().out.splitlines()[0])
    assert st["generated"] == 2 and st["model"] == "scripted"
    assert main(["expand", "run", str(c), "--out", str(out), "--llm", f"scripted:{REPLY}", "--no-progress"]) == 0
    st = json.loads(capsys.readouterr().out.splitlines()[0])
    assert st["generated"] == 0 and st["reused"] == 2
    assert main(["expand", "show", str(out), "-n", "1"]) == 0
    shown = capsys.readouterr().out
    assert "title: 경복궁의 창건" in shown and "q: zqcli 질문?" in shown


def test_index_build_expand_and_expansions_flags(tmp_path, capsys):
    c = _corpus(tmp_path / "c.jsonl")
    out = tmp_path / "idx"
    rc = main(["index", "build", str(c), "--out", str(out), "--no-dense", "--no-progress", "--expand",
               "--llm", f"scripted:{REPLY}", "--compose", "case4"])
    assert rc == 0
    assert "composition case4, 2 chunks expanded" in capsys.readouterr().out
    assert main(["index", "search", str(out), "zqcli", "--retriever", "bm25", "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    # ready expansions from the index folder itself
    out2 = tmp_path / "idx2"
    assert main(["index", "build", str(c), "--out", str(out2), "--no-dense", "--no-progress",
                 "--expansions", str(out), "--compose", "3"]) == 0
    assert "composition case3" in capsys.readouterr().out


def test_bad_compose_and_missing_expansions_are_clean_errors(tmp_path, capsys):
    c = _corpus(tmp_path / "c.jsonl")
    assert main(["index", "build", str(c), "--out", str(tmp_path / "i"), "--no-dense", "--compose", "case0"]) == 2
    assert "unknown composition" in capsys.readouterr().err
    assert main(["index", "build", str(c), "--out", str(tmp_path / "j"), "--no-dense",
                 "--expansions", str(tmp_path / "nope.jsonl")]) == 2
    assert "no expansions file" in capsys.readouterr().err
