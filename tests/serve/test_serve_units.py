"""The server's small parts on their own: runner, cancel token, locks, index names, uploads, auth, metrics."""
from __future__ import annotations

import threading
import time

import pytest

from gaji.errors import ConfigError
from gaji.llm.base import Request
from gaji.llm.scripted import ScriptedLLM
from gaji.serve.auth import key_matches, needs_key, presented_key
from gaji.serve.indexes import RWLock, UploadInvalid, parse_documents_jsonl, parse_index_spec, scrub
from gaji.serve.limits import human_bytes
from gaji.serve.metrics import percentile
from gaji.serve.runner import CancellableLLM, Cancelled, CancelToken, QueueFull, Runner, recording
from gaji.testing import ListRetriever


def test_cancel_token_deadline_and_reason():
    t = CancelToken(0.05)
    t.check()
    time.sleep(0.06)
    with pytest.raises(Cancelled):
        t.check()
    assert t.reason == "time limit" and t.remaining() == 0
    u = CancelToken()
    u.cancel("client disconnected")
    u.cancel("later reason is ignored")
    assert u.cancelled and u.reason == "client disconnected" and u.remaining() is None


def test_cancelled_is_not_an_exception_so_methods_cannot_swallow_it():
    assert not issubclass(Cancelled, Exception)
    t = CancelToken()
    llm = CancellableLLM(ScriptedLLM(default="ok"), t)
    assert llm.generate(Request(prompt="hi")).text == "ok" and llm.parallel_slots == 4
    t.cancel("stop")
    with pytest.raises(Cancelled):
        llm.generate(Request(prompt="hi"))
    r = recording(ListRetriever([("a", "A", "alpha"), ("b", "B", "beta")]), CancelToken())
    assert [p.id for p in r.search("alpha", 1)] == ["a"]
    assert list(r.take_new(["a", "b"])) == ["a"] and r.take_new(["a"]) == {}  # each passage once
    assert not hasattr(r, "search_traced")


def test_runner_bounds_running_and_waiting():
    gate = threading.Event()
    r = Runner(slots=1, queue_max=1)
    f1 = r.submit(lambda: gate.wait(5) and 1, CancelToken())
    f2 = r.submit(lambda: 2, CancelToken())
    with pytest.raises(QueueFull, match="1 question\\(s\\) running and 1 waiting"):
        r.submit(lambda: 3, CancelToken())
    assert r.state() == {"slots": 1, "queue_max": 1, "running": 1, "waiting": 1, "rejected": 1}
    gate.set()
    assert f1.result(5) == 1 and f2.result(5) == 2
    # a question cancelled while it waited never starts
    gate.clear()
    f3 = r.submit(lambda: gate.wait(5), CancelToken())
    tok = CancelToken()
    f4 = r.submit(lambda: "ran", tok)
    tok.cancel("time limit")
    gate.set()
    f3.result(5)
    with pytest.raises(Cancelled):
        f4.result(5)
    r.shutdown()


def test_rwlock_writer_excludes_readers():
    lock, log = RWLock(), []

    def reader():
        with lock.read():
            log.append("r")
            time.sleep(0.05)

    with lock.write():
        t = threading.Thread(target=reader)
        t.start()
        time.sleep(0.05)
        assert log == []  # the reader waits for the writer
    t.join(2)
    assert log == ["r"]


def test_index_specs(tmp_path):
    assert parse_index_spec("hp=runs/hotpot") == ("hp", "runs/hotpot")
    assert parse_index_spec("runs/hotpot/") == ("hotpot", "runs/hotpot/")
    d = tmp_path / "k=v"
    d.mkdir()
    assert parse_index_spec(f"kv={d}") == ("kv", str(d))
    with pytest.raises(ConfigError):  # an existing directory is taken whole, and 'k=v' is no name
        parse_index_spec(str(d))
    with pytest.raises(ConfigError, match="NAME=DIR"):
        parse_index_spec("/")


def test_scrub_removes_paths():
    out = scrub({"dir": "/home/u/idx", "model": "e5", "note": "built from /home/u/c.jsonl", "n": 3}, "/home/u/idx")
    assert out == {"model": "e5", "note": "built from <path>", "n": 3}


def test_parse_documents_jsonl():
    docs = parse_documents_jsonl('{"id": "a", "text": "가", "title": "T", "sentences": ["가"]}\n'.encode())
    assert docs[0].id == "a" and docs[0].metadata == {"sentences": ["가"]} and docs[0].source == "upload"
    with pytest.raises(UploadInvalid) as e:
        parse_documents_jsonl(b'{"id": "", "text": ""}\n')
    assert [x["field"] for x in e.value.errors] == ["id", "text"] and e.value.line == 1
    many = b"\n".join([b"nope"] * 50)
    with pytest.raises(UploadInvalid) as e:
        parse_documents_jsonl(many)
    assert len(e.value.errors) == 20 and "(and 19 more)" in str(e.value)


def test_auth_helpers():
    assert key_matches("k", "k") and not key_matches("K", "k") and not key_matches(None, "k")
    assert presented_key({b"authorization": b"Bearer abc "}) == "abc"
    assert presented_key({b"x-api-key": b"xyz"}) == "xyz"
    assert presented_key({b"authorization": b"Basic abc"}) is None
    assert needs_key("/api/ask", "POST") and needs_key("/openapi.json", "GET")
    assert not needs_key("/api/health", "GET") and not needs_key("/", "GET") and not needs_key("/api/ask", "OPTIONS")


def test_percentile_and_sizes():
    assert percentile([], 50) is None
    assert percentile([5, 1, 3, 2, 4], 50) == 3 and percentile(list(range(1, 101)), 95) == 95
    assert human_bytes(512) == "512 bytes" and human_bytes(8 * 1024 * 1024) == "8 MiB"
