"""The ask pipeline every answering endpoint shares: `AskService`.

    prepare    method, index, question and options checked before anything is queued (404/400)
    submit     queued onto the LLM's slots under the request's time limit (503 when the queue is full)
    finish     the outcome as (HTTP status, JSON body), counted once in the metrics
    ask        the three in a row, for a plain JSON answer
    stream     the same with the run's events as they happen (`AskStream`)

An endpoint turns the outcome into its own wire format (the /api/ask JSON, server-sent events, or
another API's shape); validation, queueing, time limits, cancellation and metrics stay here.
"""
from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from gaji.registry import METHODS, RETRIEVERS
from gaji.serve.errors import ApiError, error_status, internal_error
from gaji.serve.indexes import IndexSet
from gaji.serve.metrics import Metrics
from gaji.serve.runner import CancelToken, Cancelled, Question, QueueFull, RecordingRetriever, Runner, run_question
from gaji.serve.schemas import AskRequest
from gaji.types import Trace

log = logging.getLogger("gaji.serve")
HEARTBEAT_S = 10.0
_DONE = object()


@dataclass
class Asked:
    """One submitted question: where it runs, its run, its deadline."""

    index: str | None
    question: Question
    token: CancelToken
    include_prompts: bool
    t0: float = field(default_factory=time.perf_counter)
    future: cf.Future | None = None

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000


@dataclass
class StreamEvent:
    """`start` and `node` carry `data`; `keepalive` nothing; `done` the final (status, body)."""

    kind: str  # start | node | keepalive | done
    data: dict[str, Any] | None = None
    status: int = 200


class AskService:
    """Answers questions over the server's indexes on a bounded pool of LLM slots."""

    def __init__(self, indexes: IndexSet, metrics: Metrics, *, timeout_s: float, default_method: str,
                 slots: int | None = None, queue_max: int = 8):
        """`slots`: questions run at once (None: the backend's parallel slots); `queue_max`: how many may wait."""
        self.indexes = indexes
        self.metrics = metrics
        self.timeout_s = timeout_s
        self.default_method = default_method
        self.runner = Runner(slots or indexes.gaji(None).backend.parallel_slots, queue_max)

    def shutdown(self) -> None:
        self.runner.shutdown()

    # -- the steps -------------------------------------------------------------------------------
    def prepare(self, req: AskRequest) -> Asked:
        """A checked question, not yet queued: bad requests fail here (ApiError, UnknownIndex, ConfigError)."""
        t0 = time.perf_counter()
        method = req.method or self.default_method
        if method not in METHODS:
            raise ApiError(404, f"unknown method {method!r}; known: {', '.join(METHODS.names())}")
        name = self.indexes.resolve(req.index)
        question = req.question.strip()
        if not question:
            raise ApiError(400, "empty question")
        self.indexes.gaji(name).make_method(method, req.options)  # bad options: 400 before queueing
        if req.retriever is not None and req.retriever not in RETRIEVERS:
            raise ApiError(400, f"unknown retriever {req.retriever!r}; known: {', '.join(RETRIEVERS.names())}")
        q = Question(question, method, dict(req.options), req.retriever, req.lang)
        return Asked(name, q, CancelToken(self.timeout_s), req.include_prompts, t0)

    def submit(self, asked: Asked, on_event: Any = None, recorders: list[RecordingRetriever] | None = None) -> cf.Future:
        base = self.indexes.gaji(asked.index)

        def work() -> Trace:
            with self.indexes.lock(asked.index).read():
                return run_question(base, asked.question, asked.token, on_event, recorders)

        try:
            asked.future = self.runner.submit(work, asked.token)
        except QueueFull as e:
            self.metrics.record_ask(asked.question.method, "rejected", 0.0, error=str(e))
            raise ApiError(503, str(e), headers={"Retry-After": "5"}) from None
        return asked.future

    def finish(self, asked: Asked) -> tuple[int, dict]:
        """(status, body) for a finished or timed-out run; records the outcome in the metrics."""
        fut, token, method = asked.future, asked.token, asked.question.method
        assert fut is not None
        ms = asked.elapsed_ms()
        if not fut.done():
            token.cancel("time limit")
            msg = f"time limit: no answer within {self.timeout_s:g} s (method {method})"
            self.metrics.record_ask(method, "timeout", ms, error=msg)
            return 504, {"error": msg}
        exc = fut.exception()
        if isinstance(exc, Cancelled):
            timeout = token.reason == "time limit"
            msg = f"time limit: no answer within {self.timeout_s:g} s" if timeout else f"cancelled: {token.reason}"
            self.metrics.record_ask(method, "timeout" if timeout else "error", ms, error=msg)
            return (504 if timeout else 503), {"error": msg}
        if exc is not None:
            status = error_status(exc)
            if status == 500:
                body = internal_error(exc)
                self.metrics.record_ask(method, "error", ms, error=body["error"])
                return 500, body
            msg = self.indexes.scrub(asked.index, str(exc))
            self.metrics.record_ask(method, "bad_request" if status < 500 else "error", ms, error=msg)
            return status, {"error": msg}
        trace: Trace = fut.result()
        body = ask_body(trace, asked.include_prompts)
        if trace.status != "ok" and token.usage_error is not None:  # e.g. k out of range: the client's mistake
            msg = self.indexes.scrub(asked.index, str(token.usage_error))
            self.metrics.record_ask(method, "bad_request", ms, trace, error=msg)
            return 400, {**body, "error": msg}
        if trace.status != "ok":
            msg = self.indexes.scrub(asked.index, f"the method failed: {trace.error}")
            self.metrics.record_ask(method, "failed", ms, trace, error=msg)
            return 502, {**body, "error": msg}
        self.metrics.record_ask(method, "ok", ms, trace)
        return 200, body

    # -- whole requests --------------------------------------------------------------------------
    async def ask(self, req: AskRequest) -> tuple[int, dict]:
        """Answer one question: (HTTP status, body)."""
        asked = self.prepare(req)
        fut = self.submit(asked)
        await wait_done(fut, asked.token.remaining())
        return self.finish(asked)

    def stream(self, req: AskRequest) -> "AskStream":
        """Check and queue the question now (errors are raised here, before any event is sent); its
        events come from `AskStream.events()`."""
        return AskStream(self, self.prepare(req))


