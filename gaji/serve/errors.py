"""Errors as the HTTP API sends them: always `{"error": message}` with a status, never a traceback.

    400 bad input (also a body that is not valid JSON or does not fit the schema, and a bad option or
        retriever the run itself found)
    401 API key (auth.py)   403 cross-origin write   404 unknown index/method   413 too large (limits.py)
    415 not JSON/NDJSON   421 a Host this server does not answer as (guard.py)
    500 anything else (the server's own index or code): a generic message and a request id; the
        server log has the exception and traceback under that id, the client never sees them
    502 the LLM failed   503 queue full or cancelled   504 time limit

Every response carries `X-Request-ID` (RequestIdMiddleware).

On the OpenAI-compatible paths (/v1/…) the same errors come in OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`, which OpenAI clients read.
"""
from __future__ import annotations

import contextvars
import logging
import secrets
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from gaji.errors import GajiError, IndexUnusableError, LLMError
from gaji.messages import message_of
from gaji.serve.asgi import AddHeadersMiddleware, error_json, is_openai_path, openai_error
from gaji.serve.indexes import UnknownIndex, scrub, scrub_text
from gaji.serve.schemas import ErrorResponse

log = logging.getLogger("gaji.serve")
_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("gaji_request_id", default="-")


def current_request_id() -> str:
    return _request_id.get()


class RequestIdMiddleware(AddHeadersMiddleware):
    """Gives every request an id: in `request.state.request_id`, the `X-Request-ID` response header and
    the server log lines about it (a 500's body names it, so a user's report finds the traceback)."""

    def headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        rid = secrets.token_hex(6)
        scope.setdefault("state", {})["request_id"] = rid
        _request_id.set(rid)
        return [(b"x-request-id", rid.encode())]


def internal_error(exc: BaseException | str, request_id: str | None = None) -> dict[str, str]:
    """The body of a 500: a message and the request id; the exception itself goes to the server log only."""
    rid = request_id or current_request_id()
    if isinstance(exc, BaseException):
        log.error("request %s failed: %s: %s", rid, type(exc).__name__, exc,
                  exc_info=(type(exc), exc, exc.__traceback__))
    else:
        log.error("request %s failed: %s", rid, exc)
    return {"error": f"internal error: the server could not complete this request (request id {rid}; "
                     "the server log has the details)", "request_id": rid}


# the error responses most routes document in /openapi.json
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorResponse} for c in (400, 401, 404, 500)}


class ApiError(Exception):
    """A request refused with `status`; `extra` fields join `error` in the body."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(message)
        self.status, self.message, self.headers, self.extra = status, message, headers, extra


def error_status(e: BaseException) -> int:
    """The HTTP status for an exception raised while serving a question."""
    if isinstance(e, UnknownIndex):
        return 404
    if isinstance(e, LLMError):
        return 502
    if isinstance(e, IndexUnusableError):  # the server's index is missing or broken: not the client's fault
        return 500
    if isinstance(e, GajiError):  # ConfigError, InputError: bad options, question or data
        return 400
    return 500


def error_response(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def _respond(request: Request, status: int, message: str, headers: dict[str, str] | None = None,
             **extra: Any) -> JSONResponse:
    return JSONResponse(error_json(request.url.path, status, message, **extra), status_code=status, headers=headers)


def add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, e: ApiError) -> JSONResponse:
        return _respond(request, e.status, e.message, e.headers, **e.extra)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, e: StarletteHTTPException) -> JSONResponse:
        return _respond(request, e.status_code, str(e.detail), getattr(e, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, e: RequestValidationError) -> JSONResponse:
        return _respond(request, 400, "bad request: " + validation_message(e))

    @app.exception_handler(GajiError)
    async def _gaji_error(request: Request, e: GajiError) -> JSONResponse:
        status = error_status(e)
        if status == 500:
            return _internal(request, e)
        m = message_of(e)  # a table message too, for a page that shows it in its own language
        return _respond(request, status, scrub_text(str(e), None), **({"msg": scrub(m.to_dict(), None)} if m else {}))

    @app.exception_handler(Exception)
    async def _internal_error(request: Request, e: Exception) -> JSONResponse:
        # the client gets a message and the request id; the log gets the exception under that id
        return _internal(request, e)


def _internal(request: Request, e: BaseException) -> JSONResponse:
    body = internal_error(e, _rid(request))
    if is_openai_path(request.url.path):
        return JSONResponse(openai_error(500, body["error"]), status_code=500)
    return JSONResponse(body, status_code=500)


def _rid(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def validation_message(e: RequestValidationError) -> str:
    """The first five problems of a request body, each naming its field."""
    parts = []
    for err in e.errors()[:5]:
        if err.get("type") == "json_invalid":
            pos = err.get("loc", ("body", "?"))[-1]
            parts.append(f"the body is not valid JSON ({(err.get('ctx') or {}).get('error', 'decode error')} at character {pos})")
            continue
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts)
