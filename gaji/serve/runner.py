"""Running questions for the server: a bounded queue onto the LLM's slots, a time limit, cancellation.

Questions run on a pool of `slots` threads (sized from `backend.parallel_slots`); at most `queue_max`
more wait their turn, and a question beyond that is refused at once (`QueueFull`, HTTP 503) instead
of piling up. Each question gets a `CancelToken` with its deadline. The LLM and the retriever a run
sees are per-request views of the shared ones that check the token before every call, so a run that
timed out, or whose client went away, stops at its next LLM call instead of holding a slot: the
check raises `Cancelled`, a BaseException (like asyncio's CancelledError) so that no method's
`except Exception` swallows it and the run unwinds at once.
"""
from __future__ import annotations

import concurrent.futures as cf
import copy
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from gaji.api import Gaji
from gaji.conversation.turns import Turn
from gaji.deadline import deadline_scope
from gaji.errors import ConfigError, GajiError, IndexUnusableError, InputError
from gaji.llm.base import LLMBackend, Request, Result, TextSink
from gaji.llm.streaming import AnswerSink
from gaji.methods.base import EventSink
from gaji.types import Passage, Retriever, Trace


class Cancelled(BaseException):
    """The request was cancelled (time limit, client gone, shutdown); carries the reason."""


class QueueFull(Exception):
    """Every slot is busy and the queue is full."""


