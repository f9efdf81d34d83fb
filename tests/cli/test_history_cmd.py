"""`gaji ask --conversation`, `gaji history` and `gaji keys`: a conversation continued from the command line,
the history exported as a question set that `gaji eval` runs (scripted LLM)."""
from __future__ import annotations

import json

from gaji.cli.ask_cmd import AnswerPrinter
from gaji.cli.main import main
from gaji.history.store import HistoryStore
from gaji.llm.streaming import AnswerDelta


def test_a_conversation_continued_from_the_command_line(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "h.sqlite3")
    monkeypatch.setenv("GAJI_HISTORY_DB", db)
    assert main(["ask", "Who created Hangul?", "-m", "nor", "--llm", "scripted:King Sejong", "--conversation", "new",
                 "--no-stream"]) == 0
    err = capsys.readouterr().err
    cid = err.split("conversation ")[1].split()[0]
    assert main(["ask", "When was he born?", "-m", "nor", "--llm", "scripted:1397", "--conversation", cid,
                 "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert [n["kind"] for n in trace["root"]["children"]] == ["rewrite"]
    # the scripted model answers "1397" to everything: as a rewrite that drops the question, so the follow-up's
    # "he" is resolved by one more call (a choice that "1397" does not answer): rewrite, resolve, answer
    assert [c["purpose"] for c in trace["root"]["children"][0]["calls"]] == ["rewrite", "resolve"]
    assert trace["usage"]["calls"] == 3
    store = HistoryStore.open(db)
    recs = store.questions(conversation_id=cid, oldest_first=True)
    assert [(r.turn, r.question, r.client, r.endpoint) for r in recs] == [
        (1, "Who created Hangul?", "cli", "cli"), (2, "When was he born?", "cli", "cli")]
    store.close()
    assert main(["ask", "q", "-m", "nor", "--llm", "scripted:x", "--conversation", "nope"]) == 2
    assert "no such conversation" in capsys.readouterr().err


def test_exported_feedback_runs_with_gaji_eval(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "home"))
    db = str(tmp_path / "h.sqlite3")
    store = HistoryStore.open(db)
    from gaji.history.store import QuestionRecord

    cid = store.start_conversation("alice")
    for qid, q, a, standalone in (("t1", "Who created Hangul?", "King Sejong", ""),
                                  ("t2", "When was he born?", "1398", "When was King Sejong born?"),
                                  ("t3", "And the capital?", "Seoul", "What is the capital of Korea?")):
        store.record(QuestionRecord(id=qid, conversation_id=cid, question=q, answer=a, standalone=standalone,
                                    method="nor", status="ok", client="alice"))
    store.add_feedback("t1", "up")
    store.add_feedback("t2", "down", correct_answer="1397")
    store.close()
    out = tmp_path / "asked.jsonl"
    assert main(["history", "export", "--out", str(out), "--history-db", db, "--feedback", "any"]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["id"], x["question"], x["answers"]) for x in lines] == [
        ("t1", "Who created Hangul?", ["King Sejong"]), ("t2", "When was King Sejong born?", ["1397"])]
    assert lines[1]["asked"] == "When was he born?" and lines[1]["feedback"] == "down"
    capsys.readouterr()
    # the exported set is a question set: gaji eval runs it (a scripted model that always says 1397)
    rc = main(["eval", "--data", str(out), "--method", "nor", "--llm", "scripted:1397", "--out",
               str(tmp_path / "run"), "--quiet", "--no-cache"])
    assert rc == 0
    results = {r["id"]: r for r in map(json.loads, (tmp_path / "run" / "results.jsonl").read_text().splitlines())}
    assert set(results) == {"t1", "t2"}
    assert results["t2"]["metrics"]["em"] == 1.0 and results["t1"]["metrics"]["em"] == 0.0
    assert main(["history", "list", "--history-db", db]) == 0
    listed = capsys.readouterr().out
    assert "1398" in listed and "King" in listed and "alice" in listed
    assert main(["history", "show", "t2", "--history-db", db]) == 0
    assert "correct answer: 1397" in capsys.readouterr().out


def test_keys_add_list_revoke(tmp_path, capsys):
    db = str(tmp_path / "h.sqlite3")
    assert main(["keys", "add", "alice", "--history-db", db]) == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("gaji-")
    assert main(["keys", "list", "--history-db", db]) == 0 and "alice" in capsys.readouterr().out
    assert main(["keys", "revoke", "alice", "--history-db", db]) == 0
    assert main(["keys", "revoke", "alice", "--history-db", db]) == 2
    assert "no active key named 'alice'" in capsys.readouterr().err


def test_answer_printer_writes_drafts_as_they_come():
    import io

    buf = io.StringIO()
    p = AnswerPrinter(buf)
    for d in (AnswerDelta(1, "Busan "), AnswerDelta(1, "maybe"), AnswerDelta(2, "Seoul")):
        p(d)
    p.close()
    assert buf.getvalue() == "… Busan maybe\n↻ Seoul\n\n"
