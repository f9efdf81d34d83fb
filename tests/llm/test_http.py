"""gaji.llm.http: urllib requests that end by a total deadline, bodies of any size read whole."""
from __future__ import annotations

import socket
import time
import urllib.request

import pytest

from gaji.deadline import Deadline
from gaji.llm.http import deadline_opener, fetch, is_loopback_url


def test_a_large_answer_is_read_whole_within_the_deadline(fake_openai):
    big = b"x" * (3 * 1024 * 1024 + 7)
    fake_openai.replies = [(200, big)]
    req = urllib.request.Request(fake_openai.url + "/v1/completions", data=b"{}", method="POST")
    assert fetch(deadline_opener(fake_openai.url), req, Deadline.after(20), per_op_s=10) == big


def test_a_dripping_server_trips_the_deadline_not_the_per_read_timeout(stalling_server):
    srv = stalling_server(0.2)
    req = urllib.request.Request(srv.url + "/x", data=b"{}", method="POST")
    t0 = time.perf_counter()
    with pytest.raises((socket.timeout, TimeoutError, OSError)):
        fetch(deadline_opener(srv.url), req, Deadline.after(1.0), per_op_s=60)
    assert time.perf_counter() - t0 < 2.0


def test_an_expired_deadline_sends_nothing(stalling_server):
    srv = stalling_server()
    d = Deadline.after(0)
    with pytest.raises(socket.timeout):
        fetch(deadline_opener(srv.url), urllib.request.Request(srv.url), d)
    assert srv.connections == 0


def test_loopback_urls_go_direct():
    assert is_loopback_url("http://127.0.0.1:8080") and is_loopback_url("http://localhost/v1")
    assert not is_loopback_url("https://api.example.com/v1")
