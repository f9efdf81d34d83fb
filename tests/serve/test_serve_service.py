"""gaji.serve.service: the one ask pipeline, also behind an endpoint of another shape."""
from __future__ import annotations

import asyncio

import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient

from gaji.serve.errors import ApiError
from gaji.serve.routes import Service
from gaji.serve.schemas import AskRequest

KO_Q = "훈민정음은 언제 반포되었나?"


def test_bad_requests_are_refused_before_queueing(make_app):
    service = make_app().state.ask
    with pytest.raises(ApiError) as e:
        service.prepare(AskRequest(question="q", method="nope"))
    assert e.value.status == 404 and "unknown method 'nope'" in e.value.message
    with pytest.raises(ApiError) as e:
        service.prepare(AskRequest(question="   ", method="oner"))
    assert e.value.status == 400 and e.value.message == "empty question"
    with pytest.raises(ApiError) as e:
        service.prepare(AskRequest(question="q", method="oner", retriever="nope"))
    assert e.value.status == 400 and "unknown retriever" in e.value.message
    assert service.runner.state()["running"] == 0 and service.metrics.snapshot()["questions"]["total"] == 0


def test_another_router_answers_through_the_same_service(make_app):
    """An endpoint of another shape (as a chat endpoint would be) is one more router over the service:
    it shares the queue, the time limit and the metrics with /api/ask."""
    app = make_app()
    other = APIRouter()

    @other.post("/v1/plain")
    async def plain(req: AskRequest, service: Service) -> dict:
        status, body = await service.ask(req)
        return {"status": status, "text": body.get("answer"), "cited": [c["id"] for c in body.get("citations", [])]}

    app.include_router(other)
    with TestClient(app) as c:
        r = c.post("/v1/plain", json={"question": KO_Q, "method": "test_tree"})
        assert r.json() == {"status": 200, "text": "1446년", "cited": ["ko-hunmin"]}
        assert c.post("/v1/plain", json={"question": "q", "method": "nope"}).status_code == 404
        m = c.get("/api/metrics").json()
    assert m["questions"]["by_method"] == {"test_tree": 1} and m["questions"]["by_outcome"] == {"ok": 1}


def test_stream_events_end_with_the_outcome(make_app):
    service = make_app().state.ask

    async def collect():
        stream = service.stream(AskRequest(question=KO_Q, method="test_tree"))
        return [ev async for ev in stream.events()]

    events = asyncio.run(collect())
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and set(kinds[1:-1]) == {"node"}
    start = dict(events[0].data)
    ids = (start.pop("trace_id"), start.pop("conversation_id"))
    assert start == {"question": KO_Q, "method": "test_tree", "index": "demo"} and all(ids)
    assert events[-1].status == 200 and events[-1].data["answer"] == "1446년"
    service.shutdown()
