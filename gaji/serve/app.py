"""The HTTP API and the web page: `create_app(indexes, config) -> FastAPI`.

    POST /api/ask                      question -> answer, citations, trace
    POST /api/ask/stream               the same as server-sent events: start, node…, final | error
    GET  /api/methods                  methods with their options
    GET  /api/indexes                  index names;  GET /api/indexes/{name}: chunks, config
    POST /api/indexes/{name}/documents JSONL upload (size-limited, validated per line)
    GET  /api/health, /api/metrics, /openapi.json;  GET / the web page

Errors are `{"error": message}`: 400 bad input, 401 API key, 404 unknown index/method, 413 too
large, 503 queue full, 504 time limit, 502 the LLM failed, 500 anything else (never a traceback).
"""
from __future__ import annotations

import asyncio
import concurrent.futures as cf
import json
import logging
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from gaji import __version__
from gaji.errors import GajiError, IndexError_, LLMError
from gaji.registry import METHODS, RETRIEVERS
from gaji.serve import schemas as S
from gaji.serve.auth import ApiKeyMiddleware, SecurityHeadersMiddleware
from gaji.serve.indexes import IndexSet, UnknownIndex, UploadInvalid, parse_documents_jsonl, scrub_text
from gaji.serve.limits import BodyLimitMiddleware
from gaji.serve.metrics import Metrics, MetricsMiddleware
from gaji.serve.runner import CancelToken, Cancelled, Question, QueueFull, Runner, run_question
from gaji.types import Trace

log = logging.getLogger("gaji.serve")
STATIC = Path(__file__).parent / "static"
HEARTBEAT_S = 10.0
_DONE = object()


@dataclass
class ServeConfig:
    api_key: str | None = None  # GAJI_API_KEY; None = no authentication
    cors_origins: list[str] = field(default_factory=list)  # empty = CORS off
    timeout_s: float = 300.0  # per question, queue wait included
    slots: int | None = None  # questions run at once; None = the backend's parallel slots
    queue_max: int = 8  # questions that may wait for a slot
    max_body_bytes: int = 64 * 1024
    max_upload_bytes: int = 8 * 1024 * 1024
    default_method: str = "oner"


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(message)
        self.status, self.message, self.headers, self.extra = status, message, headers, extra


def error_status(e: BaseException) -> int:
    """The HTTP status for an exception raised while serving a question."""
    if isinstance(e, UnknownIndex):
        return 404
    if isinstance(e, LLMError):
        return 502
    if isinstance(e, IndexError_):  # the server's index is missing or broken: not the client's fault
        return 500
    if isinstance(e, GajiError):  # ConfigError, InputError: bad options, question or data
        return 400
    return 500


