"""The database behind the history: SQLite (embedded, the default) or PostgreSQL (a shared deployment).

    db = open_database("/home/me/.cache/gaji/history.sqlite3")          # or sqlite:///abs/path
    db = open_database("postgresql://gaji:secret@db.internal:5432/gaji")  # ?host=/run/postgresql for a socket
    rows = db.run("SELECT id FROM questions WHERE client = :client", client="alice")
    with db.transaction():
        db.run(...); db.run(...)

Statements use `:name` parameters, which both sqlite3 and pg8000's native API understand, and only
types both databases have (TEXT, INTEGER, DOUBLE PRECISION), so one SQL text serves both. SQLite runs
in WAL mode (readers never wait for the writer; several server processes may share the file) with a
busy timeout. PostgreSQL is reached with pg8000 (pure Python, BSD licence). One connection per
Database, used under a lock: the history is written once per question, far below what one connection
carries.
"""
from __future__ import annotations

import re
import sqlite3
import threading
import urllib.parse
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from gaji.errors import ConfigError, GajiError

BUSY_TIMEOUT_MS = 10_000


class HistoryError(GajiError):
    """The history database failed (unreachable, locked too long, or a schema newer than this gaji)."""


class Database:
    """One connection to SQLite or PostgreSQL, safe to share between threads."""

    kind = "?"

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._depth = 0  # nesting of transaction(): only the outermost one commits

    def run(self, sql: str, **params: Any) -> list[tuple]:
        with self._lock:
            try:
                return self._run(sql, params)
            except (HistoryError, ConfigError):
                raise
            except Exception as e:  # noqa: BLE001 - sqlite3/pg8000 errors become one message
                raise HistoryError(f"history database ({self.describe()}): {type(e).__name__}: {e}") from None

    @contextmanager
    def transaction(self, exclusive: bool = False) -> Iterator[None]:
        """Statements run in the block commit together (or not at all). `exclusive`: no other writer may
        start meanwhile (schema migrations)."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self.run(self._begin(exclusive))
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    try:
                        self.run("ROLLBACK")
                    except HistoryError:
                        pass
                raise
            self._depth -= 1
            if outer:
                self.run("COMMIT")

    def _begin(self, exclusive: bool) -> str:
        return "BEGIN"

    def _run(self, sql: str, params: dict[str, Any]) -> list[tuple]:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class SQLiteDB(Database):
    kind = "sqlite"

    def __init__(self, path: str | Path):
        super().__init__()
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # autocommit mode: transaction() says BEGIN/COMMIT itself, the same way for both databases
            self.conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                        check_same_thread=False)
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self.conn.execute("PRAGMA foreign_keys=ON")
        except (sqlite3.Error, OSError) as e:
            raise ConfigError(f"cannot open the history database {self.path}: {e}") from None
        self.journal_mode = str(mode).lower()

    def _begin(self, exclusive: bool) -> str:
        return "BEGIN IMMEDIATE" if exclusive else "BEGIN"

    def _run(self, sql: str, params: dict[str, Any]) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()

    def describe(self) -> str:
        return f"sqlite {self.path}"

    def close(self) -> None:
        with self._lock:
            self.conn.close()


class PostgresDB(Database):
    kind = "postgresql"

    def __init__(self, url: str):
        super().__init__()
        self.url = url
        self.params = postgres_params(url)
        try:
            import pg8000.native
        except ImportError:
            raise ConfigError("a PostgreSQL history needs pg8000: pip install 'gaji[serve]'") from None
        try:
            self.conn = pg8000.native.Connection(**self.params)
        except Exception as e:  # noqa: BLE001 - connection refused, auth failed, unknown database, ...
            raise ConfigError(f"cannot connect to the history database {self.describe()}: {e}") from None

    def _begin(self, exclusive: bool) -> str:
        return "START TRANSACTION"

    def _run(self, sql: str, params: dict[str, Any]) -> list[tuple]:
        rows = self.conn.run(sql, **params)
        return [tuple(r) for r in rows or []]

    def describe(self) -> str:
        return redact(self.url)

    def close(self) -> None:
        with self._lock:
            try:
                self.conn.close()
            except Exception:  # noqa: BLE001 - already gone
                pass


def postgres_params(url: str) -> dict[str, Any]:
    """`postgresql://user:password@host:port/dbname[?host=/socket/dir]` -> pg8000 connection arguments."""
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"history database URL must start with postgresql://, not {redact(url)!r}")
    query = dict(urllib.parse.parse_qsl(u.query))
    out: dict[str, Any] = {"user": urllib.parse.unquote(u.username or "") or "postgres",
                           "database": urllib.parse.unquote(u.path.lstrip("/")) or None}
    if u.password:
        out["password"] = urllib.parse.unquote(u.password)
    port = u.port or int(query.get("port", 5432))
    socket_dir = query.get("host", "")
    if socket_dir.startswith("/"):  # libpq's way of naming a unix socket directory
        out["unix_sock"] = f"{socket_dir.rstrip('/')}/.s.PGSQL.{port}"
    else:
        out["host"] = u.hostname or "localhost"
        out["port"] = port
    out["timeout"] = 30
    return {k: v for k, v in out.items() if v is not None}


def redact(url: str) -> str:
    """The URL without its password (it goes into messages and logs)."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


def is_postgres_url(spec: str) -> bool:
    return spec.startswith(("postgresql://", "postgres://"))


def open_database(spec: str) -> Database:
    """`postgresql://…` -> PostgresDB; `sqlite:///path` or a path -> SQLiteDB."""
    spec = spec.strip()
    if is_postgres_url(spec):
        return PostgresDB(spec)
    if spec.startswith("sqlite://"):
        spec = spec[len("sqlite://"):]
    if not spec:
        raise ConfigError("history database: empty path")
    return SQLiteDB(spec)
