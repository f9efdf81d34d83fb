"""The database behind the history: SQLite (embedded, the default) or PostgreSQL (a shared deployment).

    db = open_database("/home/me/.cache/gaji/history.sqlite3")          # or sqlite:///abs/path
    db = open_database("postgresql://gaji:secret@db.internal:5432/gaji")  # ?host=/run/postgresql for a socket
    rows = db.run("SELECT id FROM questions WHERE client = :client", client="alice")
    with db.transaction():
        db.run(...); db.run(...)

Statements use `:name` parameters, which both sqlite3 and pg8000's native API understand, and only
types both databases have (TEXT, INTEGER, DOUBLE PRECISION), so one SQL text serves both. SQLite runs
in WAL mode (readers never wait for the writer; several server processes may share the file) with a
busy timeout, one connection under a lock. PostgreSQL is reached with pg8000 (pure Python, BSD licence)
through a small pool that drops broken connections and reconnects with backoff, so a database restart
heals by itself.
"""
from __future__ import annotations

import re
import sqlite3
import threading
import time
import urllib.parse
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

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
    """PostgreSQL through a `ConnectionPool`: a statement borrows a connection, a transaction keeps one
    for its length (per thread), and a connection that broke (the server restarted, the network
    dropped) is thrown away; the next statement connects again, waiting out the pool's backoff."""

    kind = "postgresql"

    def __init__(self, url: str, pool_size: int = 4):
        super().__init__()
        self.url = url
        self.params = postgres_params(url)
        try:
            import pg8000.native
        except ImportError:
            raise ConfigError("a PostgreSQL history needs pg8000: pip install 'gaji[serve]'") from None
        self._pg = pg8000
        self.pool = ConnectionPool(lambda: pg8000.native.Connection(**self.params), self.describe(),
                                   size=pool_size)
        self._local = threading.local()
        try:
            self.pool.release(self.pool.acquire())  # reachable now, or a clear error at start
        except HistoryError as e:
            raise ConfigError(f"cannot connect to the history database {self.describe()}: "
                              f"{e.__cause__ or e}") from None

    def run(self, sql: str, **params: Any) -> list[tuple]:
        conn = getattr(self._local, "conn", None)
        if conn is not None:  # inside this thread's transaction
            return self._execute(conn, sql, params)
        conn = self.pool.acquire()
        try:
            return self._execute(conn, sql, params)
        finally:
            self.pool.release(conn)

    @contextmanager
    def transaction(self, exclusive: bool = False) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:  # nested: the outer one commits
            yield
            return
        conn = self.pool.acquire()
        self._local.conn = conn
        committed = False
        try:
            self._execute(conn, "START TRANSACTION", {})
            yield
            self._execute(conn, "COMMIT", {})
            committed = True
        finally:
            self._local.conn = None
            if not committed and not conn.broken:
                try:
                    self._execute(conn, "ROLLBACK", {})
                except HistoryError:
                    pass
            self.pool.release(conn)

    def _execute(self, conn: "PooledConnection", sql: str, params: dict[str, Any]) -> list[tuple]:
        try:
            rows = conn.raw.run(sql, **params)
        except Exception as e:  # noqa: BLE001 - pg8000 errors become one message
            if self._is_disconnect(e):
                conn.broken = True
            raise HistoryError(f"history database ({self.describe()}): {type(e).__name__}: {e}") from None
        return [tuple(r) for r in rows or []]

    def _is_disconnect(self, e: Exception) -> bool:
        """A network failure or the server going away (SQLSTATE class 08, 57P0x): the connection is done."""
        if isinstance(e, self._pg.exceptions.DatabaseError) and e.args and isinstance(e.args[0], dict):
            code = str(e.args[0].get("C", ""))
            return code.startswith("08") or code.startswith("57P")
        return not isinstance(e, self._pg.exceptions.DatabaseError)

    def describe(self) -> str:
        return redact(self.url)

    def close(self) -> None:
        self.pool.close()


class PooledConnection:
    def __init__(self, raw: Any):
        self.raw = raw
        self.born = time.monotonic()
        self.broken = False


class ConnectionPool:
    """At most `size` connections, made on demand and reused. A broken one, or one older than
    `max_age_s`, is closed on its return rather than kept. When connecting fails, further attempts wait
    for a backoff that doubles from `backoff_s` up to `max_backoff_s`; meanwhile a caller gets an
    immediate HistoryError ("unavailable, next try in …"), so an outage costs a request milliseconds,
    not a connect timeout each. The first success resets the backoff."""

    def __init__(self, connect: Callable[[], Any], name: str, size: int = 4, max_age_s: float = 300.0,
                 backoff_s: float = 0.25, max_backoff_s: float = 2.0, wait_s: float = 10.0):
        self.connect, self.name = connect, name
        self.size, self.max_age_s, self.wait_s = max(1, size), max_age_s, wait_s
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        self._idle: list[PooledConnection] = []
        self._slots = threading.BoundedSemaphore(self.size)
        self._lock = threading.Lock()
        self._delay = 0.0  # the current backoff (0: the last attempt succeeded)
        self._next_try = 0.0
        self._last_error = ""
        self.connects = 0  # connections made, for tests and logs

    def acquire(self) -> PooledConnection:
        if not self._slots.acquire(timeout=self.wait_s):
            raise HistoryError(f"history database ({self.name}): all {self.size} connections busy for "
                               f"{self.wait_s:g} s")
        try:
            with self._lock:
                while self._idle:
                    conn = self._idle.pop()
                    if time.monotonic() - conn.born < self.max_age_s:
                        return conn
                    _close(conn)
            return self._connect()
        except BaseException:
            self._slots.release()
            raise

    def release(self, conn: PooledConnection) -> None:
        try:
            if conn.broken or time.monotonic() - conn.born >= self.max_age_s:
                _close(conn)
            else:
                with self._lock:
                    self._idle.append(conn)
        finally:
            self._slots.release()

    def _connect(self) -> PooledConnection:
        with self._lock:
            wait = self._next_try - time.monotonic()
            if wait > 0:
                raise HistoryError(f"history database ({self.name}) unavailable ({self._last_error}); "
                                   f"next try in {wait:.1f} s")
        try:
            raw = self.connect()
        except Exception as e:  # noqa: BLE001 - refused, timed out, auth failed, …
            with self._lock:
                self._delay = min(self.max_backoff_s, self._delay * 2 if self._delay else self.backoff_s)
                self._next_try = time.monotonic() + self._delay
                self._last_error = f"{type(e).__name__}: {e}"
            raise HistoryError(f"history database ({self.name}) unavailable: {type(e).__name__}: {e}") from e
        with self._lock:
            self._delay, self._next_try, self._last_error = 0.0, 0.0, ""
            self.connects += 1
        return PooledConnection(raw)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            _close(conn)


def _close(conn: PooledConnection) -> None:
    try:
        conn.raw.close()
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
    out["timeout"] = 10  # seconds per connect and per socket read: a vanished host costs no more
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
