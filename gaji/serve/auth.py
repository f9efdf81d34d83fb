"""API-key authentication (ASGI middleware).

When a key is configured (`GAJI_API_KEY`), every API path needs it except `/api/health`; the static
web page itself is public (it holds no data) and sends the key the user types with each API call.
A client sends `Authorization: Bearer KEY` or `X-API-Key: KEY`. Keys are compared in constant time
(both sides hashed first, so not even the length leaks).
"""
from __future__ import annotations

import hashlib
import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

from gaji.serve.asgi import AddHeadersMiddleware, send_error

OPEN_PATHS = frozenset({"/api/health"})


def _digest(s: str) -> bytes:
    return hashlib.sha256(s.encode("utf-8")).digest()


def key_matches(given: str | None, key: str) -> bool:
    """Constant-time comparison of a presented key with the configured one."""
    return given is not None and hmac.compare_digest(_digest(given), _digest(key))


def presented_key(headers: dict[bytes, bytes]) -> str | None:
    """The key from `Authorization: Bearer …` or `X-API-Key: …` (None when neither is sent)."""
    auth = headers.get(b"authorization", b"").decode("latin-1").strip()
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    x = headers.get(b"x-api-key")
    return x.decode("latin-1").strip() if x is not None else None


def needs_key(path: str, method: str) -> bool:
    """API paths and the OpenAPI schema need the key; health, CORS preflights and the page do not."""
    if method == "OPTIONS" or path in OPEN_PATHS:
        return False
    return path.startswith("/api/") or path == "/api" or path.startswith("/openapi")


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, key: str | None):
        self.app = app
        self.key = key or None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.key is None or scope["type"] != "http" or not needs_key(scope["path"], scope["method"]):
            await self.app(scope, receive, send)
            return
        given = presented_key(dict(scope["headers"]))
        if key_matches(given, self.key):
            await self.app(scope, receive, send)
            return
        msg = "missing API key: send 'Authorization: Bearer KEY' or 'X-API-Key: KEY'" if given is None else "bad API key"
        await send_error(send, 401, msg, [(b"www-authenticate", b'Bearer realm="gaji"')])


CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class SecurityHeadersMiddleware(AddHeadersMiddleware):
    """Adds a strict Content-Security-Policy (no inline or third-party script: retrieved text can
    never run in the page), nosniff and no-referrer to every response."""

    def headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        return [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"no-referrer")]
