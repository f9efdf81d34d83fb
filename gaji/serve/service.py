"""The ask pipeline every answering endpoint shares: `AskService`.

    prepare    method, index, question and options checked before anything is queued (404/400)
    submit     queued onto the LLM's slots under the request's time limit (503 when the queue is full)
    finish     the outcome as (HTTP status, JSON body), counted once in the metrics
    ask        the three in a row, for a plain JSON answer
    stream     the same with the run's events as they happen (`AskStream`): the tree's nodes, and the
               answer's text as the method writes it (`answer` events)

A question belongs to a conversation: `open` continues a stored one (its earlier turns are the
history a follow-up is rewritten against) or starts one. When the server keeps a history
(gaji/history), every question that ran is stored there from the worker thread, before its answer is
sent: its conversation, trace, latency, tokens and client (the API key's name). The trace id and the
conversation id come back with the answer, and `history` says whether it was stored: "stored", "not
stored" (the database is down: the record waits in the local outbox, gaji/history/outbox.py, and is
replayed once the database is back) or "off".

An endpoint turns the outcome into its own wire format (the /api/ask JSON, server-sent events, or
another API's shape); validation, queueing, time limits, cancellation, history and metrics stay here.
"""
from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any, AsyncIterator, Callable

from gaji.conversation.turns import Turn
from gaji.history.db import HistoryError
from gaji.history.keys import Scopes
from gaji.history.outbox import NOT_STORED, STORED, DurableHistory
from gaji.history.store import Feedback, HistoryStore, QuestionRecord, new_id
from gaji.llm.streaming import AnswerDelta
from gaji.messages import Msg, message_of
from gaji.registry import METHODS, RETRIEVERS, is_method_name, method_names
from gaji.serve.auth import DEFAULT_CLIENT
from gaji.serve.citations import answer_of_shown
from gaji.serve.errors import ApiError, error_status, internal_error
from gaji.serve.indexes import IndexSet
from gaji.serve.metrics import Metrics
from gaji.serve.scopes import require
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
    trace_id: str = field(default_factory=new_id)
    conversation_id: str = field(default_factory=new_id)
    client: str | None = None  # the API key's name (None: no authentication)
    endpoint: str = "api"  # api | chat: where the question came in (recorded in the history)
    body: dict[str, Any] | None = None  # the answer body, made on the worker thread with the record
    # the text a client is shown (serve/citations.py), from the body and the answer's last streamed draft:
    # stored as the history's answer, sent as body["shown"]
    shape: Callable[[dict[str, Any], str], dict[str, Any]] | None = None
    draft: str = ""  # the answer's text as streamed, its last draft
    draft_no: int = -1
    stored: str = "off"  # stored | not stored | off: what became of the history record

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000


@dataclass
class StreamEvent:
    """`start` and `node` carry `data`; `keepalive` nothing; `done` the final (status, body)."""

    kind: str  # start | node | answer | keepalive | done
    data: dict[str, Any] | None = None
    status: int = 200


