"""API-key authentication (ASGI middleware).

When a key is configured (`GAJI_API_KEY`), every API path needs it except `/api/health`; the static
web page itself is public (it holds no data) and sends the key the user types with each API call.
A client sends `Authorization: Bearer KEY` or `X-API-Key: KEY` (the first is how an OpenAI client
sends its key to `/v1/…`). Keys are compared in constant time (both sides hashed first, so not even
the length leaks).

Named keys (`gaji keys add NAME`, gaji/history/keys.py) work beside it, one per client: a request
with one is let in as client NAME; `GAJI_API_KEY` is client "default". Once any named key exists,
the server asks for a key even without `GAJI_API_KEY`. A revoked key is refused from the next
request on. The client's name goes to the request's state (`request.state.client`) for the history.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from gaji.serve.asgi import AddHeadersMiddleware, send_error

log = logging.getLogger("gaji.serve")
DEFAULT_CLIENT = "default"  # the client name of GAJI_API_KEY

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
    return (path.startswith("/api/") or path == "/api" or path.startswith("/openapi")
            or path.startswith("/v1/") or path == "/v1")


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, key: str | None, keys: Any = None):
        """`key`: GAJI_API_KEY (None: none); `keys`: the named keys (a gaji.history.keys.KeyStore, or None)."""
        self.app = app
        self.key = key or None
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not needs_key(scope["path"], scope["method"]):
            await self.app(scope, receive, send)
            return
        if self.key is None and self.keys is None:
            await self.app(scope, receive, send)
            return
        given = presented_key(dict(scope["headers"]))
        try:
            client, required = await self._client(given)
        except Exception as e:  # noqa: BLE001 - the key database is down: refuse, say so, log it
            log.error("checking an API key failed: %s", e)
            await _refuse(send, scope["path"], 503, "cannot check the API key now: the key database is unavailable")
            return
        if client is not None or not required:
            scope.setdefault("state", {})["client"] = client
            await self.app(scope, receive, send)
            return
        msg = "missing API key: send 'Authorization: Bearer KEY' or 'X-API-Key: KEY'" if given is None else "bad API key"
        await _refuse(send, scope["path"], 401, msg)

    async def _client(self, given: str | None) -> tuple[str | None, bool]:
        """(the client's name or None, whether a key is required at all)."""
        if self.key is not None and key_matches(given, self.key):
            return DEFAULT_CLIENT, True
        if self.keys is not None:
            if given:
                name = await asyncio.to_thread(self.keys.check, given)
                if name is not None:
                    return name, True
            if self.key is None:
                return None, await asyncio.to_thread(self.keys.has_active)
        return None, True


async def _refuse(send: Send, path: str, status: int, msg: str) -> None:
    headers = [(b"www-authenticate", b'Bearer realm="gaji"')] if status == 401 else []
    await send_error(send, path, status, msg, headers)


CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class SecurityHeadersMiddleware(AddHeadersMiddleware):
    """Adds a strict Content-Security-Policy (no inline or third-party script: retrieved text can
    never run in the page), nosniff and no-referrer to every response."""

    def headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        return [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"no-referrer")]
