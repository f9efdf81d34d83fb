"""The PostgreSQL connection pool: reuse, broken connections dropped, backoff while the server is away."""
from __future__ import annotations

import time

import pytest

from gaji.history.db import ConnectionPool, HistoryError, open_database


class FakeConn:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_connections_are_reused_and_broken_or_old_ones_replaced():
    made: list[FakeConn] = []
    pool = ConnectionPool(lambda: made.append(FakeConn()) or made[-1], "test", size=2, max_age_s=0.2)
    a = pool.acquire()
    pool.release(a)
    assert pool.acquire() is a and len(made) == 1  # reused
    a.broken = True
    pool.release(a)
    b = pool.acquire()
    assert made[0].closed and b.raw is made[1]  # a broken one is closed, a new one made
    pool.release(b)
    time.sleep(0.25)
    c = pool.acquire()  # too old: replaced, so no connection is held forever
    assert c.raw is made[2] and made[1].closed and len(made) == 3


def test_a_failing_server_gets_backoff_and_fast_refusals_then_a_reconnect():
    state = {"up": False, "attempts": 0}

    def connect():
        state["attempts"] += 1
        if not state["up"]:
            raise ConnectionRefusedError("connection refused")
        return FakeConn()

    pool = ConnectionPool(connect, "test", backoff_s=0.2, max_backoff_s=0.4)
    with pytest.raises(HistoryError, match="unavailable: ConnectionRefusedError"):
        pool.acquire()
    t0 = time.monotonic()
    with pytest.raises(HistoryError, match="next try in"):
        pool.acquire()  # within the backoff: refused at once, no connect attempt
    assert state["attempts"] == 1 and time.monotonic() - t0 < 0.1
    time.sleep(0.25)
    with pytest.raises(HistoryError):
        pool.acquire()  # the second attempt fails: the backoff doubles (capped)
    assert state["attempts"] == 2 and pool._delay == pytest.approx(0.4)
    state["up"] = True
    time.sleep(0.45)
    pool.release(pool.acquire())  # back: connected, backoff reset
    assert pool._delay == 0 and pool.connects == 1


def test_postgres_heals_after_a_restart(postgres_own):
    db = open_database(postgres_own.new_database())
    db.pool.backoff_s = db.pool.max_backoff_s = 0.2
    assert db.run("SELECT 1") == [(1,)]
    assert postgres_own.stop("fast").returncode == 0
    with pytest.raises(HistoryError):
        db.run("SELECT 1")
    assert postgres_own.start().returncode == 0
    deadline = time.monotonic() + 10
    while True:
        try:
            assert db.run("SELECT 2") == [(2,)]
            break
        except HistoryError:
            assert time.monotonic() < deadline, "no reconnect within 10 s"
            time.sleep(0.1)
    with db.transaction():  # a transaction after the restart works on the new connection
        db.run("CREATE TABLE t (x INTEGER)")
        db.run("INSERT INTO t VALUES (1)")
    assert db.run("SELECT x FROM t") == [(1,)]
    db.close()
