"""Small ASGI pieces the middleware share: an `{"error"}` response sent before any route runs, and a
middleware that adds headers to every response."""
from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send


async def send_error(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer `status` with `{"error": message}` (JSON) straight from a middleware."""
    body = json.dumps({"error": message}).encode("utf-8")
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
