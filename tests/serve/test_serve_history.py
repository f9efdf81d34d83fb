"""History, conversations and feedback over /api: a follow-up with a conversation id, the answer streamed in
/api/ask/stream, feedback, and everything still there after a restart (two app instances over one SQLite
file, and over one PostgreSQL database)."""
from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from gaji.history.store import HistoryStore

Q1 = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
Q2 = "When did it end?"
STANDALONE = "When did the Battle of Guam end?"


def app_over(make_app, scripted, spec: str, **cfg):
    llm = scripted(**{r"(?:Question|질문):": "Battle of Guam",
                      "_extra": [(r"Last question: When did it end\?", STANDALONE)]})
    return make_app(llm=llm, history=HistoryStore.open(spec), **cfg)


def settles(get, want, within_s: float = 6.0) -> bool:
    """Whether `get()` returns `want` within `within_s` (the server notices new keys within 2 s)."""
    deadline = time.monotonic() + within_s
    while get() != want:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def sse_events(text: str) -> list[tuple[str, dict]]:
    out = []
    for block in text.strip().split("\n\n"):
        name, data = "message", None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if data is not None:
            out.append((name, data))
    return out


@pytest.fixture(params=["sqlite", "postgresql"])
def spec(request, tmp_path):
    return str(tmp_path / "h.sqlite3") if request.param == "sqlite" else request.getfixturevalue("postgres_url")


def test_history_and_feedback_survive_a_restart(make_app, scripted, spec):
    first = app_over(make_app, scripted, spec)
    with TestClient(first) as c:
        a1 = c.post("/api/ask", json={"question": Q1, "method": "oner"}).json()
        a2 = c.post("/api/ask", json={"question": Q2, "method": "oner", "conversation_id": a1["conversation_id"]}).json()
        fb = c.post("/api/feedback", json={"trace_id": a2["trace_id"], "rating": "down",
                                           "correct_answer": "10 August 1944"})
    first.state.ask.history.close()
    assert fb.status_code == 200 and fb.json()["correct_answer"] == "10 August 1944"
    assert a2["conversation_id"] == a1["conversation_id"] and a2["trace"]["question"] == STANDALONE
    assert a2["trace"]["root"]["children"][0]["kind"] == "rewrite"

    second = app_over(make_app, scripted, spec)  # a new server process over the same database
    with TestClient(second) as c:
        conv = c.get(f"/api/conversations/{a1['conversation_id']}").json()
        trace = c.get(f"/api/traces/{a2['trace_id']}").json()
        # the conversation goes on after the restart: its turns come from the database
        a3 = c.post("/api/ask", json={"question": Q2, "method": "oner", "conversation_id": a1["conversation_id"]}).json()
    second.state.ask.history.close()
    assert [t["question"] for t in conv["turns"]] == [Q1, Q2] and [t["turn"] for t in conv["turns"]] == [1, 2]
    assert conv["turns"][1]["standalone"] == STANDALONE
    assert conv["turns"][1]["feedback"]["correct_answer"] == "10 August 1944"
    assert trace["trace"]["question"] == STANDALONE and trace["feedback"]["rating"] == "down"
    assert trace["latency_ms"] > 0 and trace["prompt_tokens"] == a2["usage"]["prompt_tokens"]
    assert trace["llm_calls"] == 2 and trace["endpoint"] == "api"
    assert a3["trace"]["question"] == STANDALONE


def test_stream_sends_the_answer_as_it_is_written(make_app, scripted, tmp_path):
    app = app_over(make_app, scripted, str(tmp_path / "h.sqlite3"))
    with TestClient(app) as c:
        r = c.post("/api/ask/stream", json={"question": Q1, "method": "oner"})
    events = sse_events(r.text)
    names = [n for n, _ in events]
    assert names[0] == "start" and names[-1] == "final"
    start, final = events[0][1], events[-1][1]
    pieces = [d for n, d in events if n == "answer"]
    assert [p["delta"] for p in pieces] == ["Battle ", "of ", "Guam"] and {p["draft"] for p in pieces} == {1}
    # the answer streams after the retrieval's node event and before the final one
    assert names.index("answer") > names.index("node") and "node" in names
    assert final["trace_id"] == start["trace_id"] and final["conversation_id"] == start["conversation_id"]
    assert app.state.ask.history.question(start["trace_id"]).answer == "Battle of Guam"


def test_unknown_conversation_and_bad_feedback(make_app, scripted, tmp_path):
    with TestClient(app_over(make_app, scripted, str(tmp_path / "h.sqlite3"))) as c:
        r = c.post("/api/ask", json={"question": Q2, "method": "oner", "conversation_id": "nope"})
        assert r.status_code == 404 and r.json() == {"error": "unknown conversation 'nope'"}
        assert c.post("/api/feedback", json={"trace_id": "nope", "rating": "up"}).status_code == 404
        tid = c.post("/api/ask", json={"question": Q1, "method": "oner"}).json()["trace_id"]
        bad = c.post("/api/feedback", json={"trace_id": tid, "rating": "meh"})
        assert bad.status_code == 400 and "rating" in bad.json()["error"]
        assert c.get("/api/traces/nope").status_code == 404


def test_without_a_history_conversations_are_refused_clearly(make_app):
    with TestClient(make_app()) as c:
        r = c.post("/api/ask", json={"question": Q2, "method": "oner", "conversation_id": "abc"})
        body = c.post("/api/ask", json={"question": Q1, "method": "oner"}).json()
        t = c.get(f"/api/traces/{body['trace_id']}")
    assert r.status_code == 400 and "keeps no history" in r.json()["error"]
    assert body["answer"] and t.status_code == 400


def test_a_failed_question_is_stored_with_its_status(make_app, scripted, tmp_path):
    app = make_app(llm=scripted(**{r"(?:Question|질문):": RuntimeError("model crashed")}),
                   history=HistoryStore.open(str(tmp_path / "h.sqlite3")))
    with TestClient(app) as c:
        r = c.post("/api/ask", json={"question": Q1, "method": "oner"})
    assert r.status_code == 502
    rec = app.state.ask.history.question(r.json()["trace_id"])
    assert rec.status == "failed" and "model crashed" in rec.error


def test_a_named_key_turns_authentication_on_without_a_restart(make_app, scripted, tmp_path):
    from gaji.history.keys import KeyStore

    app = app_over(make_app, scripted, str(tmp_path / "h.sqlite3"))  # no GAJI_API_KEY
    keys = KeyStore(app.state.ask.history.db)
    with TestClient(app) as c:
        assert c.get("/api/methods").status_code == 200  # no key anywhere: open, as before
        _, key = keys.add("web")
        assert settles(lambda: c.get("/api/methods").status_code, 401)  # a named key exists: keys are required now
        r = c.post("/api/ask", json={"question": Q1, "method": "oner"}, headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200
        assert app.state.ask.history.question(r.json()["trace_id"]).client == "web"
        assert c.get("/api/health").status_code == 200 and c.get("/").status_code == 200  # still open
        keys.revoke("web")
        assert settles(lambda: c.get("/api/methods").status_code, 200)  # no active key left: open again
