"""One writer at a time per index, across processes.

    with writer_lock("runs/idx", action="add"):   # waits up to GAJI_INDEX_WAIT_S (60 s), else IndexBusy
        ...                                       # build, add, remove, sync, attach-store, uploads

The lock is an flock on ``writer.lock`` in the index folder (in ``.NAME.building`` while NAME does not
exist yet; a fresh build renames that folder, lock file included, into place). The OS drops an flock
when its holder dies, however it dies, so a killed writer never leaves the index locked. The file
holds its owner (pid, host, command, action, since) for the message a waiting writer gets.

A lock can outlive its owner in one case: a child process inherited the descriptor (a fork). When the
owner recorded in the file is a dead process on this host and the record stays the same for
`STALE_CONFIRM_S` while the lock is still held, the lock is broken: the file is replaced by a new one,
and writers lock that. A writer always checks, once it holds the lock, that its file is still the one
in place, so a replaced or moved lock file is never trusted.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

from gaji.errors import ConfigError, IndexUnusableError

from .layout import LOCK, building_dir

__all__ = ["IndexBusy", "Owner", "writer_lock", "lock_path", "read_owner", "wait_seconds", "WAIT_ENV",
           "DEFAULT_WAIT_S"]

log = logging.getLogger(__name__)

WAIT_ENV = "GAJI_INDEX_WAIT_S"
DEFAULT_WAIT_S = 60.0
POLL_S = 0.1
STALE_CONFIRM_S = 1.0


class IndexBusy(IndexUnusableError):
    """Another writer held the index for longer than this writer would wait."""

    def __init__(self, message: str, owner: "Owner | None" = None):
        super().__init__(message)
        self.owner = owner


@dataclass
class Owner:
    """Who holds a writer lock (as recorded in the lock file)."""

    pid: int
    host: str
    command: str
    action: str
    since: str  # UTC, ISO 8601
    time: float  # epoch seconds

    @classmethod
    def me(cls, action: str) -> "Owner":
        now = time.time()
        cmd = " ".join([Path(sys.argv[0]).name] + sys.argv[1:]) if sys.argv and sys.argv[0] else "python"
        return cls(os.getpid(), socket.gethostname(), cmd[:300], action,
                   time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), now)

    def describe(self) -> str:
        age = max(0.0, time.time() - self.time)
        return (f"pid {self.pid} on {self.host} ({self.action} since {self.since}, {age:.0f} s ago; "
                f"command: {self.command})")


def wait_seconds(wait_s: float | None = None) -> float:
    """How long a writer waits for the lock: `wait_s`, else $GAJI_INDEX_WAIT_S, else 60 s."""
    if wait_s is None:
        raw = os.environ.get(WAIT_ENV)
        if raw is None or not raw.strip():
            return DEFAULT_WAIT_S
        try:
            wait_s = float(raw)
        except ValueError:
            raise ConfigError(f"environment {WAIT_ENV}={raw!r}: not a number of seconds") from None
    if not wait_s >= 0:
        raise ConfigError(f"the wait for an index's writer lock must be >= 0 seconds, got {wait_s}")
    return float(wait_s)


def lock_path(target: str | Path) -> Path:
    """The lock file of the index at `target`: in it when it is a folder, else in its build folder."""
    t = Path(target)
    return t / LOCK if t.is_dir() else building_dir(t) / LOCK


def read_owner(path: str | Path) -> Owner | None:
    """The owner recorded in a lock file (None when empty, unreadable or absent)."""
    try:
        return _parse_owner(Path(path).read_bytes())
    except OSError:
        return None


def _parse_owner(raw: bytes) -> Owner | None:
    try:
        d = json.loads(raw.decode("utf-8"))
        return Owner(int(d["pid"]), str(d["host"]), str(d["command"]), str(d["action"]), str(d["since"]),
                     float(d["time"]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _still_in_place(fd: int, path: Path, target: Path) -> bool:
    """Whether the file locked through `fd` is the lock file of `target` now (not replaced, not moved)."""
    if lock_path(target) != path:
        return False
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _replace_lock_file(path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".writer.", suffix=".lock", dir=path.parent)
    os.close(fd)
    os.replace(tmp, path)


class _Stale:
    """Watches a held lock whose recorded owner is dead: broken once the record stayed the same long enough."""

    def __init__(self) -> None:
        self.record: bytes | None = None
        self.since = 0.0

    def confirmed(self, raw: bytes, owner: Owner | None) -> bool:
        dead = owner is not None and owner.host == socket.gethostname() and owner.pid != os.getpid() \
            and not _alive(owner.pid)
        if not dead:
            self.record = None
            return False
        if raw != self.record:
            self.record, self.since = raw, time.monotonic()
            return False
        return time.monotonic() - self.since >= STALE_CONFIRM_S


def _acquire(target: Path, wait_s: float, action: str) -> int:
    deadline = time.monotonic() + wait_s
    stale = _Stale()
    while True:
        path = lock_path(target)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as e:
            raise IndexUnusableError(f"{target}: cannot open the writer lock {path} ({e.strerror}); "
                              "a writer needs write access to the index folder") from None
        if _try_lock(fd):
            if _still_in_place(fd, path, target):
                data = json.dumps(asdict(Owner.me(action)), ensure_ascii=False).encode("utf-8")
                os.ftruncate(fd, 0)
                os.pwrite(fd, data, 0)
                return fd
            os.close(fd)  # replaced or moved while we waited: lock the file in place now
            continue
        raw = os.pread(fd, 65536, 0)
        os.close(fd)
        owner = _parse_owner(raw)
        if stale.confirmed(raw, owner):
            assert owner is not None
            log.warning("%s: breaking the writer lock of %s: that process is gone", target, owner.describe())
            _replace_lock_file(path)
            continue
        if time.monotonic() >= deadline:
            who = owner.describe() if owner else "another process"
            raise IndexBusy(f"{target}: another writer holds this index: {who}; waited {wait_s:g} s. Try again "
                            f"when it is done, or wait longer (--wait SECONDS or {WAIT_ENV})", owner)
        time.sleep(max(0.0, min(POLL_S, deadline - time.monotonic())))


_held = threading.local()  # the indexes this thread holds: a writer calling another writer of the same index


@contextmanager
def writer_lock(target: str | Path, wait_s: float | None = None, action: str = "write") -> Iterator[None]:
    """Hold the writer lock of the index at `target` for the block (IndexBusy after waiting `wait_s`).
    Re-entrant within a thread."""
    key = str(Path(target).resolve())
    held: set[str] = _held.__dict__.setdefault("keys", set())
    if key in held:
        yield
        return
    fd = _acquire(Path(target), wait_seconds(wait_s), action)
    held.add(key)
    try:
        yield
    finally:
        held.discard(key)
        try:
            os.ftruncate(fd, 0)  # no owner recorded: nobody is told a finished writer holds it
        finally:
            os.close(fd)
