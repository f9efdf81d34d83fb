"""The history database's schema, as numbered migrations.

`migrate(db)` brings a database to the latest version: it applies, in order and in one transaction,
every migration newer than the highest version in `schema_version`, and records each there. A schema
change is a new migration appended here, never an edit of an old one (databases in use have run
them) and never "delete the file". Two processes opening one database at once are serialised (SQLite:
BEGIN IMMEDIATE; PostgreSQL: an advisory lock), so each migration runs once.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from gaji.history.db import Database, HistoryError

LOCK_KEY = 7_214_003_311  # pg_advisory_xact_lock key of gaji's schema migrations


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "conversations, questions and feedback", (
        """CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            client TEXT,
            title TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE questions (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id),
            turn INTEGER NOT NULL,
            question TEXT NOT NULL,
            standalone TEXT NOT NULL DEFAULT '',
            answer TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            error TEXT,
            method TEXT NOT NULL,
            index_name TEXT,
            model TEXT NOT NULL DEFAULT '',
            client TEXT,
            endpoint TEXT NOT NULL DEFAULT '',
            latency_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
            llm_calls INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            citations TEXT NOT NULL DEFAULT '[]',
            trace TEXT,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX questions_by_conversation ON questions (conversation_id, turn)",
        "CREATE INDEX questions_by_time ON questions (created_at)",
        """CREATE TABLE feedback (
            id TEXT PRIMARY KEY,
            question_id TEXT NOT NULL REFERENCES questions (id),
            rating TEXT NOT NULL,
            correct_answer TEXT,
            comment TEXT,
            client TEXT,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX feedback_by_question ON feedback (question_id, created_at)",
    )),
    Migration(2, "named API keys", (
        """CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            salt TEXT NOT NULL,
            hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT,
            last_used_at TEXT
        )""",
        "CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at IS NULL",
    )),
    # a key's scopes as JSON {"read": [...], "write": [...]} (NULL: every index, read and write, the access
    # every key made before had) and its optional requests per minute
    Migration(3, "scoped API keys and rate limits", (
        "ALTER TABLE api_keys ADD COLUMN scopes TEXT",
        "ALTER TABLE api_keys ADD COLUMN rate_per_min INTEGER",
    )),
)

LATEST = MIGRATIONS[-1].version


def now_iso() -> str:
    """UTC time as fixed-width ISO-8601 text: sorts as it reads, the same in both databases."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def current_version(db: Database) -> int:
    rows = db.run("SELECT MAX(version) FROM schema_version")
    return int(rows[0][0] or 0) if rows else 0


def migrate(db: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Apply the pending migrations; returns the versions applied (empty when the schema is current)."""
    latest = migrations[-1].version if migrations else 0
    applied: list[int] = []
    with db.transaction(exclusive=True):
        if db.kind == "postgresql":
            db.run("SELECT pg_advisory_xact_lock(:key)", key=LOCK_KEY)
        db.run("""CREATE TABLE IF NOT EXISTS schema_version (
            version INTEGER PRIMARY KEY,
            description TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )""")
        version = current_version(db)
        if version > latest:
            raise HistoryError(f"the history database ({db.describe()}) is at schema version {version}, newer than "
                               f"this gaji knows ({latest}): upgrade gaji, or point it at another database")
        for m in migrations:
            if m.version <= version:
                continue
            for stmt in m.statements:
                db.run(stmt)
            db.run("INSERT INTO schema_version (version, description, applied_at) VALUES (:v, :d, :t)",
                   v=m.version, d=m.description, t=now_iso())
            applied.append(m.version)
    return applied