class CancelToken:
    def __init__(self, timeout_s: float | None = None):
        self.deadline = time.monotonic() + timeout_s if timeout_s else None
        self.reason = ""
        # a bad option or input the index refused during the run (k=-5): the method reports the run failed,
        # the service answers 400 with this error instead of 502
        self.usage_error: GajiError | None = None
        self._event = threading.Event()

    def cancel(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def check(self) -> None:
        """Raise Cancelled when cancelled or past the deadline."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.cancel("time limit")
        if self._event.is_set():
            raise Cancelled(self.reason)


class CancellableLLM(LLMBackend):
    """One request's view of the shared backend: no new call starts once the request is cancelled."""

    def __init__(self, inner: LLMBackend, token: CancelToken):
        self.inner = inner
        self.token = token
        self.mirror(inner)

    def generate(self, request: Request) -> Result:
        self.token.check()
        with deadline_scope(self.token.remaining()):  # a call never outlives its request's time limit
            return self.inner.generate(request)

    def generate_stream(self, request: Request, on_text: TextSink) -> Result:
        """Streamed; a cancellation also stops a generation under way, at its next piece of text."""
        self.token.check()

        def checked(text: str) -> None:
            self.token.check()
            on_text(text)

        with deadline_scope(self.token.remaining()):  # a call never outlives its request's time limit
            return self.inner.generate_stream(request, checked)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def close(self) -> None:  # the shared backend belongs to the server
        pass


class RecordingRetriever(Retriever):
    """One request's view of a retriever: checks the token, and keeps every passage it returned
    so streamed node events can carry the passages' text (a node only holds their ids)."""

    def __init__(self, inner: Retriever, token: CancelToken):
        self.inner = inner
        self.token = token
        self.name = inner.name
        self._seen: dict[str, Passage] = {}
        self._sent: set[str] = set()
        self._lock = threading.Lock()

    def _keep(self, passages: list[Passage]) -> list[Passage]:
        with self._lock:
            for p in passages:
                self._seen.setdefault(p.id, p)
        return passages

    def _searched(self, fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        self.token.check()
        try:
            return fn(*a, **kw)
        except (ConfigError, InputError) as e:
            self.token.usage_error = e
            raise

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return self._keep(self._searched(self.inner.search, query, k))

    def search_many(self, queries: list[str], k: int = 5) -> list[list[Passage]]:
        return [self._keep(ps) for ps in self._searched(self.inner.search_many, queries, k)]

    def describe(self) -> dict:
        return self.inner.describe()

    def take_new(self, ids: list[str]) -> dict[str, dict]:
        """Passages among `ids` not handed out before (each passage is streamed once)."""
        with self._lock:
            out = {i: self._seen[i].to_dict() for i in ids if i in self._seen and i not in self._sent}
            self._sent.update(out)
        return out


class TracedRecordingRetriever(RecordingRetriever):
    """The same, for retrievers that call the LLM themselves (ConTRe's `search_traced`)."""

    def search_traced(self, query: str, k: int, node: Any = None, llm: Any = None) -> list[Passage]:
        return self._keep(self._searched(self.inner.search_traced, query, k, node=node, llm=llm))  # type: ignore[attr-defined]


def recording(inner: Retriever, token: CancelToken) -> RecordingRetriever:
    cls = TracedRecordingRetriever if hasattr(inner, "search_traced") else RecordingRetriever
    return cls(inner, token)


@dataclass
class Question:
    """A validated question, ready to run on a `Gaji`."""

    question: str
    method: str
    options: dict[str, Any] = field(default_factory=dict)
    retriever: str | None = None
    lang: str | None = None
    history: list[Turn] = field(default_factory=list)  # the conversation's earlier turns (a follow-up is rewritten)


def run_question(base: Gaji, q: Question, token: CancelToken, on_event: EventSink | None = None,
                 recorder_out: list[RecordingRetriever] | None = None, on_answer: AnswerSink | None = None) -> Trace:
    """Run one question on a per-request `Gaji` that shares `base`'s backend and retriever.

    The per-request Gaji sees the cancellable LLM and the recording retriever; `recorder_out`
    receives the recorder (for streaming passages) as soon as it exists."""
    token.check()
    method = base.make_method(q.method, q.options)
    recorder: RecordingRetriever | None = None
    if method.wants_retriever():  # chain retrieves when the service has an index
        try:
            shared = base.retriever(q.retriever)
        except IndexUnusableError as e:
            if q.retriever:  # the client asked for a retriever this index cannot give: its mistake
                raise ConfigError(str(e)) from e
            raise
        if shared is not None:
            recorder = recording(shared, token)
            if recorder_out is not None:
                recorder_out.append(recorder)
    settings = copy.copy(base.settings)
    settings.index = None  # the per-request Gaji never opens an index itself
    if q.lang:
        settings.lang = q.lang
    g = Gaji(llm=CancellableLLM(base.backend, token), retriever=recorder, settings=settings)
    return g.ask(q.question, method=q.method, options=q.options, on_event=on_event, history=q.history,
                 on_answer=on_answer, time_left=token.remaining)


class Runner:
    """A fixed pool of `slots` worker threads with a bounded wait queue."""

    def __init__(self, slots: int, queue_max: int):
        self.slots = max(1, slots)
        self.queue_max = max(0, queue_max)
        self._pool = cf.ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="gaji-ask")
        self._lock = threading.Lock()
        self._running = 0
        self._waiting = 0
        self._rejected = 0
        self._tokens: set[CancelToken] = set()

    def submit(self, fn: Callable[[], Any], token: CancelToken) -> cf.Future:
        """Queue `fn`; QueueFull when slots + queue are taken. A run whose token was cancelled while
        it waited does not start."""
        with self._lock:
            if self._running + self._waiting >= self.slots + self.queue_max:
                self._rejected += 1
                raise QueueFull(
                    f"server busy: {self._running} question(s) running and {self._waiting} waiting "
                    f"(limit {self.slots} + {self.queue_max}); retry later"
                )
            self._waiting += 1
            self._tokens.add(token)

        def job() -> Any:
            with self._lock:
                self._waiting -= 1
                self._running += 1
            try:
                token.check()
                return fn()
            finally:
                with self._lock:
                    self._running -= 1
                    self._tokens.discard(token)

        return self._pool.submit(job)

    def state(self) -> dict[str, int]:
        with self._lock:
            return {"slots": self.slots, "queue_max": self.queue_max, "running": self._running,
                    "waiting": self._waiting, "rejected": self._rejected}

    def shutdown(self) -> None:
        """Cancel every queued and running question and stop the pool (does not wait for them)."""
        with self._lock:
            tokens = list(self._tokens)
        for t in tokens:
            t.cancel("server shutting down")
        self._pool.shutdown(wait=False, cancel_futures=False)
