"""Request-body size limits (ASGI middleware).

Two limits: a small one for every request (a question is a few KiB) and a larger one for document
uploads (`POST /api/indexes/{name}/documents`). File uploads (`POST /api/indexes/{name}/files`) carry
their files in base64, a third larger than the files: their body may be that much larger (plus room
for the JSON around the files), and the route checks the decoded files against the upload limit
itself (gaji.serve.uploads). A declared `Content-Length` over the limit is
refused before the body is read; a chunked body is counted as it arrives and refused when it
crosses the limit. Either way the client gets 413 with an error body (OpenAI's shape on /v1).
"""
from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gaji.serve.asgi import send_error


class BodyTooLarge(HTTPException):
    """Raised from `receive` when a streamed body crosses the limit (rendered as 413)."""

    def __init__(self, limit: int, files: int | None = None):
        what = f"the limit is {human_bytes(limit)}"
        if files is not None:  # say it in the sizes of the files the user picked, not of their base64
            what = f"files may be {human_bytes(files)} together per request"
        super().__init__(413, f"request body too large: {what}")


def human_bytes(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


FILES_JSON_ROOM = 256 * 1024  # names and JSON punctuation of up to a few hundred files


def is_upload(path: str, method: str) -> bool:
    return method == "POST" and path.startswith("/api/indexes/") and path.endswith("/documents")


def is_file_upload(path: str, method: str) -> bool:
    return method == "POST" and path.startswith("/api/indexes/") and path.endswith("/files")


def base64_size(n: int) -> int:
    """The length of `n` bytes in base64."""
    return 4 * ((n + 2) // 3)


def files_body_limit(max_upload: int) -> int:
    """The body limit of a file upload whose files may be `max_upload` bytes together, decoded."""
    return base64_size(max_upload) + FILES_JSON_ROOM


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body: int, max_upload: int):
        self.app = app
        self.max_body = max_body
        self.max_upload = max_upload

    def limit_for(self, scope: Scope) -> int:
        if is_file_upload(scope["path"], scope["method"]):
            return files_body_limit(self.max_upload)
        return self.max_upload if is_upload(scope["path"], scope["method"]) else self.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        files = self.max_upload if is_file_upload(scope["path"], scope["method"]) else None
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await send_error(send, scope["path"], 413, BodyTooLarge(limit, files).detail, [(b"connection", b"close")])
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit, files)
            return msg

        await self.app(scope, counting_receive, send)
