"""One writer at a time (gaji.index.lock): concurrent writers both land, a busy index names its holder,
a killed holder never leaves the index locked, a dead owner's lock still held by a child is broken."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from gaji.errors import ConfigError, IndexUnusableError
from gaji.index.lock import IndexBusy, lock_path, read_owner, wait_seconds, writer_lock
from gaji.index.store import open_index
from gaji.types import Document

from fakes_index import build_small, fake_embedder

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(cond, timeout=60.0):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_two_concurrent_adds_both_land(tmp_path):
    """Two writers at once: the second waits for the first; neither loses the other's document."""
    out = tmp_path / "idx"
    build_small(out)
    emb = fake_embedder()
    inside = threading.Event()
    release = threading.Event()
    plain = type(emb).embed_passages

    def slow(self, texts):  # the first writer stops inside its write until the second one has started
        if any("slow" in t for t in texts):
            inside.set()
            release.wait(10)
        return plain(self, texts)

    errors: list[BaseException] = []

    def add(doc):
        try:
            open_index(out).add([doc])
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    type(emb).embed_passages = slow
    try:
        a = threading.Thread(target=add, args=(Document(id="first", text="slow zebra document"),))
        a.start()
        assert inside.wait(10)
        b = threading.Thread(target=add, args=(Document(id="second", text="quick giraffe document"),))
        b.start()
        time.sleep(0.5)  # the second writer is now waiting for the lock (on main it ran into the first)
        release.set()
        a.join(30)
        b.join(30)
    finally:
        type(emb).embed_passages = plain
    assert not errors
    idx = open_index(out)
    assert "first" in idx and "second" in idx and idx.chunks == 7
    assert [h["action"] for h in idx.manifest.history] == ["build", "add", "add"]
    assert idx.retriever("bm25").search("giraffe", 1)[0].id == "second"
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


HOLD = """
    import sys, time
    from gaji.index.lock import writer_lock
    with writer_lock(sys.argv[1] if len(sys.argv) > 1 else {path!r}, action="add"):
        print("held", flush=True)
        time.sleep(60)
"""


def test_a_busy_index_names_its_holder_and_a_killed_holder_frees_it(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    holder = _python(HOLD.format(path=str(out)))
    try:
        assert holder.stdout.readline().strip() == "held"
        owner = read_owner(lock_path(out))
        assert owner is not None and owner.pid == holder.pid and owner.action == "add"
        t0 = time.monotonic()
        with pytest.raises(IndexBusy) as e:
            with writer_lock(out, wait_s=0.5):
                pass
        assert time.monotonic() - t0 >= 0.5
        msg = str(e.value)
        assert f"pid {holder.pid}" in msg and "add since" in msg and "--wait" in msg and str(out) in msg
        with pytest.raises(IndexBusy):
            open_index(out).add([Document(id="x", text="blocked")], wait_s=0.2)
        os.kill(holder.pid, signal.SIGKILL)  # kill -9: the OS drops the flock
        holder.wait(10)
        with writer_lock(out, wait_s=5):
            assert read_owner(lock_path(out)).pid == os.getpid()
        assert read_owner(lock_path(out)) is None  # released: no owner recorded
    finally:
        holder.kill()
        holder.wait()


FORK = """
    import os, sys, time
    from gaji.index.lock import writer_lock
    with writer_lock({path!r}, action="sync"):
        child = os.fork()
        if child == 0:  # inherits the locked descriptor and outlives its parent
            time.sleep(60)
            os._exit(0)
        print(child, flush=True)
        os._exit(0)  # the owner dies; its child still holds the lock
"""


def test_a_dead_owners_lock_held_by_its_child_is_broken(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    parent = _python(FORK.format(path=str(out)))
    child = int(parent.stdout.readline())
    parent.wait(10)
    try:
        t0 = time.monotonic()
        with writer_lock(out, wait_s=10):
            assert read_owner(lock_path(out)).pid == os.getpid()
        assert time.monotonic() - t0 < 9
    finally:
        os.kill(child, signal.SIGKILL)


def test_a_fresh_targets_lock_lives_in_its_build_folder_and_moves_in(tmp_path):
    out = tmp_path / "new"
    assert lock_path(out) == tmp_path / ".new.building" / "writer.lock"
    build_small(out, dense=False)
    assert lock_path(out) == out / "writer.lock" and lock_path(out).exists()
    assert not (tmp_path / ".new.building").exists()
    with writer_lock(out):
        with writer_lock(out):  # re-entrant in one thread
            pass
        build_small(out, dense=False)  # a writer called by a writer of the same index


def test_wait_seconds(monkeypatch):
    monkeypatch.delenv("GAJI_INDEX_WAIT_S", raising=False)
    assert wait_seconds() == 60.0 and wait_seconds(2) == 2.0
    monkeypatch.setenv("GAJI_INDEX_WAIT_S", "5")
    assert wait_seconds() == 5.0
    monkeypatch.setenv("GAJI_INDEX_WAIT_S", "soon")
    with pytest.raises(ConfigError, match="GAJI_INDEX_WAIT_S"):
        wait_seconds()
    with pytest.raises(ConfigError, match=">= 0"):
        wait_seconds(-1)


def test_a_writer_of_a_missing_index_leaves_nothing(tmp_path):
    from gaji.index.writer import remove_documents

    with pytest.raises(IndexUnusableError, match="no index here"):
        remove_documents(tmp_path / "nope", ["a"])
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_index_folder_is_a_clear_error(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    (out / "writer.lock").unlink()
    out.chmod(0o555)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(IndexUnusableError, match="cannot open the writer lock"):
            open_index(out).add([Document(id="x", text="y")], wait_s=0)
        assert open_index(out).chunks == 5  # reading needs no write access
    finally:
        out.chmod(0o755)
