"""Slow, failing and overloaded backends: each request fails with a message, the server stays up."""
from __future__ import annotations

import json

import threading
import time

from fastapi.testclient import TestClient

from gaji.messages import Msg
from gaji.types import Passage

EN_Q = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"


def wait_for(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_timeout_is_504_and_the_run_stops_at_its_next_llm_call(make_app, scripted):
    calls = []

    def slow(_req):
        calls.append(time.monotonic())
        time.sleep(0.6)
        return "When was the Battle of Guam? | When was the Battle of Manila?"

    app = make_app(scripted(_extra=[(r"DECOMPOSE", slow)]), timeout_s=0.2)
    with TestClient(app) as c:
        r = c.post("/api/ask", json={"question": EN_Q, "method": "test_tree"})
        assert r.status_code == 504 and "time limit" in r.json()["error"]
        # the reply did not wait for the 0.6 s call to end (measured from the call's start, not the request's: the
        # request's setup before its first call takes a few tenths of a second, more on a busy machine)
        assert calls and time.monotonic() - calls[0] < 0.5
        # the page says it in its own language: the body carries the table's message too
        assert Msg.from_dict(r.json()["msg"]).text("ko") == "시간 초과: 0.2초 안에 답하지 못했습니다"
        runner = app.state.runner
        assert wait_for(lambda: runner.state()["running"] == 0)  # the slot comes back
        assert len(calls) == 1  # the sub-question calls never started
        assert c.get("/api/metrics").json()["questions"]["by_outcome"] == {"timeout": 1}
        assert c.post("/api/ask", json={"question": EN_Q}).status_code == 200


def test_failing_llm_is_an_error_json_and_the_server_stays_up(make_app, scripted):
    app = make_app(scripted(_extra=[(r"Question:", RuntimeError("backend exploded"))]))
    with TestClient(app) as c:
        r = c.post("/api/ask", json={"question": EN_Q})
        assert r.status_code == 502
        body = r.json()
        assert "backend exploded" in body["error"] and "Traceback" not in r.text
        assert body["trace"]["status"] == "failed"
        assert c.get("/api/health").json()["status"] == "ok"
        assert c.post("/api/ask", json={"question": "훈민정음은 언제?", "method": "test_tree"}).status_code == 200
        m = c.get("/api/metrics").json()
        assert m["questions"]["by_outcome"] == {"failed": 1, "ok": 1}
        assert m["llm"]["failed_calls"] == 1 and "backend exploded" in m["errors"]["recent"][0]["error"]


def test_unexpected_exception_is_500_with_a_message_not_a_traceback(make_app, caplog):
    """The body says what happened in general and carries a request id; the exception class, its message
    and the traceback go to the server log under that id, never to the client."""
    app = make_app()
    bad = app.state.indexes.gaji("demo").index.retr

    def boom(query, k=5):
        raise ZeroDivisionError("numpy: operands could not be broadcast together with shapes (3,) (4,)")

    bad.search = boom
    with caplog.at_level("ERROR", logger="gaji.serve"), TestClient(app, raise_server_exceptions=False) as c:
        for path in ("/api/ask", "/api/ask/stream"):
            r = c.post(path, json={"question": EN_Q})
            assert r.status_code == 200 if path.endswith("stream") else 500
            body = r.json() if r.status_code == 500 else json.loads(r.text.split("event: error\ndata: ")[1].split("\n")[0])
            rid = body["request_id"]
            assert body["error"] == (f"internal error: the server could not complete this request (request id {rid}; "
                                     "the server log has the details)")
            assert r.headers["x-request-id"] == rid and len(rid) == 12
            assert "ZeroDivisionError" not in r.text and "broadcast" not in r.text and "numpy" not in r.text
            assert f"request {rid} failed: ZeroDivisionError: numpy: operands" in caplog.text
        assert "Traceback" in caplog.text and "in boom" in caplog.text  # the log has the whole story
        assert c.get("/api/health").status_code == 200


def test_queue_full_is_503_and_every_request_is_answered_or_refused(make_app, scripted):
    gate = threading.Event()

    def held(_req):
        gate.wait(5)
        return "Answer: Battle of Guam\nSources: [1]"

    app = make_app(scripted(_extra=[(r"Question:", held)]), slots=1, queue_max=1)
    results: list[int] = []
    with TestClient(app) as c:
        def ask():
            results.append(c.post("/api/ask", json={"question": EN_Q}).status_code)

        threads = [threading.Thread(target=ask) for _ in range(2)]
        for t in threads:
            t.start()
        runner = app.state.runner
        assert wait_for(lambda: runner.state()["running"] == 1 and runner.state()["waiting"] == 1)
        r = c.post("/api/ask", json={"question": EN_Q})  # slot and queue taken
        assert r.status_code == 503 and "server busy" in r.json()["error"] and r.headers["retry-after"]
        gate.set()
        for t in threads:
            t.join(5)
        assert sorted(results) == [200, 200]
        m = c.get("/api/metrics").json()
        assert m["questions"]["by_outcome"] == {"ok": 2, "rejected": 1} and m["queue"]["rejected"] == 1


def test_retriever_passages_with_markup_stay_data(make_app):
    """A passage holding HTML is returned verbatim in JSON; the page inserts it as text (CSP blocks scripts)."""
    app = make_app()
    app.state.indexes.gaji("demo").index.retr.passages.insert(
        0, Passage(id="x", doc_id="x", title="<b>t</b>", text="<script>alert(1)</script> Battle of Guam Manila"))
    with TestClient(app) as c:
        r = c.post("/api/ask", json={"question": EN_Q})
        assert r.json()["trace"]["passages"]["x"]["text"].startswith("<script>")
        assert "'unsafe-inline'" not in r.headers["content-security-policy"]


def test_auto_answers_with_its_first_answer_rather_than_run_out_of_time(make_app, scripted, tmp_path):
    """A question auto would escalate, on a server whose time limit leaves no room for the escalation: the request
    gets the one-retrieval answer in time (the run's time left reaches auto), not a 504."""
    from gaji.methods.safety import SafetyModel

    path = tmp_path / "never-safe.json"  # P(right) 0.007 for every answer: always escalate
    SafetyModel(("grounded",), [0.0], [1.0], [0.0], -5.0, {"low": 0.5, "medium": 0.5, "high": 0.5}).save(path)
    seen = []

    def first_fast_then_slow(_req):
        seen.append(time.monotonic())
        if len(seen) > 1:
            time.sleep(1.0)
        return "Battle of Guam"

    app = make_app(scripted(_extra=[(r".", first_fast_then_slow)]), timeout_s=3.0)
    with TestClient(app) as c:
        r = c.post("/api/ask", json={"question": EN_Q, "method": "auto", "options": {"safety": str(path)}})
        assert r.status_code == 200, r.text
        body = r.json()
        cascade = body["trace"]["root"]["data"]["cascade"]
        assert cascade["decision"] == "escalate" and cascade["out_of_time"] and body["answer"] == "Battle of Guam"
        assert len(seen) == 1