def error_response(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": S.ErrorResponse} for c in (400, 401, 404, 500)}


def create_app(indexes: IndexSet, config: ServeConfig | None = None) -> FastAPI:
    cfg = config or ServeConfig()
    metrics = Metrics()
    slots = cfg.slots or indexes.gaji(None).backend.parallel_slots
    runner = Runner(slots, cfg.queue_max)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        runner.shutdown()

    app = FastAPI(title="gaji", version=__version__, docs_url=None, redoc_url=None, lifespan=lifespan,
                  description="Tree-of-question retrieval and multi-hop QA (Korean and English). "
                  "Send the API key as `Authorization: Bearer KEY` or `X-API-Key: KEY` when the server has one.")
    app.state.metrics, app.state.runner, app.state.indexes, app.state.config = metrics, runner, indexes, cfg

    # middleware: the last added runs first (metrics see every request, also refused ones)
    app.add_middleware(BodyLimitMiddleware, max_body=cfg.max_body_bytes, max_upload=cfg.max_upload_bytes)
    app.add_middleware(ApiKeyMiddleware, key=cfg.api_key)
    if cfg.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=cfg.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "X-API-Key", "Content-Type"])
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(MetricsMiddleware, metrics=metrics)

    # -- errors ------------------------------------------------------------------------------
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, e: ApiError) -> JSONResponse:
        return error_response(e.status, e.message, e.headers, **e.extra)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        return error_response(e.status_code, str(e.detail), getattr(e, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, e: RequestValidationError) -> JSONResponse:
        parts = []
        for err in e.errors()[:5]:
            if err.get("type") == "json_invalid":
                pos = err.get("loc", ("body", "?"))[-1]
                parts.append(f"the body is not valid JSON ({(err.get('ctx') or {}).get('error', 'decode error')} at character {pos})")
                continue
            loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
        return error_response(400, "bad request: " + "; ".join(parts))

    @app.exception_handler(GajiError)
    async def _gaji_error(_: Request, e: GajiError) -> JSONResponse:
        return error_response(error_status(e), scrub_text(str(e), None))

    @app.exception_handler(Exception)
    async def _internal_error(_: Request, e: Exception) -> JSONResponse:
        # the server logs the traceback (Starlette re-raises after this response); the client gets a message
        return error_response(500, f"internal error ({type(e).__name__}): {scrub_text(str(e), None)}")

    # -- the page ----------------------------------------------------------------------------
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    # -- info --------------------------------------------------------------------------------
    @app.get("/api/health", response_model=S.Health, tags=["info"])
    async def health() -> dict:
        """Liveness; needs no API key."""
        return {"status": "ok", "version": __version__}

    @app.get("/api/methods", response_model=S.MethodsResponse, responses=ERRORS, tags=["info"])
    async def methods() -> dict:
        """The registered methods with their options (name, type, default)."""
        out = []
        for e in METHODS.entries():
            opts = [{"name": n, "type": t, "default": _jsonable(d)} for n, t, d in e.obj.option_help()]
            out.append({"name": e.name, "help": e.help, "needs_retriever": getattr(e.obj, "needs_retriever", True),
                        "options": opts})
        return {"methods": out, "default": cfg.default_method, "retrievers": RETRIEVERS.names()}

    @app.get("/api/metrics", tags=["info"], responses=ERRORS)
    async def get_metrics() -> dict:
        """Requests, question latency p50/p95, tokens, errors, queue state."""
        return metrics.snapshot(runner.state())

    # -- indexes -----------------------------------------------------------------------------
    @app.get("/api/indexes", response_model=S.IndexesResponse, responses=ERRORS, tags=["indexes"])
    async def list_indexes() -> dict:
        return {"indexes": [{"name": n, "default": n == indexes.default, "status": "ok"} for n in indexes.names()]}

    @app.get("/api/indexes/{name}", response_model=S.IndexStatus, responses=ERRORS, tags=["indexes"])
    async def index_status(name: str) -> dict:
        indexes.resolve(name)
        return await asyncio.to_thread(indexes.status, name)

    @app.post("/api/indexes/{name}/documents", response_model=S.UploadResponse, tags=["indexes"],
              responses={**ERRORS, 413: {"model": S.ErrorResponse}})
    async def upload(name: str, request: Request) -> Any:
        """JSONL body, one `{"id", "text", "title"?, "metadata"?}` per line. All lines are checked
        first; any bad line rejects the upload (400 with `line` and `errors`)."""
        indexes.resolve(name)
        data = b"".join([chunk async for chunk in request.stream()])
        try:
            docs = parse_documents_jsonl(data)
        except UploadInvalid as e:
            return error_response(400, str(e), line=e.line, field=e.field, errors=e.errors)
        try:
            result = await asyncio.to_thread(indexes.add_documents, name, docs)
        except GajiError as e:
            raise ApiError(error_status(e), indexes.scrub(name, str(e))) from None
        return {"index": name, "added": len(docs), "chunks": result,
                "status": await asyncio.to_thread(indexes.status, name)}

    # -- asking ------------------------------------------------------------------------------
    def prepare(req: S.AskRequest) -> tuple[str | None, Question]:
        method = req.method or cfg.default_method
        if method not in METHODS:
            raise ApiError(404, f"unknown method {method!r}; known: {', '.join(METHODS.names())}")
        name = indexes.resolve(req.index)
        question = req.question.strip()
        if not question:
            raise ApiError(400, "empty question")
        indexes.gaji(name).make_method(method, req.options)  # bad options: 400 before queueing
        if req.retriever is not None and req.retriever not in RETRIEVERS:
            raise ApiError(400, f"unknown retriever {req.retriever!r}; known: {', '.join(RETRIEVERS.names())}")
        return name, Question(question, method, dict(req.options), req.retriever, req.lang)

    def submit(name: str | None, q: Question, token: CancelToken, on_event: Any = None, recorders: Any = None) -> cf.Future:
        base = indexes.gaji(name)

        def work() -> Trace:
            with indexes.lock(name).read():
                return run_question(base, q, token, on_event, recorders)

        try:
            return runner.submit(work, token)
        except QueueFull as e:
            metrics.record_ask(q.method, "rejected", 0.0, error=str(e))
            raise ApiError(503, str(e), headers={"Retry-After": "5"}) from None

    def finish(fut: cf.Future, name: str | None, q: Question, token: CancelToken, t0: float,
               prompts: bool) -> tuple[int, dict]:
        """(status, body) for a finished or timed-out run; records the outcome in the metrics."""
        ms = (time.perf_counter() - t0) * 1000
        if not fut.done():
            token.cancel("time limit")
            msg = f"time limit: no answer within {cfg.timeout_s:g} s (method {q.method})"
            metrics.record_ask(q.method, "timeout", ms, error=msg)
            return 504, {"error": msg}
        exc = fut.exception()
        if isinstance(exc, Cancelled):
            timeout = token.reason == "time limit"
            msg = f"time limit: no answer within {cfg.timeout_s:g} s" if timeout else f"cancelled: {token.reason}"
            metrics.record_ask(q.method, "timeout" if timeout else "error", ms, error=msg)
            return (504 if timeout else 503), {"error": msg}
        if exc is not None:
            status = error_status(exc)
            if status == 500:
                log.error("question failed", exc_info=exc)
                msg = f"internal error ({type(exc).__name__}): {exc}"
            else:
                msg = str(exc)
            msg = indexes.scrub(name, msg)
            metrics.record_ask(q.method, "bad_request" if status < 500 else "error", ms, error=msg)
            return status, {"error": msg}
        trace: Trace = fut.result()
        body = ask_body(trace, prompts)
        if trace.status != "ok":
            msg = indexes.scrub(name, f"the method failed: {trace.error}")
            metrics.record_ask(q.method, "failed", ms, trace, error=msg)
            return 502, {**body, "error": msg}
        metrics.record_ask(q.method, "ok", ms, trace)
        return 200, body

    @app.post("/api/ask", response_model=S.AskResponse, tags=["ask"],
              responses={**ERRORS, 502: {"model": S.ErrorResponse}, 503: {"model": S.ErrorResponse},
                         504: {"model": S.ErrorResponse}})
    async def ask(req: S.AskRequest) -> JSONResponse:
        """Answer one question; the body holds the answer, the cited passages and the whole trace."""
        t0 = time.perf_counter()
        name, q = prepare(req)
        token = CancelToken(cfg.timeout_s)
        fut = submit(name, q, token)
        await wait_done(fut, token.remaining())
        status, body = finish(fut, name, q, token, t0, req.include_prompts)
        return JSONResponse(body, status_code=status)

    @app.post("/api/ask/stream", tags=["ask"], responses={**ERRORS, 503: {"model": S.ErrorResponse}},
              response_class=StreamingResponse)
    async def ask_stream(req: S.AskRequest) -> StreamingResponse:
        """Server-sent events: `start`, then one `node` per node created or updated (a node without
        its children, with `child_ids` and the text of newly seen `passages`), then `final` (the
        /api/ask body) or `error` (`{"error", "status"}`). Comment lines keep the connection alive."""
        t0 = time.perf_counter()
        name, q = prepare(req)
        token = CancelToken(cfg.timeout_s)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        recorders: list = []

        def on_event(kind: str, node: dict) -> None:
            if not req.include_prompts:
                _drop_prompts(node)
            node["passages"] = recorders[0].take_new(node.get("passage_ids", [])) if recorders else {}
            _post(loop, queue, ("node", node))

        fut = submit(name, q, token, on_event, recorders)
        fut.add_done_callback(lambda _: _post(loop, queue, _DONE))

        async def events() -> AsyncIterator[str]:
            seq, done = 0, False
            try:
                yield sse("start", {"question": q.question, "method": q.method, "index": name}, seq)
                while True:
                    rem = token.remaining()
                    wait = HEARTBEAT_S if rem is None else min(HEARTBEAT_S, rem)
                    try:
                        item = await asyncio.wait_for(queue.get(), wait)
                    except asyncio.TimeoutError:
                        if token.remaining() != 0:
                            yield ": keep-alive\n\n"
                            continue
                        item = _DONE  # time is up: finish() reports 504
                    seq += 1
                    if item is not _DONE:
                        yield sse(item[0], item[1], seq)
                        continue
                    done = True
                    status, body = finish(fut, name, q, token, t0, req.include_prompts)
                    yield sse("final", body, seq) if status == 200 else sse("error", {**body, "status": status}, seq)
                    return
            finally:
                if not done:  # the client went away: stop the run at its next LLM call, and count it
                    token.cancel("client disconnected")
                    ms = (time.perf_counter() - t0) * 1000
                    metrics.record_ask(q.method, "disconnected", ms, error="client disconnected")

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return app


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


def sse(event: str, data: Any, seq: int) -> str:
    return f"id: {seq}\nevent: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def ask_body(trace: Trace, prompts: bool) -> dict[str, Any]:
    d = trace.to_dict()
    if not prompts:
        for node in _walk(d["root"]):
            _drop_prompts(node)
    cites = [{"id": p.id, "doc_id": p.doc_id, "title": p.title, "text": p.text}
             for p in (trace.passages.get(i) for i in trace.citations) if p is not None]
    return {"answer": trace.answer, "citations": cites, "status": trace.status, "error": trace.error,
            "usage": d["usage"], "trace": d}


def _walk(node: dict) -> Any:
    yield node
    for c in node.get("children", []):
        yield from _walk(c)


def _drop_prompts(node: dict) -> None:
    for c in node.get("calls", []):
        c["prompt"] = None


def _jsonable(v: Any) -> Any:
    try:
        json.dumps(v)
        return v
    except TypeError:
        return str(v)
