"""`gaji classifier make-data` from the command line: split recorded, progress, resume, closed book."""
import json

import pytest

import gaji.llm.factory as factory
from gaji.cli.main import main
from gaji.llm.scripted import ScriptedLLM


def write_questions(path, n):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            q = f"질문 {i}: 로스트 그래비티 제조사는 어느 나라?" if i % 2 else f"Question {i}: where is the maker of Lost Gravity?"
            f.write(json.dumps({"id": f"x{i}", "question": q, "answers": ["Germany", "독일"]}, ensure_ascii=False) + "\n")


def fake_llm():
    def reply(req):
        system = req.messages[0]["content"]
        if "search engine can answer" in system or "하위 질문으로" in system:
            return "Who built Lost Gravity?"
        if "complex question using" in system or "이미 답한 하위 질문" in system:
            return "Germany" if "2. " in req.messages[1]["content"] else "France"
        return "Mack Rides"

    return ScriptedLLM(default=reply)


@pytest.fixture()
def patched(monkeypatch):
    monkeypatch.setattr(factory, "make_llm", lambda spec, **kw: fake_llm())


def test_make_data_cli_resumes(tmp_path, patched, capsys):
    qs = tmp_path / "toy.jsonl"
    write_questions(qs, 7)
    out = tmp_path / "data"
    args = ["classifier", "make-data", "--data", str(qs), "--report", "3", "--out", str(out), "--n", "1",
            "--max-length", "3", "--llm", "scripted", "--len1-share", "1.0"]
    assert main(args + ["--limit", "2"]) == 0
    err = capsys.readouterr().err
    assert "0 question(s) done before; 2 to do now" in err and "[2/2] toy x4: length 2 sufficient" in err
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "2 question(s) done before; 2 to do now" in err
    split = json.loads((out / "split.json").read_text())
    assert split["datasets"]["toy"] == {"report_ids": ["x0", "x1", "x2"], "train_ids": ["x3", "x4", "x5", "x6"]}
    chains = [json.loads(x) for x in (out / "chains.jsonl").read_text().splitlines()]
    assert sorted(c["id"] for c in chains) == ["x3", "x4", "x5", "x6"]
    assert all(c["closed_book"] and c["length"] == 2 for c in chains)
    inst = [json.loads(x) for x in (out / "instances.jsonl").read_text().splitlines()]
    assert [i["label"] for i in inst[:2]] == ["[Insufficient]", "[Sufficient]"]
    assert json.loads((out / "stats.json").read_text())["instances"] == 8


def test_make_data_cli_errors(tmp_path, patched, capsys):
    qs = tmp_path / "toy.jsonl"
    write_questions(qs, 3)
    assert main(["classifier", "make-data", "--data", str(qs), "--n", "0", "--out", str(tmp_path / "o")]) == 2
    assert "error:" in capsys.readouterr().err
    # n > 1 needs log-probabilities, which the scripted backend has not
    assert main(["classifier", "make-data", "--data", str(qs), "--report", "1", "--n", "2", "--llm", "scripted",
                 "--out", str(tmp_path / "o2")]) == 2
    assert "needs log-probabilities" in capsys.readouterr().err


def test_make_data_cli_names_a_missing_index(tmp_path, patched, capsys):
    qs = tmp_path / "toy.jsonl"
    write_questions(qs, 3)
    (tmp_path / "toy.corpus.jsonl").write_text('{"id": "d1", "title": "Lost Gravity", "text": "Mack Rides built it."}\n',
                                               encoding="utf-8")
    root = tmp_path / "indexes"
    assert main(["classifier", "make-data", "--data", str(qs), "--report", "1", "--n", "1", "--llm", "scripted",
                 "--index-root", str(root), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"no index for toy at {root / 'toy'}" in err
    assert f"gaji index build {tmp_path / 'toy.corpus.jsonl'} --out {root / 'toy'}" in err


def test_train_cli_needs_data(tmp_path, capsys):
    pytest.importorskip("torch", reason="torch is the optional extra `train`")
    assert main(["classifier", "train", "--data", str(tmp_path), "--out", str(tmp_path / "m")]) == 2
    assert "make-data" in capsys.readouterr().err


def write_run(d, rows):
    d.mkdir(parents=True)
    with open(d / "results.jsonl", "w") as f:
        for qid, em, f1, tok in rows:
            f.write(json.dumps({"id": qid, "status": "ok", "error": None,
                                "metrics": {"em": em, "f1": f1, "tokens": tok, "calls": 3}}) + "\n")
        f.write('{"torn')


def test_table4_uses_common_questions_and_delta(tmp_path, capsys):
    write_run(tmp_path / "l1", [("a", 0, 0.5, 100), ("b", 1, 1.0, 100), ("c", 1, 1.0, 100)])
    write_run(tmp_path / "l6", [("a", 1, 1.0, 600), ("b", 1, 1.0, 600)])
    write_run(tmp_path / "cl", [("a", 1, 1.0, 300), ("b", 0, 0.0, 200)])
    args = ["classifier", "table4", "--out", str(tmp_path / "out"),
            "--run", f"toy:L1={tmp_path / 'l1'}", "--run", f"toy:L6={tmp_path / 'l6'}",
            "--run", f"toy:L6+classifier={tmp_path / 'cl'}"]
    assert main(args) == 0
    t = json.loads((tmp_path / "out" / "table4.json").read_text())["table"]["toy"]
    assert t["questions"] == 2  # c is only in one run
    assert t["configs"]["L1"] == {"em": 50.0, "f1": 75.0, "atc": 100.0, "calls": 3.0}
    assert t["delta"] == {"of": "L6+classifier", "vs": "L6", "em_points": -50.0, "f1_points": -50.0, "atc_pct": -58.3}
    out = capsys.readouterr().out
    assert "| L6+classifier | 50.0 | 50.0 | 250 |" in out and "-58.3 %" in out
    assert main(["classifier", "table4", "--run", "nonsense"]) == 2