class AskService:
    """Answers questions over the server's indexes on a bounded pool of LLM slots."""

    def __init__(self, indexes: IndexSet, metrics: Metrics, *, timeout_s: float, default_method: str,
                 slots: int | None = None, queue_max: int = 8, history: HistoryStore | None = None,
                 durable: DurableHistory | None = None):
        """`slots`: questions run at once (None: the backend's parallel slots); `queue_max`: how many may wait;
        `history`: where questions and feedback are stored (None: nowhere, and no stored conversations);
        `durable`: writes to `history` through an outbox (None: straight to `history`)."""
        self.indexes = indexes
        self.metrics = metrics
        self.timeout_s = timeout_s
        self.default_method = default_method
        self.history = history
        self.durable = durable
        self.runner = Runner(slots or indexes.gaji(None).backend.parallel_slots, queue_max)

    def shutdown(self) -> None:
        self.runner.shutdown()

    # -- conversations and the history ---------------------------------------------------------
    async def open(self, req: AskRequest, *, client: str | None = None, endpoint: str = "api",
                   history: list[Turn] | None = None, conversation_id: str | None = None,
                   access: Scopes | None = None) -> Asked:
        """`prepare` within a conversation: `history` given (a chat client sends the whole conversation), or
        the stored turns of `req.conversation_id` (404 when there is no such conversation), or a new one.
        `access`: the key's scopes (403 unless they allow reading the question's index)."""
        require(access, "read", self.indexes.resolve(req.index) if self.indexes.names() else None)
        cid = conversation_id or req.conversation_id
        if conversation_id and self.history is not None:  # a client's own id: not another client's conversation
            try:
                conv = await asyncio.to_thread(self.history.conversation, conversation_id)
            except HistoryError as e:  # the client sent the turns itself: answer now, the record waits
                log.warning("history database: cannot look up conversation %s: %s", conversation_id, e)
                conv = None
            if conv is not None and not may_see(client, conv.client):
                raise ApiError(404, f"unknown conversation {conversation_id!r}")
        if history is None and req.conversation_id:
            store = self._store()
            conv = await self._db(store.conversation, req.conversation_id)
            if conv is None or not may_see(client, conv.client):
                raise ApiError(404, f"unknown conversation {req.conversation_id!r}")
            history = await self._db(store.turns, req.conversation_id)
            # a chat reply was stored as shown (markers, sources): the turn keeps its short answer
            history = [replace(t, answer=answer_of_shown(t.answer)) for t in history]
        asked = self.prepare(req)
        asked.question.history = list(history or [])
        asked.client, asked.endpoint = client, endpoint
        if cid:
            asked.conversation_id = cid
        return asked

    def _store(self) -> HistoryStore:
        if self.history is None:
            raise ApiError(400, "this server keeps no history (history_db is off): send the conversation's "
                           "earlier turns instead (POST /v1/chat/completions)", msg=Msg("error.no_history").to_dict())
        return self.history

    async def _db(self, fn: Any, *args: Any, **kw: Any) -> Any:
        """A history call off the event loop; a database failure is a 503."""
        try:
            return await asyncio.to_thread(fn, *args, **kw)
        except HistoryError as e:
            log.error("history database: %s", e)
            raise ApiError(503, f"the history database is unavailable: {e}") from None

    async def stored_question(self, qid: str, client: str | None, trace: bool = True) -> QuestionRecord:
        rec = await self._db(self._store().question, qid, trace)
        if rec is None or not may_see(client, rec.client):
            raise ApiError(404, f"unknown trace {qid!r}")
        return rec

    async def add_feedback(self, trace_id: str, rating: str, correct_answer: str | None, comment: str | None,
                           client: str | None) -> Feedback:
        rec = await self.stored_question(trace_id, client, trace=False)
        return await self._db(self._store().add_feedback, rec.id, rating, correct_answer, comment, client)

    async def conversations(self, client: str | None, limit: int = 50) -> list[Any]:
        """The conversations `client` may see (all for the server's own key or no key), most recent first."""
        store = self._store()
        mine = None if client in (None, DEFAULT_CLIENT) else client
        return await self._db(store.conversations, mine, limit)

    async def conversation(self, cid: str, client: str | None) -> tuple[Any, list[QuestionRecord]]:
        store = self._store()
        conv = await self._db(store.conversation, cid)
        if conv is None or not may_see(client, conv.client):
            raise ApiError(404, f"unknown conversation {cid!r}")
        return conv, await self._db(store.questions, conversation_id=cid, limit=0, oldest_first=True)

    def _record(self, asked: Asked, trace: Trace | None, status: str, error: str | None = None) -> None:
        """Store the question (worker thread) before its answer is sent, and note in `asked.stored` whether
        it was: a database failure queues it in the outbox, never fails the question."""
        if self.history is None:
            return
        q = asked.question
        try:
            if trace is not None:
                body = asked.body or ask_body(trace, asked.include_prompts)
                rec = QuestionRecord.from_trace(
                    trace, id=asked.trace_id, conversation_id=asked.conversation_id,
                    question=q.question, latency_ms=asked.elapsed_ms(), index=asked.index, client=asked.client,
                    endpoint=asked.endpoint, citations=body["citations"], trace_dict=body["trace"], status=status)
                if body.get("shown"):  # history stores what the client was shown
                    rec = replace(rec, answer=body["shown"]["content"])
            else:
                rec = QuestionRecord(id=asked.trace_id, conversation_id=asked.conversation_id, question=q.question,
                                     method=q.method, status=status, error=error, index=asked.index,
                                     client=asked.client, endpoint=asked.endpoint,
                                     latency_ms=round(asked.elapsed_ms(), 1))
            if self.durable is not None:
                asked.stored = STORED if self.durable.save(rec, title=q.question) else NOT_STORED
            else:
                self.history.save(rec, title=q.question)
                asked.stored = STORED
        except Exception as e:  # noqa: BLE001 - the outbox failed too (disk full): say so, answer anyway
            asked.stored = NOT_STORED
            log.error("could not store question %s in the history: %s", asked.trace_id, e)

    # -- the steps -------------------------------------------------------------------------------
    def prepare(self, req: AskRequest) -> Asked:
        """A checked question, not yet queued: bad requests fail here (ApiError, UnknownIndex, ConfigError)."""
        t0 = time.perf_counter()
        method = req.method or self.default_method
        if not is_method_name(method):
            raise ApiError(404, f"unknown method {method!r}; known methods and recipes: {', '.join(method_names())}")
        name = self.indexes.resolve(req.index)
        question = req.question.strip()
        if not question:
            raise ApiError(400, "empty question")
        self.indexes.gaji(name).make_method(method, req.options)  # bad options: 400 before queueing
        if req.retriever is not None and req.retriever not in RETRIEVERS:
            raise ApiError(400, f"unknown retriever {req.retriever!r}; known: {', '.join(RETRIEVERS.names())}")
        q = Question(question, method, dict(req.options), req.retriever, req.lang)
        return Asked(name, q, CancelToken(self.timeout_s), req.include_prompts, t0)

    def submit(self, asked: Asked, on_event: Any = None, recorders: list[RecordingRetriever] | None = None,
               on_answer: Any = None) -> cf.Future:
        base = self.indexes.gaji(asked.index)

        def answer_piece(piece: AnswerDelta) -> None:  # worker thread: keep the last draft, then pass it on
            if piece.draft != asked.draft_no:
                asked.draft_no, asked.draft = piece.draft, ""
            asked.draft += piece.text
            if on_answer is not None:
                on_answer(piece)

        sink = answer_piece if on_answer is not None or asked.shape is not None else None

        def work() -> Trace:
            with self.indexes.lock(asked.index).read():
                try:
                    trace = run_question(base, asked.question, asked.token, on_event, recorders, sink)
                except Cancelled as e:
                    self._record(asked, None, "timeout" if asked.token.reason == "time limit" else "cancelled", str(e))
                    raise
                except Exception as e:
                    self._record(asked, None, "error", self.indexes.scrub(asked.index, f"{type(e).__name__}: {e}"))
                    raise
            stop_unfinished(trace.root)
            asked.body = ask_body(trace, asked.include_prompts)
            if asked.shape is not None:
                asked.body["shown"] = asked.shape(asked.body, asked.draft)
            self._record(asked, trace, trace.status)
            return trace

        try:
            asked.future = self.runner.submit(work, asked.token)
        except QueueFull as e:
            self.metrics.record_ask(asked.question.method, "rejected", 0.0, error=str(e))
            raise ApiError(503, str(e), headers={"Retry-After": "5"}) from None
        return asked.future

    def _time_limit_msg(self) -> dict:
        return Msg("error.time_limit", {"seconds": f"{self.timeout_s:g}"}).to_dict()

    def finish(self, asked: Asked) -> tuple[int, dict]:
        """(status, body) for a finished or timed-out run; records the outcome in the metrics."""
        fut, token, method = asked.future, asked.token, asked.question.method
        assert fut is not None
        ms = asked.elapsed_ms()
        if not fut.done():
            token.cancel("time limit")
            msg = f"time limit: no answer within {self.timeout_s:g} s (method {method})"
            self.metrics.record_ask(method, "timeout", ms, error=msg)
            return 504, {"error": msg, "msg": self._time_limit_msg()}
        exc = fut.exception()
        if isinstance(exc, Cancelled):
            timeout = token.reason == "time limit"
            msg = f"time limit: no answer within {self.timeout_s:g} s" if timeout else f"cancelled: {token.reason}"
            self.metrics.record_ask(method, "timeout" if timeout else "error", ms, error=msg)
            return (504, {"error": msg, "msg": self._time_limit_msg()}) if timeout else (503, {"error": msg})
        if exc is not None:
            status = error_status(exc)
            if status == 500:
                body = internal_error(exc)
                self.metrics.record_ask(method, "error", ms, error=body["error"])
                return 500, body
            msg = self.indexes.scrub(asked.index, str(exc))
            self.metrics.record_ask(method, "bad_request" if status < 500 else "error", ms, error=msg)
            said = message_of(exc)  # a table message too, for a page that shows it in its own language
            return status, {"error": msg, **({"msg": self.indexes.scrub_value(asked.index, said.to_dict())} if said else {})}
        trace: Trace = fut.result()
        body = dict(asked.body or ask_body(trace, asked.include_prompts))
        body.update(trace_id=asked.trace_id, conversation_id=asked.conversation_id, history=asked.stored)
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
    async def ask(self, req: AskRequest | Asked, client: str | None = None) -> tuple[int, dict]:
        """Answer one question (a request, or one already `open`ed): (HTTP status, body)."""
        asked = req if isinstance(req, Asked) else await self.open(req, client=client)
        fut = self.submit(asked)
        await wait_done(fut, asked.token.remaining())
        return self.finish(asked)

    def stream(self, req: AskRequest | Asked) -> "AskStream":
        """Check and queue the question now (errors are raised here, before any event is sent); its
        events come from `AskStream.events()`. A request with a stored conversation is `open`ed first."""
        return AskStream(self, req if isinstance(req, Asked) else self.prepare(req))


