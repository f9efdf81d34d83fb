"""gaji.netcheck.unreachable: a bounded TCP connect says at once whether anything listens at an address."""
from __future__ import annotations

import socket
import time

from gaji.netcheck import unreachable
from gaji.testing import closed_port


def test_closed_port_is_refused_at_once():
    t0 = time.perf_counter()
    assert unreachable("127.0.0.1", closed_port()) == "connection refused"
    assert time.perf_counter() - t0 < 2


def test_listening_port_is_reachable():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        assert unreachable("127.0.0.1", srv.getsockname()[1]) is None
    finally:
        srv.close()


def test_unknown_host_says_so():
    assert unreachable("no-such-host.invalid", 80, timeout_s=2).startswith("unknown host")