class AskStream:
    """One question's events: `start`, one `node` per node created or updated (without its children,
    with `child_ids` and the text of newly seen `passages`), keep-alives while waiting, then `done`."""

    def __init__(self, service: AskService, asked: Asked):
        self.service = service
        self.asked = asked
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue = asyncio.Queue()
        self._recorders: list[RecordingRetriever] = []
        fut = service.submit(asked, self._on_event, self._recorders)
        fut.add_done_callback(lambda _: _post(self._loop, self._queue, _DONE))

    def _on_event(self, kind: str, node: dict) -> None:
        """Called on the worker thread for every node event of the run."""
        if not self.asked.include_prompts:
            _drop_prompts(node)
        node["passages"] = self._recorders[0].take_new(node.get("passage_ids", [])) if self._recorders else {}
        _post(self._loop, self._queue, ("node", node))

    async def events(self) -> AsyncIterator[StreamEvent]:
        """The events; closing this generator early (the client went away) cancels the run."""
        asked, token = self.asked, self.asked.token
        q = asked.question
        done = False
        try:
            yield StreamEvent("start", {"question": q.question, "method": q.method, "index": asked.index})
            while True:
                rem = token.remaining()
                wait = HEARTBEAT_S if rem is None else min(HEARTBEAT_S, rem)
                try:
                    item = await asyncio.wait_for(self._queue.get(), wait)
                except asyncio.TimeoutError:
                    if token.remaining() != 0:
                        yield StreamEvent("keepalive")
                        continue
                    item = _DONE  # time is up: finish() reports 504
                if item is not _DONE:
                    yield StreamEvent(item[0], item[1])
                    continue
                done = True
                status, body = self.service.finish(asked)
                yield StreamEvent("done", body, status)
                return
        finally:
            if not done:  # the client went away: stop the run at its next LLM call, and count it
                token.cancel("client disconnected")
                self.service.metrics.record_ask(q.method, "disconnected", asked.elapsed_ms(),
                                                error="client disconnected")


# -- helpers ---------------------------------------------------------------------------------------
async def wait_done(fut: cf.Future, timeout: float | None) -> bool:
    """Wait (without blocking the event loop) until `fut` is done or `timeout` passes."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    fut.add_done_callback(lambda _: _post(loop, None, done))
    try:
        await asyncio.wait_for(done.wait(), timeout)
    except asyncio.TimeoutError:
        return False
    return True


def _post(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue | None, item: Any) -> None:
    """Hand `item` to the event loop from a worker thread (a queue item, or an Event to set)."""
    try:
        if queue is None:
            loop.call_soon_threadsafe(item.set)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, item)
    except RuntimeError:  # the loop is gone: the client left and nobody is listening
        pass


def ask_body(trace: Trace, prompts: bool) -> dict[str, Any]:
    """The /api/ask body: answer, cited passages, status, usage and the whole trace."""
    d = trace.to_dict()
    if not prompts:
        for node in _walk(d["root"]):
            _drop_prompts(node)
    cites = [{"id": p.id, "doc_id": p.doc_id, "title": p.title, "text": p.text,
              "location": p.location.to_dict() if p.location else None}
             for p in (trace.passages.get(i) for i in trace.citations) if p is not None]
    return {"answer": trace.answer, "explanation": trace.explanation, "citations": cites, "status": trace.status,
            "error": trace.error, "usage": d["usage"], "usage_by_purpose": d["usage_by_purpose"], "trace": d}


def _walk(node: dict) -> Any:
    yield node
    for c in node.get("children", []):
        yield from _walk(c)


def _drop_prompts(node: dict) -> None:
    for c in node.get("calls", []):
        c["prompt"] = None
