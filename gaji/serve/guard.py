"""What a web page the operator happens to visit can make the server do: nothing (ASGI middleware).

A keyless server on loopback is reachable from every page the operator's browser opens. Three checks
close the ways in, before any route runs:

    Host          must name an address the server answers as: the one it listens on, the loopback
                  names, and `--allowed-host` entries (a DNS-rebinding page sends its own name: 421).
                  Listening on 0.0.0.0 / :: accepts any IP literal (a rebinding page cannot send one).
    Origin        a request that changes state (anything but GET/HEAD/OPTIONS) sent by a browser from
                  another origin is refused (403) unless `--cors-origin` allows that origin. Clients
                  that are not browsers send no Origin and pass.
    Content-Type  a write to /api/ or /v1/ must be JSON or NDJSON (415): the three types a cross-site form or a
                  no-cors fetch can send without a preflight (text/plain, form encodings) never reach
                  a route, nor does a body without a type. A DELETE (no body) is exempt: no page can
                  send one cross-site without a CORS preflight, and the Origin check applies to it.
"""
from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from gaji.serve.asgi import drain_request, send_error

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON_TYPES = frozenset({"application/json", "application/x-ndjson", "application/ndjson", "application/jsonl",
                        "application/x-jsonlines", "application/jsonlines", "application/json-seq"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def split_host(value: str) -> tuple[str, int | None] | None:
    """`name[:port]` or `[v6]:port` -> (lower-cased name, port or None); None when malformed."""
    value = value.strip()
    if not value:
        return None
    try:
        parts = urllib.parse.urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if not host or parts.username is not None or parts.path or parts.query or parts.fragment:
        return None
    if not (_HOST_NAME.fullmatch(host) or _is_ip(host)):
        return None
    return host, port


@dataclass(frozen=True)
class HostPolicy:
    """The names a request's Host may carry. `any_ip`: the server listens on every address."""

    names: frozenset[str]
    any_ip: bool = False
    any_host: bool = False

    @classmethod
    def build(cls, allowed: list[str] | tuple[str, ...]) -> "HostPolicy":
        names, any_ip, any_host = set(), False, False
        for a in allowed:
            a = a.strip().lower().strip("[]").rstrip(".")
            if a == "*":
                any_host = True
            elif a in WILDCARD_BINDS:
                any_ip = True
                names.update(LOOPBACK_NAMES)
            elif a:
                names.add(a)
        return cls(frozenset(names), any_ip, any_host)

    def allows(self, host: str) -> bool:
        return self.any_host or host in self.names or (self.any_ip and _is_ip(host))


def media_type(headers: dict[bytes, bytes]) -> str:
    return headers.get(b"content-type", b"").decode("latin-1").split(";", 1)[0].strip().lower()


def is_json_type(mt: str) -> bool:
    return mt in JSON_TYPES or (mt.startswith("application/") and mt.endswith("+json"))


def same_origin(origin: str, host_header: str) -> bool:
    """Whether `Origin` names this server as the request reached it (its Host), under the origin's scheme:
    host names equal and ports equal once the scheme's default port fills a missing one."""
    o = urllib.parse.urlsplit(origin)
    h = split_host(host_header)
    if not o.scheme or not o.hostname or h is None:
        return False
    default = DEFAULT_PORTS.get(o.scheme.lower())
    try:
        o_port = o.port or default
    except ValueError:
        return False
    return o.hostname.lower().rstrip(".") == h[0] and o_port == (h[1] or default)


class RequestGuardMiddleware:
    def __init__(self, app: ASGIApp, allowed_hosts: list[str] | tuple[str, ...] = LOOPBACK_NAMES,
                 cors_origins: list[str] | tuple[str, ...] = ()):
        self.app = app
        self.hosts = HostPolicy.build(allowed_hosts)
        self.cors = frozenset(o.rstrip("/").lower() for o in cors_origins)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, message) when the request must not reach a route, else None."""
        headers = dict(scope["headers"])
        raw_host = headers.get(b"host", b"").decode("latin-1")
        host = split_host(raw_host)
        if host is None:
            return 400, "bad request: missing or malformed Host header"
        if not self.hosts.allows(host[0]):
            return 421, (f"this server does not answer as {host[0]!r} (a page on another site may be trying to reach "
                         "it); start it with --allowed-host NAME to allow that name")
        method = scope["method"]
        if method in SAFE_METHODS:
            return None
        origin = headers.get(b"origin")
        if origin is not None:
            o = origin.decode("latin-1").strip()
            if not same_origin(o, raw_host) and o.rstrip("/").lower() not in self.cors:
                return 403, (f"cross-origin {method} from {o[:100]!r} refused: this server takes changes only from "
                             "its own page (allow an origin with --cors-origin)")
        if scope["path"].startswith(("/api/", "/v1/")) and method != "DELETE" and not is_json_type(media_type(headers)):
            given = media_type(headers) or "none"
            return 415, (f"unsupported content type {given!r}: send application/json (questions) or "
                         "application/x-ndjson (document uploads)")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        await drain_request(receive)
        await send_error(send, scope["path"], status, message, [(b"connection", b"close")])
