"""POST /api/ask/stream: server-sent events in order (start, node…, final | error)."""
from __future__ import annotations

import json

from fastapi.testclient import TestClient

KO_Q = "훈민정음은 언제 반포되었나?"


def parse_sse(text: str) -> list[tuple[str, dict]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


def stream(client: TestClient, body: dict) -> tuple[int, str, list[tuple[str, dict]]]:
    with client.stream("POST", "/api/ask/stream", json=body) as r:
        text = "".join(r.iter_text())
        return r.status_code, r.headers.get("content-type", ""), parse_sse(text)


def test_stream_events_in_order(make_app):
    with TestClient(make_app()) as c:
        status, ctype, events = stream(c, {"question": KO_Q, "method": "test_tree"})
    assert status == 200 and ctype.startswith("text/event-stream")
    names = [n for n, _ in events]
    assert names[0] == "start" and names[-1] == "final" and set(names[1:-1]) == {"node"}
    nodes = [d for n, d in events if n == "node"]
    root_id = nodes[0]["id"]
    assert nodes[0]["kind"] == "root" and nodes[-1]["id"] == root_id and nodes[-1]["answer"] == "1446년"
    # every node event is a node without its children, pointing at them by id
    assert all("children" not in d and "child_ids" in d for d in nodes)
    subs = {d["id"]: d for d in nodes if d["kind"] == "sub"}
    assert len(subs) == 2 and set(nodes[-1]["child_ids"]) == set(subs)
    # a sub-question's update comes after its parent lists it, and it carries the passages' text once
    first_listed = min(i for i, d in enumerate(nodes) if set(d["child_ids"]) & set(subs))
    first_sub = min(i for i, d in enumerate(nodes) if d["kind"] == "sub")
    assert first_listed < first_sub
    sent = [pid for d in nodes for pid in d["passages"]]
    assert len(sent) == len(set(sent)) and "ko-hunmin" in sent
    assert nodes[first_sub]["passages"]["ko-hunmin"]["text"].startswith("훈민정음은")
    final = events[-1][1]
    assert final["answer"] == "1446년" and final["citations"][0]["id"] == "ko-hunmin"
    assert final["trace"]["root"]["children"][0]["answer"] == "세종"
    assert [e for e in events if e[0] == "start"][0][1]["index"] == "demo"


def test_node_events_carry_the_methods_description_as_the_tree_grows(make_app):
    with TestClient(make_app()) as c:
        _, _, events = stream(c, {"question": KO_Q, "method": "test_tree"})
    nodes = [d for n, d in events if n == "node"]
    described = [d for d in nodes if d["kind"] == "sub" and d["display"]]
    assert described, "no live sub-question event carried its description"
    # the Korean question's description is in Korean, the same lines the final trace carries
    assert {"label": "검증", "text": "needed — scripted check · 주제 코사인 0.91", "tone": "decision"} in described[0]["display"]
    final_subs = events[-1][1]["trace"]["root"]["children"]
    assert all(s["display"] == described[0]["display"] for s in final_subs)


def test_stream_with_failing_llm_ends_with_an_error_event(make_app, scripted):
    llm = scripted(_extra=[(r"COMBINE", RuntimeError("backend exploded"))])
    with TestClient(make_app(llm)) as c:
        status, _, events = stream(c, {"question": KO_Q, "method": "test_tree"})
        assert status == 200
        name, data = events[-1]
        assert name == "error" and data["status"] == 502 and "backend exploded" in data["error"]
        assert data["trace"]["status"] == "failed"
        assert c.get("/api/health").status_code == 200


def test_stream_refuses_bad_requests_before_streaming(make_app):
    with TestClient(make_app()) as c:
        r = c.post("/api/ask/stream", json={"question": "q", "method": "nope"})
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
        r = c.post("/api/ask/stream", json={"question": "q", "index": "nope"})
        assert r.status_code == 404


def test_stream_time_limit_sends_an_error_event(make_app, scripted):
    import time

    def slow(_req):
        time.sleep(1.0)
        return "x"

    with TestClient(make_app(scripted(_extra=[(r"DECOMPOSE", slow)]), timeout_s=0.3)) as c:
        t0 = time.perf_counter()
        status, _, events = stream(c, {"question": KO_Q, "method": "test_tree"})
        assert status == 200 and time.perf_counter() - t0 < 0.9
        assert events[-1][0] == "error" and events[-1][1]["status"] == 504
        assert "time limit" in events[-1][1]["error"]


def test_client_leaving_a_stream_cancels_its_run(make_app, scripted, live_server):
    import time

    import httpx

    calls = []

    def slow(_req):
        calls.append(1)
        time.sleep(0.4)
        return "x | y"

    app = make_app(scripted(_extra=[(r"DECOMPOSE|SUBQ", slow)]))
    with live_server(app) as url:
        with httpx.Client(timeout=10) as c:
            with c.stream("POST", url + "/api/ask/stream", json={"question": KO_Q, "method": "test_tree"}) as r:
                for line in r.iter_lines():
                    if line.startswith("event: node"):
                        break  # walk away after the first node
        runner = app.state.runner
        end = time.monotonic() + 5
        while time.monotonic() < end and runner.state()["running"]:
            time.sleep(0.02)
        assert runner.state()["running"] == 0
        assert len(calls) <= 2  # the run stopped instead of asking all its sub-questions
        m = httpx.get(url + "/api/metrics").json()
        assert m["questions"]["by_outcome"] == {"disconnected": 1}
