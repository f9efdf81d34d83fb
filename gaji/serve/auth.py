"""API-key authentication (ASGI middleware).

When a key is configured (`GAJI_API_KEY`), every API path needs it except `/api/health`; the static
web page itself is public (it holds no data) and sends the key the user types with each API call.
A client sends `Authorization: Bearer KEY` or `X-API-Key: KEY` (the first is how an OpenAI client
sends its key to `/v1/…`). Keys are compared in constant time (both sides hashed first, so not even
the length leaks).

Named keys (`gaji keys add NAME`, gaji/history/keys.py) work beside it, one per client: a request
with one is let in as client NAME; `GAJI_API_KEY` is client "default". Once any named key exists,
the server asks for a key even without `GAJI_API_KEY` (noticed within KEYS_REFRESH_S: whether keys
exist is remembered, so a server without keys never waits on the key database). A revoked key is
refused from the next request on. The client's name goes to the request's state
(`request.state.client`) for the history, its scopes to `request.state.access` (None: full access;
gaji/serve/scopes.py enforces them); a key with a rate limit gets 429 beyond it. When a key must be
checked and the key database is down, the request is refused with 503 (never let in unchecked), and
answered again as soon as the database is back.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import threading
import time
from collections import deque
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from gaji.serve.asgi import AddHeadersMiddleware, drain_request, send_error

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


KEYS_REFRESH_S = 2.0  # how stale the "are there named keys?" answer may be (a new key applies within this)


class KeyPresence:
    """Whether any named key exists, as last seen. Requests read the remembered answer and never wait
    on the database for it; a background thread refreshes it once it is older than `refresh_s`. So a
    server without keys keeps answering while the key database is down, and a key added (or the last
    one revoked) applies within `refresh_s`. Never seen (the database was down from the start): keys
    are assumed to exist, so the server fails closed."""

    def __init__(self, keys: Any, refresh_s: float = KEYS_REFRESH_S):
        self.keys, self.refresh_s = keys, refresh_s
        self.known: bool | None = None
        self.checked_at = 0.0
        self._refreshing = threading.Lock()
        self._refresh()

    def _refresh(self) -> None:
        try:
            self.known = bool(self.keys.has_active())
        except Exception as e:  # noqa: BLE001 - the database is down: keep the last answer
            log.warning("cannot check for named API keys: %s", e)
        self.checked_at = time.monotonic()

    def _refresh_in_background(self) -> None:
        if not self._refreshing.acquire(blocking=False):
            return  # one refresh at a time

        def work() -> None:
            try:
                self._refresh()
            finally:
                self._refreshing.release()

        threading.Thread(target=work, name="gaji-key-presence", daemon=True).start()

    def any(self) -> bool:
        if time.monotonic() - self.checked_at >= self.refresh_s:
            self._refresh_in_background()
        return self.known is not False


class RateLimiter:
    """Requests per minute per key, over a sliding 60 s window (in this process)."""

    def __init__(self) -> None:
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait_s(self, key_id: str, per_minute: int) -> float:
        """0 when the request may go now (and it is counted), else the seconds until it may."""
        now = time.monotonic()
        with self._lock:
            q = self._seen.setdefault(key_id, deque())
            while q and now - q[0] >= 60.0:
                q.popleft()
            if len(q) >= per_minute:
                return max(0.001, 60.0 - (now - q[0]))
            q.append(now)
            return 0.0


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, key: str | None, keys: Any = None, keys_refresh_s: float = KEYS_REFRESH_S):
        """`key`: GAJI_API_KEY (None: none); `keys`: the named keys (a gaji.history.keys.KeyStore, or None)."""
        self.app = app
        self.key = key or None
        self.keys = keys
        self.presence = KeyPresence(keys, keys_refresh_s) if keys is not None and self.key is None else None
        self.limiter = RateLimiter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not needs_key(scope["path"], scope["method"]):
            await self.app(scope, receive, send)
            return
        if self.key is None and (self.keys is None or not self.presence.any()):  # authentication is off
            await self.app(scope, receive, send)
            return
        given = presented_key(dict(scope["headers"]))
        state = scope.setdefault("state", {})
        if self.key is not None and key_matches(given, self.key):
            state["client"], state["access"] = DEFAULT_CLIENT, None
            await self.app(scope, receive, send)
            return
        info = None
        if given and self.keys is not None:
            try:
                info = await asyncio.to_thread(self.keys.verify, given)
            except Exception as e:  # noqa: BLE001 - the key database is down: refuse (fail closed), say so
                log.error("checking an API key failed: %s", e)
                await _refuse(receive, send, scope["path"], 503, "cannot check the API key now: the key database is "
                              "unavailable; retry shortly", [(b"retry-after", b"5")])
                return
        if info is None:
            msg = ("missing API key: send 'Authorization: Bearer KEY' or 'X-API-Key: KEY'" if given is None
                   else "bad API key")
            await _refuse(receive, send, scope["path"], 401, msg)
            return
        if info.rate_per_min:
            wait = self.limiter.wait_s(info.id, info.rate_per_min)
            if wait:
                await _refuse(receive, send, scope["path"], 429, f"rate limit: key {info.name!r} may make "
                              f"{info.rate_per_min} request(s) a minute; retry in {math.ceil(wait)} s",
                              [(b"retry-after", str(math.ceil(wait)).encode())])
                return
        state["client"], state["access"] = info.name, (None if info.scopes.full else info.scopes)
        await self.app(scope, receive, send)


async def _refuse(receive: Receive, send: Send, path: str, status: int, msg: str,
                  headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await drain_request(receive)
    headers = list(headers or []) + ([(b"www-authenticate", b'Bearer realm="gaji"')] if status == 401 else [])
    await send_error(send, path, status, msg, headers)


ORIGINAL_CSP = "default-src 'none'; object-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class SecurityHeadersMiddleware(AddHeadersMiddleware):
    """Adds a strict Content-Security-Policy (no inline or third-party script: retrieved text can
    never run in the page), nosniff and no-referrer to every response. An original file (/original/…) gets
    a policy that runs nothing at all but lets the browser's PDF viewer show it."""

    def headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        csp = ORIGINAL_CSP if scope.get("path", "").startswith("/original/") else CSP
        return [(b"content-security-policy", csp.encode()), (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"no-referrer")]