class AskStream:
    """One question's events: `start`, one `node` per node created or updated (without its children,
    with `child_ids` and the text of newly seen `passages`), `answer` pieces as the method writes its
    answer (`{"draft", "delta"}`: a new draft number starts the text over), keep-alives while waiting,
    then `done`."""

    def __init__(self, service: AskService, asked: Asked):
        self.service = service
        self.asked = asked
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue = asyncio.Queue()
        self._recorders: list[RecordingRetriever] = []
        fut = service.submit(asked, self._on_event, self._recorders, self._on_answer)
        fut.add_done_callback(lambda _: _post(self._loop, self._queue, _DONE))

    def _on_answer(self, piece: AnswerDelta) -> None:
        """Called on the worker thread for every piece of the answer's text."""
        _post(self._loop, self._queue, ("answer", {"draft": piece.draft, "delta": piece.text}))

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
            yield StreamEvent("start", {"question": q.question, "method": q.method, "index": asked.index,
                                        "trace_id": asked.trace_id, "conversation_id": asked.conversation_id})
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


def stop_unfinished(node: Any) -> int:
    """Mark the nodes of a finished run that were still running (the run failed, hit its time limit or was
    stopped under them) as "stopped", so no page shows them in progress; returns how many."""
    n = 0
    if node.status == "running":
        node.status = "stopped"
        n += 1
    for child in node.children:
        n += stop_unfinished(child)
    return n


def history_headers(body: dict[str, Any]) -> dict[str, str]:
    """`X-Gaji-History: stored | not stored | off`, for a response whose body says the same."""
    return {"X-Gaji-History": str(body["history"])} if body.get("history") else {}


def may_see(client: str | None, owner: str | None) -> bool:
    """A named key's client sees its own conversations and traces; the server's own key (client
    "default") and a server without keys (client None) see all of them."""
    return client in (None, DEFAULT_CLIENT) or client == owner



def _walk(node: dict) -> Any:
    yield node
    for c in node.get("children", []):
        yield from _walk(c)


def _drop_prompts(node: dict) -> None:
    for c in node.get("calls", []):
        c["prompt"] = None
