"""The outbox: records the database cannot take are kept on disk, replayed oldest first, each stored once."""
from __future__ import annotations

import pytest

from gaji.history.db import HistoryError
from gaji.history.outbox import DurableHistory, Outbox, outbox_path, record_from_json, record_to_json
from gaji.history.store import HistoryStore, QuestionRecord


class FlakyStore:
    """A HistoryStore whose writes fail while `down` is set (the database is unreachable)."""

    def __init__(self, store: HistoryStore):
        self.store, self.down = store, False

    def save(self, rec: QuestionRecord, title: str | None = None) -> bool:
        if self.down:
            raise HistoryError("history database (test): connection refused")
        return self.store.save(rec, title=title)


def rec(i: int, cid: str = "c1") -> QuestionRecord:
    return QuestionRecord(id=f"t{i}", conversation_id=cid, question=f"질문 {i}", method="oner", status="ok",
                          answer=f"답 {i}", citations=[{"id": "p1"}], trace={"question": f"질문 {i}"})


@pytest.fixture
def store(tmp_path):
    s = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    yield s
    s.close()


def test_records_queued_while_down_are_replayed_in_order_once(store, tmp_path):
    flaky = FlakyStore(store)
    durable = DurableHistory(flaky, Outbox(tmp_path / "outbox.sqlite3"))  # type: ignore[arg-type]
    assert durable.save(rec(1), "질문 1") is True
    flaky.down = True
    assert [durable.save(rec(i), "질문 1") for i in (2, 3)] == [False, False]
    assert len(durable.outbox) == 2
    with pytest.raises(HistoryError):
        durable.replay()  # still down: nothing lost; a replay stops at the first failure, which is counted
    assert [(p.record.id, p.attempts) for p in durable.outbox.pending()] == [("t2", 2), ("t3", 0)]
    assert "connection refused" in durable.outbox.pending()[0].last_error
    flaky.down = False
    assert durable.save(rec(4), "질문 1") is True  # the queued ones go first: turns stay in order
    assert len(durable.outbox) == 0 and durable.replayed == 2
    assert [(q.id, q.turn) for q in store.questions("c1", oldest_first=True, limit=0)] == [
        ("t1", 1), ("t2", 2), ("t3", 3), ("t4", 4)]
    assert store.conversation("c1").title == "질문 1"


def test_a_replay_after_a_crash_between_store_and_delete_stores_nothing_twice(store, tmp_path):
    box = Outbox(tmp_path / "outbox.sqlite3")
    box.put(rec(1), "q")
    box.put(rec(2), "q")
    store.save(rec(1), title="q")  # the first landed, then the server died before deleting its outbox row
    box.close()
    durable = DurableHistory(store, Outbox(tmp_path / "outbox.sqlite3"))  # the restarted server finds the file
    assert durable.replay() == 1 and len(durable.outbox) == 0
    rows = store.db.run("SELECT id, COUNT(*) FROM questions GROUP BY id ORDER BY id")
    assert rows == [("t1", 1), ("t2", 1)]


def test_the_outbox_is_made_only_when_needed_and_per_database(tmp_path):
    box = Outbox(tmp_path / "outbox.sqlite3")
    assert len(box) == 0 and box.pending() == [] and not (tmp_path / "outbox.sqlite3").exists()
    a = outbox_path(tmp_path, "postgresql://u:secret@db/a")
    assert a == outbox_path(tmp_path, "postgresql://u:other@db/a") != outbox_path(tmp_path, "postgresql://u@db/b")
    r = rec(7)
    assert record_from_json(record_to_json(r)) == r


def test_the_background_replay_drains_the_outbox(store, tmp_path):
    import time

    flaky = FlakyStore(store)
    durable = DurableHistory(flaky, Outbox(tmp_path / "outbox.sqlite3"), retry_s=0.05)  # type: ignore[arg-type]
    flaky.down = True
    assert durable.save(rec(1), "q") is False
    durable.start()
    try:
        time.sleep(0.3)
        assert len(durable.outbox) == 1  # down: kept
        flaky.down = False
        deadline = time.monotonic() + 5
        while len(durable.outbox) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        durable.close()
    assert store.question("t1").answer == "답 1" and durable.replayed == 1
