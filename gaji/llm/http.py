"""HTTP requests (urllib) whose whole exchange ends by a `Deadline`: connect, send, headers and body.

urllib's `timeout` is per socket operation, so a server that drips one byte at a time never trips it.
Here the connection's socket is wrapped so that every send and receive may wait only until the
request's deadline (and at most `per_op_s`); past it the read raises `socket.timeout`, which callers
report as "no complete answer within N s". Proxies from the environment still work for remote hosts
(the wrapping happens after urllib connected, through a tunnel if any); loopback goes direct.

    opener = deadline_opener(url)
    body = fetch(opener, urllib.request.Request(url, data=..., method="POST"), Deadline.after(30), per_op_s=120)
"""
from __future__ import annotations

import functools
import http.client
import io
import socket
import urllib.parse
import urllib.request
from typing import Any

from gaji.deadline import Deadline

READ_CHUNK = 1 << 16


class DeadlineSocket:
    """A connected socket whose every send and receive waits at most until `deadline` (and `per_op_s`)."""

    def __init__(self, sock: socket.socket, deadline: Deadline | None, per_op_s: float | None):
        self._sock = sock
        self._deadline = deadline
        self._per_op = per_op_s

    def _arm(self) -> None:
        limit = self._per_op
        if self._deadline is not None:
            rem = self._deadline.remaining()
            if rem <= 0:
                raise socket.timeout("deadline passed")
            limit = rem if limit is None else min(limit, rem)
        self._sock.settimeout(limit)

    def sendall(self, data: Any, *a: Any) -> None:
        self._arm()
        self._sock.sendall(data, *a)

    def send(self, data: Any, *a: Any) -> int:
        self._arm()
        return self._sock.send(data, *a)

    def recv_into(self, buf: Any, n: int = 0, *a: Any) -> int:
        self._arm()
        return self._sock.recv_into(buf, n, *a)

    def recv(self, n: int, *a: Any) -> bytes:
        self._arm()
        return self._sock.recv(n, *a)

    def makefile(self, mode: str = "r", buffering: int | None = None, **_: Any) -> io.BufferedIOBase:
        # http.client reads the status line, headers and body through this file: its reads come back here.
        # Like socket.makefile, the file holds a reference: urllib closes the connection's socket right after
        # the headers, and the real descriptor must stay open until the response body has been read.
        raw = socket.SocketIO(self, "rb")  # type: ignore[arg-type]
        self._sock._io_refs += 1  # type: ignore[attr-defined]
        return io.BufferedReader(raw, buffering or io.DEFAULT_BUFFER_SIZE)

    def _decref_socketios(self) -> None:  # SocketIO.close() calls it
        self._sock._decref_socketios()  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _DeadlineMixin:
    deadline: Deadline | None = None
    per_op_s: float | None = None

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self.sock = DeadlineSocket(self.sock, self.deadline, self.per_op_s)  # type: ignore[has-type]


class DeadlineHTTPConnection(_DeadlineMixin, http.client.HTTPConnection):
    def __init__(self, *a: Any, deadline: Deadline | None = None, per_op_s: float | None = None, **kw: Any):
        super().__init__(*a, **kw)
        self.deadline, self.per_op_s = deadline, per_op_s


class DeadlineHTTPSConnection(_DeadlineMixin, http.client.HTTPSConnection):
    def __init__(self, *a: Any, deadline: Deadline | None = None, per_op_s: float | None = None, **kw: Any):
        super().__init__(*a, **kw)
        self.deadline, self.per_op_s = deadline, per_op_s


def _limits(req: urllib.request.Request) -> dict[str, Any]:
    return {"deadline": getattr(req, "gaji_deadline", None), "per_op_s": getattr(req, "gaji_per_op_s", None)}


class DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(functools.partial(DeadlineHTTPConnection, **_limits(req)), req)


class DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(functools.partial(DeadlineHTTPSConnection, **_limits(req)), req,
                            context=getattr(self, "_context", None))


def is_loopback_url(url: str) -> bool:
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def deadline_opener(url: str) -> urllib.request.OpenerDirector:
    """An opener for `url` that honours per-request deadlines. Loopback servers are reached directly, never
    through an HTTP(S)_PROXY from the environment."""
    handlers: list[Any] = [DeadlineHTTPHandler(), DeadlineHTTPSHandler()]
    if is_loopback_url(url):
        handlers.insert(0, urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


def fetch(opener: urllib.request.OpenerDirector, req: urllib.request.Request, deadline: Deadline | None,
          per_op_s: float | None = None) -> bytes:
    """The response body of `req`, all of it read before `deadline` (socket.timeout / TimeoutError past it).
    HTTP errors raise urllib.error.HTTPError as usual."""
    req.gaji_deadline = deadline  # type: ignore[attr-defined]
    req.gaji_per_op_s = per_op_s  # type: ignore[attr-defined]
    limits = [x for x in (per_op_s, deadline.remaining() if deadline else None) if x is not None]
    if deadline is not None and deadline.expired:
        raise socket.timeout("deadline passed")
    with opener.open(req, timeout=min(limits) if limits else socket.getdefaulttimeout()) as r:
        parts = []
        while True:
            chunk = r.read(READ_CHUNK)
            if not chunk:
                break
            parts.append(chunk)
        return b"".join(parts)
