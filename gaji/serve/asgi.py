"""Small ASGI pieces the middleware share: an error response sent before any route runs (in the shape
its path's clients read), and a middleware that adds headers to every response."""
from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

# OpenAI's error `type` and `code` per status: the openai client picks its exception class by status and
# exposes these two fields (e.g. `openai.AuthenticationError(...).code == "invalid_api_key"`)
_OPENAI_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                 404: "not_found_error", 405: "invalid_request_error", 413: "invalid_request_error",
                 415: "invalid_request_error", 421: "invalid_request_error", 422: "invalid_request_error",
                 429: "rate_limit_error"}
_OPENAI_CODES = {401: "invalid_api_key", 403: "cross_origin_refused", 404: "not_found", 405: "method_not_allowed",
                 413: "request_too_large", 415: "unsupported_media_type", 421: "misdirected_request",
                 429: "rate_limit_exceeded", 500: "internal_error", 502: "upstream_error", 503: "server_busy",
                 504: "timeout"}


def is_openai_path(path: str) -> bool:
    """The OpenAI-compatible paths, whose error bodies follow OpenAI's shape."""
    return path == "/v1" or path.startswith("/v1/")


def openai_error(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error body `{"error": {"message", "type", "param", "code"}}`, which OpenAI clients read."""
    return {"error": {"message": message, "type": _OPENAI_TYPES.get(status, "server_error"), "param": param,
                      "code": _OPENAI_CODES.get(status)}}


def error_json(path: str, status: int, message: str, **extra: Any) -> dict[str, Any]:
    """The body of an error on `path`: OpenAI's shape on /v1, else `{"error": message, **extra}`."""
    if is_openai_path(path):
        param = extra.get("param")
        return openai_error(status, message, param if isinstance(param, str) else None)
    return {"error": message, **extra}


async def drain_request(receive: Receive, limit: int = 64 * 1024, timeout_s: float = 1.0) -> None:
    """Read and drop a refused request's body (at most `limit` bytes, `timeout_s` seconds) before answering.

    A server that answers and closes while the client is still sending leaves unread bytes in its socket; the
    kernel then resets the connection, and the client may lose the answer and see only "connection reset". A
    small body is read so the refusal arrives; a large or slow one is left, since closing early is the point."""
    loop = asyncio.get_running_loop()
    end, seen = loop.time() + timeout_s, 0
    while seen <= limit:
        left = end - loop.time()
        if left <= 0:
            return
        try:
            msg = await asyncio.wait_for(receive(), left)
        except asyncio.TimeoutError:
            return
        if msg["type"] != "http.request":
            return
        seen += len(msg.get("body", b""))
        if not msg.get("more_body", False):
            return


async def send_error(send: Send, path: str, status: int, message: str,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer `status` with the error body for `path` (JSON) straight from a middleware."""
    body = json.dumps(error_json(path, status, message), ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class AddHeadersMiddleware:
    """Adds `headers(scope)` to every HTTP response (subclasses say which)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    def headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:  # pragma: no cover - interface
        raise NotImplementedError

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers(scope)

        async def send_with_headers(msg: dict) -> None:
            if msg["type"] == "http.response.start":
                msg["headers"] = [*msg.get("headers", []), *extra]
            await send(msg)

        await self.app(scope, receive, send_with_headers)
