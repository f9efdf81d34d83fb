"""Errors as the HTTP API sends them: always `{"error": message}` with a status, never a traceback.

    400 bad input (also a body that is not valid JSON or does not fit the schema)
    401 API key (auth.py)   404 unknown index/method   413 too large (limits.py)
    500 anything else (the server's own index or code)   502 the LLM failed
    503 queue full or cancelled   504 time limit

On the OpenAI-compatible paths (/v1/…) the same errors come in OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`, which OpenAI clients read.
"""
from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from gaji.errors import GajiError, IndexError_, LLMError
from gaji.serve.auth import openai_error
from gaji.serve.indexes import UnknownIndex, scrub_text
from gaji.serve.schemas import ErrorResponse

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
    if isinstance(e, IndexError_):  # the server's index is missing or broken: not the client's fault
        return 500
    if isinstance(e, GajiError):  # ConfigError, InputError: bad options, question or data
        return 400
    return 500


def error_response(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def _respond(request: Request, status: int, message: str, headers: dict[str, str] | None = None,
             **extra: Any) -> JSONResponse:
    if request.url.path.startswith("/v1/"):
        return JSONResponse(openai_error(status, message), status_code=status, headers=headers)
    return error_response(status, message, headers, **extra)


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
        return _respond(request, error_status(e), scrub_text(str(e), None))

    @app.exception_handler(Exception)
    async def _internal_error(request: Request, e: Exception) -> JSONResponse:
        # the server logs the traceback (Starlette re-raises after this response); the client gets a message
        return _respond(request, 500, f"internal error ({type(e).__name__}): {scrub_text(str(e), None)}")


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
