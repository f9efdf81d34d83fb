"""The history database: migrations, questions, turns, feedback and named keys, on SQLite (a temp file) and
on a real PostgreSQL server started on loopback by the test (skipped, with the reason, when it cannot start)."""
from __future__ import annotations

import sqlite3
import threading

import pytest

from gaji.errors import ConfigError
from gaji.history.db import HistoryError, SQLiteDB, open_database, postgres_params, redact
from gaji.history.keys import KeyStore
from gaji.history.migrations import LATEST, MIGRATIONS, Migration, migrate
from gaji.history.store import HistoryStore, QuestionRecord


@pytest.fixture(params=["sqlite", "postgresql"])
def db_spec(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite3")
    return request.getfixturevalue("postgres_url")


def rec(qid: str, cid: str, question: str, answer: str, **kw) -> QuestionRecord:
    return QuestionRecord(id=qid, conversation_id=cid, question=question, answer=answer, method="oner",
                          status=kw.pop("status", "ok"), **kw)


def test_migrations_run_once_and_are_recorded(db_spec):
    store = HistoryStore.open(db_spec)
    assert store.applied == [m.version for m in MIGRATIONS] and LATEST == 3
    rows = store.db.run("SELECT version, description FROM schema_version ORDER BY version")
    assert rows == [(1, "conversations, questions and feedback"), (2, "named API keys"),
                    (3, "scoped API keys and rate limits")]
    store.close()
    again = HistoryStore.open(db_spec)  # a restart: nothing to apply, the data stays
    assert again.applied == []
    again.close()


def test_a_new_migration_applies_on_top_and_a_newer_schema_is_refused(db_spec):
    HistoryStore.open(db_spec).close()
    db = open_database(db_spec)
    extra = MIGRATIONS + (Migration(4, "a column for tags", ("ALTER TABLE questions ADD COLUMN tags TEXT",)),)
    assert migrate(db, extra) == [4]
    db.run("INSERT INTO conversations (id, title, created_at) VALUES ('c', '', 't')")
    db.run("INSERT INTO questions (id, conversation_id, turn, question, status, method, created_at, tags) "
           "VALUES ('q', 'c', 1, 'x', 'ok', 'oner', 't', 'a,b')")
    with pytest.raises(HistoryError, match="schema version 4, newer than this gaji knows \\(3\\)"):
        migrate(db)
    db.close()


def test_questions_turns_and_feedback(db_spec):
    store = HistoryStore.open(db_spec)
    cid = store.start_conversation("alice", title="훈민정음은 누가 만들었어?")
    assert store.start_conversation("bob", id=cid) == cid  # an existing id is kept as it is
    assert store.conversation(cid).client == "alice"
    store.record(rec("t1", cid, "훈민정음은 누가 만들었어?", "세종", client="alice", latency_ms=12.5,
                     prompt_tokens=40, completion_tokens=2, llm_calls=1, citations=[{"id": "ko-hunmin"}],
                     trace={"question": "훈민정음은 누가 만들었어?", "root": {"kind": "root"}}))
    store.record(rec("t2", cid, "그 사람은 언제 태어났어?", "", status="failed", error="LLM down"))
    store.record(rec("t3", cid, "그 사람은 언제 태어났어?", "1397년", standalone="세종은 언제 태어났어?"))
    assert [r.turn for r in store.questions(conversation_id=cid, oldest_first=True)] == [1, 2, 3]
    turns = store.turns(cid)  # failed questions are not context
    assert [(t.question, t.answer, t.resolved) for t in turns] == [
        ("훈민정음은 누가 만들었어?", "세종", "훈민정음은 누가 만들었어?"),
        ("그 사람은 언제 태어났어?", "1397년", "세종은 언제 태어났어?")]
    t1 = store.question("t1", trace=True)
    assert (t1.client, t1.latency_ms, t1.prompt_tokens, t1.citations) == ("alice", 12.5, 40, [{"id": "ko-hunmin"}])
    assert t1.trace["root"]["kind"] == "root" and store.question("t1").trace is None
    store.add_feedback("t3", "up")
    store.add_feedback("t3", "down", correct_answer=" 1397년 5월 15일 ", comment="날짜까지")
    fb = store.question("t3").feedback
    assert (fb.rating, fb.correct_answer, fb.comment) == ("down", "1397년 5월 15일", "날짜까지")  # the latest wins
    with pytest.raises(ConfigError, match="rating must be one of up, down"):
        store.add_feedback("t3", "meh")
    assert [r.id for r in store.questions(client="alice")] == ["t1"]
    assert store.question("nope") is None and store.conversation("nope") is None
    store.close()


def test_concurrent_writers_share_one_store(db_spec):
    store = HistoryStore.open(db_spec)
    cid = store.start_conversation()
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            store.record(rec(f"q{i}", cid, f"question {i}", "a"))
            store.add_feedback(f"q{i}", "up")
        except BaseException as e:  # noqa: BLE001 - collected for the assert
            errors.append(e)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    recs = store.questions(conversation_id=cid, limit=0)
    assert sorted(r.turn for r in recs) == list(range(1, 9)) and all(r.feedback for r in recs)
    store.close()


def test_named_keys_are_stored_hashed_and_revocable(db_spec):
    store = HistoryStore.open(db_spec)
    keys = KeyStore(store.db)
    assert not keys.has_active()
    info, key = keys.add("alice")
    assert key.startswith(f"gaji-{info.id}.") and keys.has_active()
    stored = store.db.run("SELECT salt, hash FROM api_keys WHERE id = :id", id=info.id)[0]
    assert key.split(".", 1)[1] not in "".join(stored)  # only the salt and the HMAC are kept
    assert keys.check(key) == "alice"
    assert keys.list()[0].last_used_at is not None
    assert keys.check(key[:-1] + ("A" if key[-1] != "A" else "B")) is None
    assert keys.check("gaji-0000000000000000.xxxxxxxxxxxxxxxxxxxxxxxx") is None and keys.check(None) is None
    with pytest.raises(ConfigError, match="already an active key named 'alice'"):
        keys.add("alice")
    with pytest.raises(ConfigError, match="key name"):
        keys.add("no spaces please")
    assert keys.revoke("alice") == 1
    assert keys.check(key) is None and not keys.has_active()
    with pytest.raises(ConfigError, match="no active key named 'alice'"):
        keys.revoke("alice")
    _, key2 = keys.add("alice")  # the name is free again
    assert keys.check(key2) == "alice"
    store.close()


def test_sqlite_runs_in_wal_mode_and_another_process_view_sees_the_data(tmp_path):
    path = tmp_path / "h.sqlite3"
    store = HistoryStore.open(str(path))
    assert isinstance(store.db, SQLiteDB) and store.db.journal_mode == "wal"
    cid = store.start_conversation()
    store.record(rec("t1", cid, "q", "a"))
    other = sqlite3.connect(path)  # what another process would see
    assert other.execute("SELECT question FROM questions").fetchall() == [("q",)]
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()
    store.close()


def test_database_specs_and_bad_ones():
    assert postgres_params("postgresql://u:p%40ss@db.example:6000/gaji") == {
        "user": "u", "password": "p@ss", "database": "gaji", "host": "db.example", "port": 6000, "timeout": 10}
    assert postgres_params("postgres://u@/gaji?host=/run/pg&port=5433")["unix_sock"] == "/run/pg/.s.PGSQL.5433"
    assert redact("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"
    with pytest.raises(ConfigError, match="cannot connect to the history database postgresql://u:\\*\\*\\*@127.0.0.1"):
        open_database("postgresql://u:secret@127.0.0.1:1/db")
    with pytest.raises(ConfigError, match="empty path"):
        open_database("sqlite://")
