"""The HTTP API and the web page: `create_app(indexes, config) -> FastAPI`.

    POST /api/ask                      question -> answer, citations, trace
    POST /api/ask/stream               the same as server-sent events: start, node…, final | error
    GET  /api/methods                  methods with their options
    GET  /api/indexes                  index names;  GET /api/indexes/{name}: chunks, config
    POST /api/indexes/{name}/documents JSONL upload (size-limited, validated per line)
    POST /api/indexes/{name}/files     document files (PDF, HWP, DOCX …) in base64 JSON, read per file
    GET  /api/indexes/{name}/documents its files: format, pages/rows, chunks, refused ones and why
    POST /api/indexes/{name}/sync      read a file again from the folder it came from
    GET  /api/indexes/{name}/passage   a cited passage in its document, with the signed links of its view and original
    GET  /passage/{token}, /original/{token}   the one passage view, a document's original file (signed links)
    GET  /api/traces/{id}, /api/conversations[/{id}];  POST /api/feedback   (the history)
    POST /v1/chat/completions, GET /v1/models    the OpenAI-compatible API (docs/serve.md)
    GET  /api/health, /api/metrics, /openapi.json;  GET / the web page

Errors are `{"error": message}` (on /v1/…, OpenAI's `{"error": {"message", "type", …}}`): 400 bad
input, 401 API key, 403 cross-origin write, 404 unknown index/method/model, 413 too large, 415 not
JSON/NDJSON, 421 unknown Host, 503 queue full, 504 time limit, 502 the LLM failed, 500 anything else
(a generic message and a request id, never a traceback).

The routes live in routes/ (one router per concern), the ask pipeline in service.py (`AskService`),
the error mapping in errors.py; this module puts them together with the middleware.
"""
from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator

from fastapi import Depends, FastAPI

from gaji import __version__
from gaji.config import DEFAULT_METHOD, default_home
from gaji.corpus.formats.limits import ReadLimits
from gaji.history.keys import KeyStore
from gaji.history.outbox import DurableHistory, Outbox, outbox_path
from gaji.history.store import HistoryStore
from gaji.serve.auth import ApiKeyMiddleware, SecurityHeadersMiddleware
from gaji.serve.errors import RequestIdMiddleware, add_error_handlers
from gaji.serve.guard import LOOPBACK_NAMES, RequestGuardMiddleware
from gaji.serve.indexes import IndexSet
from gaji.serve.limits import BodyLimitMiddleware
from gaji.serve.metrics import Metrics, MetricsMiddleware
from gaji.serve.passage_links import secret_for
from gaji.serve.routes import ask, chat, history as history_routes, indexes as index_routes, info, page, passage
from gaji.serve.scopes import enforce
from gaji.serve.service import AskService


@dataclass
class ServeConfig:
    api_key: str | None = None  # GAJI_API_KEY; None = no authentication
    cors_origins: list[str] = field(default_factory=list)  # empty = CORS off
    # Host names the server answers as (guard.py): the address it listens on (0.0.0.0 / :: = any IP
    # literal), loopback names and --allowed-host entries; "*" turns the check off
    allowed_hosts: list[str] = field(default_factory=lambda: list(LOOPBACK_NAMES))
    timeout_s: float = 300.0  # per question, queue wait included
    slots: int | None = None  # questions run at once; None = the backend's parallel slots
    queue_max: int = 8  # questions that may wait for a slot
    max_body_bytes: int = 64 * 1024
    max_upload_bytes: int = 8 * 1024 * 1024
    default_method: str = DEFAULT_METHOD
    # questions, feedback and named API keys (gaji/history); None: nothing is stored, only GAJI_API_KEY
    history: HistoryStore | None = None
    # where answers wait while the history database is down (default: beside a SQLite history, else in
    # $GAJI_HOME, one file per database; made only when first needed)
    history_outbox: Path | None = None
    history_retry_s: float = 1.0  # how often the outbox is replayed while it holds answers
    keys_refresh_s: float = 2.0  # a named key added (or the last revoked) applies within this
    chat_model: str = ""  # what the model name "gaji" means on /v1 ("" = gaji-<default_method>)
    # bounds on reading one uploaded file (size, expansion, rows, nesting, time, memory); None = the settings'
    read_limits: ReadLimits | None = None


def create_app(indexes: IndexSet, config: ServeConfig | None = None) -> FastAPI:
    cfg = config or ServeConfig()
    metrics = Metrics()
    durable = None
    if cfg.history is not None:
        durable = DurableHistory(cfg.history, Outbox(cfg.history_outbox or default_outbox(cfg.history)),
                                 retry_s=cfg.history_retry_s)
    service = AskService(indexes, metrics, timeout_s=cfg.timeout_s, default_method=cfg.default_method,
                         slots=cfg.slots, queue_max=cfg.queue_max, history=cfg.history, durable=durable)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if durable is not None:
            durable.start()
        yield
        service.shutdown()
        if durable is not None:
            durable.stop()

    app = FastAPI(title="gaji", version=__version__, docs_url=None, redoc_url=None, lifespan=lifespan,
                  dependencies=[Depends(enforce)],  # scoped keys: every route's rule (gaji/serve/scopes.py)
                  description="Tree-of-question retrieval and multi-hop QA (Korean and English). "
                  "Send the API key as `Authorization: Bearer KEY` or `X-API-Key: KEY` when the server has one.")
    app.state.metrics, app.state.runner, app.state.indexes, app.state.config = metrics, service.runner, indexes, cfg
    app.state.ask = service
    app.state.link_secret = secret_for(cfg.api_key)  # signs the passage links citations carry

    # middleware: the last added runs first (metrics see every request, also refused ones; the guard
    # refuses foreign hosts, cross-origin writes and non-JSON bodies before CORS, the key or any route)
    app.add_middleware(BodyLimitMiddleware, max_body=cfg.max_body_bytes, max_upload=cfg.max_upload_bytes)
    app.state.keys = KeyStore(cfg.history.db) if cfg.history is not None else None  # the named keys
    app.add_middleware(ApiKeyMiddleware, key=cfg.api_key, keys=app.state.keys, keys_refresh_s=cfg.keys_refresh_s)
    if cfg.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=cfg.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "X-API-Key", "Content-Type"])
    app.add_middleware(RequestGuardMiddleware, allowed_hosts=cfg.allowed_hosts, cors_origins=cfg.cors_origins)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(RequestIdMiddleware)

    add_error_handlers(app)
    page.mount_static(app)
    for router in (page.router, info.router, index_routes.router, ask.router, history_routes.router, chat.router,
                   passage.router):
        app.include_router(router)
    return app


def default_outbox(history: HistoryStore) -> Path:
    db = history.db
    path = getattr(db, "path", None)
    if path is not None:  # SQLite: the outbox lives beside it
        return Path(path).with_name(Path(path).name + ".outbox")
    return outbox_path(default_home(), db.describe())
