"""A history that degrades and heals: answers are stored, or kept in a local outbox until they can be.

    durable = DurableHistory(store, Outbox(home / "history-outbox-1a2b3c4d.sqlite3"))
    stored = durable.save(record, title="훈민정음은 언제 반포되었나?")   # False: queued, not stored yet
    durable.start()                                                  # replays the outbox in the background

When the history database cannot take a question (PostgreSQL is down, the network dropped), the
record goes to the outbox, a SQLite file on the server's own disk (WAL, synchronous=FULL: once `save`
returns, the record survives a crash of the server). A background thread replays the outbox, oldest
first, as soon as the database answers again. Storing is idempotent by the question's trace id
(`HistoryStore.save`), and an outbox row is deleted only after its record is stored, so a crash
between the two stores nothing twice: every queued answer lands exactly once.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaji.history.db import HistoryError, SQLiteDB, redact
from gaji.history.migrations import now_iso
from gaji.history.store import HistoryStore, QuestionRecord

log = logging.getLogger("gaji.history")

STORED, NOT_STORED = "stored", "not stored"
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(QuestionRecord) if f.name != "feedback")


def outbox_path(home: str | Path, spec: str) -> Path:
    """The outbox of the history at `spec`, in `home`: one file per database, so a server pointed at
    another database never replays answers into the wrong one."""
    tag = hashlib.sha256(redact(spec).encode("utf-8")).hexdigest()[:8]
    return Path(home).expanduser() / f"history-outbox-{tag}.sqlite3"


@dataclass
class Pending:
    """One queued question: its record and its conversation's title (to create the conversation)."""

    record: QuestionRecord
    title: str
    queued_at: str
    attempts: int = 0
    last_error: str = ""


def record_to_json(rec: QuestionRecord) -> str:
    return json.dumps({k: getattr(rec, k) for k in _RECORD_FIELDS}, ensure_ascii=False)


def record_from_json(text: str) -> QuestionRecord:
    d = json.loads(text)
    return QuestionRecord(**{k: v for k, v in d.items() if k in _RECORD_FIELDS})


class Outbox:
    """The durable queue: a table of pending records keyed by trace id, in its own SQLite file."""

    def __init__(self, path: str | Path):
        """The file is made on the first `put` (a server whose database never failed leaves none behind);
        one left by an earlier run is opened at once, and its records are replayed."""
        self.path = Path(path).expanduser()
        self._db: SQLiteDB | None = None
        self._open_lock = threading.Lock()
        if self.path.exists():
            self._open()

    def _open(self) -> SQLiteDB:
        with self._open_lock:
            if self._db is None:
                db = SQLiteDB(self.path)
                db.run("PRAGMA synchronous=FULL")
                db.run("""CREATE TABLE IF NOT EXISTS pending (
                    id TEXT PRIMARY KEY,
                    record TEXT NOT NULL,
                    title TEXT NOT NULL DEFAULT '',
                    queued_at TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT NOT NULL DEFAULT ''
                )""")
                self._db = db
            return self._db

    @property
    def db(self) -> SQLiteDB:
        return self._open()

    def put(self, rec: QuestionRecord, title: str, error: str = "") -> None:
        """Queue `rec` (again: the newer copy replaces the older)."""
        self.db.run("INSERT INTO pending (id, record, title, queued_at, last_error) VALUES (:id, :r, :t, :q, :e) "
                    "ON CONFLICT (id) DO UPDATE SET record = excluded.record, title = excluded.title",
                    id=rec.id, r=record_to_json(rec), t=title, q=now_iso(), e=error[:500])

    def pending(self, limit: int = 100) -> list[Pending]:
        if self._db is None:
            return []
        rows = self.db.run("SELECT record, title, queued_at, attempts, last_error FROM pending "
                           "ORDER BY queued_at, id LIMIT :n", n=int(limit))
        return [Pending(record_from_json(r), t, q, a, e) for r, t, q, a, e in rows]

    def failed(self, qid: str, error: str) -> None:
        self.db.run("UPDATE pending SET attempts = attempts + 1, last_error = :e WHERE id = :id",
                    id=qid, e=error[:500])

    def done(self, qid: str) -> None:
        self.db.run("DELETE FROM pending WHERE id = :id", id=qid)

    def __len__(self) -> int:
        if self._db is None:
            return 0
        return int(self.db.run("SELECT COUNT(*) FROM pending")[0][0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


class DurableHistory:
    """A HistoryStore whose writes never fail the answer: stored, or queued and replayed later."""

    def __init__(self, store: HistoryStore, outbox: Outbox, retry_s: float = 1.0):
        self.store, self.outbox, self.retry_s = store, outbox, retry_s
        self.replayed = 0  # records the replay stored (not counting ones found stored already)
        self._lock = threading.Lock()  # one replay at a time, and new saves wait for it (turn order)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def save(self, rec: QuestionRecord, title: str) -> bool:
        """Store `rec` now (True) or queue it in the outbox (False). Earlier queued records go first."""
        with self._lock:
            try:
                if len(self.outbox):
                    self._replay_locked()
                self.store.save(rec, title=title)
                return True
            except HistoryError as e:
                log.warning("history database unavailable, question %s queued in %s: %s", rec.id,
                            self.outbox.path, e)
                self.outbox.put(rec, title, str(e))
                return False

    def replay(self) -> int:
        """Store what the outbox holds, oldest first, until it is empty or the database fails again;
        returns how many were stored now."""
        with self._lock:
            return self._replay_locked()

    def _replay_locked(self) -> int:
        n = 0
        while True:
            batch = self.outbox.pending()
            if not batch:
                return n
            for p in batch:
                try:
                    stored = self.store.save(p.record, title=p.title)
                except HistoryError as e:
                    self.outbox.failed(p.record.id, str(e))
                    raise
                self.outbox.done(p.record.id)
                if stored:
                    n += 1
                    self.replayed += 1
                log.info("history: queued question %s %s", p.record.id,
                         "stored" if stored else "was stored already")

    def start(self) -> None:
        """Replay in a background thread, every `retry_s` while the outbox is not empty."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="gaji-history-outbox", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.retry_s):
            try:
                if len(self.outbox):
                    self.replay()
            except HistoryError:
                pass  # still down: the next round tries again
            except Exception:  # noqa: BLE001 - the replay thread must outlive any one bad record
                log.exception("history outbox replay failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def status(self) -> dict[str, Any]:
        return {"outbox": str(self.outbox.path), "queued": len(self.outbox), "replayed": self.replayed}

    def close(self) -> None:
        self.stop()
        self.outbox.close()
