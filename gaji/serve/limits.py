"""Request-body size limits (ASGI middleware).

Two limits: a small one for every request (a question is a few KiB) and a larger one for document
uploads (`POST /api/indexes/{name}/documents`). A declared `Content-Length` over the limit is
refused before the body is read; a chunked body is counted as it arrives and refused when it
crosses the limit. Either way the client gets 413 with an error body (OpenAI's shape on /v1).
"""
from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gaji.serve.asgi import send_error


class BodyTooLarge(HTTPException):
    """Raised from `receive` when a streamed body crosses the limit (rendered as 413)."""

    def __init__(self, limit: int):
        super().__init__(413, f"request body too large: the limit is {human_bytes(limit)}")


def human_bytes(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def is_upload(path: str, method: str) -> bool:
    return method == "POST" and path.startswith("/api/indexes/") and path.endswith("/documents")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body: int, max_upload: int):
        self.app = app
        self.max_body = max_body
        self.max_upload = max_upload

    def limit_for(self, scope: Scope) -> int:
        return self.max_upload if is_upload(scope["path"], scope["method"]) else self.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await send_error(send, scope["path"], 413, BodyTooLarge(limit).detail, [(b"connection", b"close")])
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return msg

        await self.app(scope, counting_receive, send)

