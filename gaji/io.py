"""Files that survive crashes: atomic writes (a temp file in the same folder, fsync, rename, folder fsync),
append-only JSONL logs whose torn last line is repaired before the next append, and the JSONL readers
(strict `iter_jsonl` for inputs, `read_jsonl_tolerant` for gaji's own resumable logs). A log kept compressed
(`name.jsonl.xz`, as recorded benchmark traces are) is read through the same readers, and decompressed back in
place before anything is appended to it."""
from __future__ import annotations

import hashlib
import json
import logging
import lzma
import os
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

# The process umask, read once at import (os.umask can only be read by setting it): a new file gets
# 0o666 & ~umask, as open() would give it; mkstemp alone would leave it 0o600.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def _mode_for(path: Path) -> int:
    """An existing file keeps its permission bits; a new one gets what open() would give it."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_UMASK


@contextmanager
def atomic_open(path: str | Path, suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """A binary file to write `path` through: a temp file beside it (".<name>.<random><suffix>"), fsynced and
    renamed over `path` when the block ends; on an exception the temp file is removed and `path` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    try:
        os.fchmod(fd, _mode_for(path))
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    with atomic_open(path) as f:
        f.write(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, obj: Any, indent: int | None = 2) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=indent) + "\n")


def fsync_dir(path: str | Path) -> None:
    """Flush a folder's entries to disk, so a rename or a new file inside it survives a power cut (a rename
    is durable only once its folder is synced). Filesystems that cannot sync a folder are left alone."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # EINVAL on filesystems without directory fsync (some network and FUSE mounts)
        pass
    finally:
        os.close(fd)


def rename_durably(src: str | Path, dst: str | Path) -> None:
    """os.replace(src, dst), then sync the folder(s) holding both names."""
    os.replace(src, dst)
    parents = {Path(dst).resolve().parent, Path(src).resolve().parent}
    for d in parents:
        fsync_dir(d)


# -- logs kept compressed ---------------------------------------------------------------------------
# Recorded runs keep their full traces xz-compressed (`traces.jsonl.xz`) to keep the tree small. Readers name the
# plain file; `open_read` finds the compressed one when only it exists, so no reader needs to know.
XZ = ".xz"


def stored_path(path: str | Path) -> Path:
    """Where `path` is stored: itself when it exists, else `path.xz` when only that exists, else `path`."""
    path = Path(path)
    if path.exists() or path.suffix == XZ:
        return path
    xz = path.with_name(path.name + XZ)
    return xz if xz.exists() else path


def log_exists(path: str | Path) -> bool:
    """True when `path` or its compressed form `path.xz` exists as a file."""
    return stored_path(path).is_file()


def open_read(path: str | Path) -> BinaryIO:
    """`path` opened for binary reading, decompressed on the fly when it is stored as xz (named `*.xz`, or only
    `path.xz` exists). FileNotFoundError when neither exists."""
    p = stored_path(path)
    if p.suffix == XZ:
        return lzma.open(p, "rb")  # type: ignore[return-value]
    return open(p, "rb")


def remove_log(path: str | Path) -> None:
    """Delete a log in both its forms (`path` and `path.xz`), when present."""
    path = Path(path)
    path.unlink(missing_ok=True)
    path.with_name(path.name + XZ).unlink(missing_ok=True)


def inflate(path: str | Path) -> bool:
    """When only `path.xz` exists, write its decompressed text to `path` (atomically) and remove the `.xz`, so that
    an append continues the recorded log instead of starting a second one beside it. True when it inflated."""
    path = Path(path)
    xz = path.with_name(path.name + XZ)
    if path.exists() or not xz.is_file():
        return False
    with lzma.open(xz, "rb") as src, atomic_open(path) as dst:
        for chunk in iter(lambda: src.read(1 << 20), b""):
            dst.write(chunk)
    xz.unlink()
    fsync_dir(path.parent)
    return True


def read_model_file(path: str | Path, kind: str, fmt: str, train_hint: str) -> dict[str, Any]:
    """A trained model's JSON file (a router's weights): the object, or a ConfigError that names the file and says
    what is wrong (missing: how to train one; not JSON; a "format" field other than `fmt`)."""
    from gaji.errors import ConfigError

    p = Path(path)
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{p}: no {kind} here (train one with `{train_hint}`)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{p}: not a {kind} file: {e}") from None
    if not isinstance(obj, dict) or obj.get("format") != fmt:
        got = obj.get("format") if isinstance(obj, dict) else None
        raise ConfigError(f"{p}: field 'format' is {got!r}, expected {fmt!r}")
    return obj


# -- append-only JSONL logs -------------------------------------------------------------------------
# gaji resumes from its own JSONL logs (eval results and traces, expansions, synthesis chains, bench
# partials). A crash can tear the last line; before the next append the tail is repaired, so a new
# record never lands glued to a broken one.
_append_locks: dict[str, threading.Lock] = {}
_append_locks_guard = threading.Lock()
log = logging.getLogger("gaji.io")
TAIL_SCAN = 1 << 16


def _lock_for(path: Path) -> threading.Lock:
    key = os.path.abspath(path)
    with _append_locks_guard:
        return _append_locks.setdefault(key, threading.Lock())


def _last_newline(f: BinaryIO, size: int) -> int:
    """The offset just after the last b"\n" of an open file of `size` bytes (0 when there is none)."""
    end = size
    while end > 0:
        start = max(0, end - TAIL_SCAN)
        f.seek(start)
        i = f.read(end - start).rfind(b"\n")
        if i >= 0:
            return start + i + 1
        end = start
    return 0


def _is_record(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError):
        return False


def repair_jsonl_tail(path: str | Path) -> int:
    """Make `path` end at a line boundary. A last line without its newline is a write torn by a crash:
    it is cut off (one ftruncate, so a crash during the repair loses nothing complete), unless it is a
    whole JSON object, which only gets its newline. Returns the number of bytes dropped."""
    path = Path(path)
    with _lock_for(path):
        inflate(path)
        return _repair_tail(path)


def _repair_tail(path: Path) -> int:
    try:
        f = open(path, "rb+")
    except FileNotFoundError:
        return 0
    with f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return 0
        keep = _last_newline(f, size)
        f.seek(keep)
        tail = f.read(size - keep)
        if _is_record(tail):
            f.seek(size)
            f.write(b"\n")
            dropped = 0
        else:
            f.truncate(keep)
            dropped = size - keep
        f.flush()
        os.fsync(f.fileno())
    if dropped:  # the torn line's number: the complete lines before it, plus one
        log.warning("%s:%d: dropped a torn last line (%d bytes, no newline) left by an interrupted write",
                    path, _count_lines(path) + 1, dropped)
    return dropped


def _count_lines(path: Path) -> int:
    n = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            n += chunk.count(b"\n")
    return n


def append_jsonl(path: str | Path, obj: Any) -> None:
    """Append one JSON line and fsync. A torn last line (a crash mid-append) is repaired first, so the new
    record starts on a line of its own; readers skip what cannot be read (`read_jsonl_tolerant`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
    with _lock_for(path):
        inflate(path)
        _repair_tail(path)
        with open(path, "ab") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())


@dataclass
class LineProblem:
    """A line of a JSONL file that could not be read: where, and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


def _decode_line(raw: bytes, n: int, nfc: bool = True) -> str:
    """One line as text (a BOM on line 1 dropped), in NFC unless `nfc` is off; UnicodeDecodeError when it is
    not UTF-8."""
    from gaji.text.normalize import normalize_text

    if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = raw.decode("utf-8")
    return normalize_text(text) if nfc else text


def _tolerant_lines(f: BinaryIO, path: str | Path, found: list[LineProblem]) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) of an open log; a damaged or cut-off .xz ends the lines there, reported in `found`
    (what came before the damage is kept)."""
    n = 0
    try:
        for n, raw in enumerate(f, 1):
            yield n, raw
    except (lzma.LZMAError, EOFError) as e:
        found.append(LineProblem(str(stored_path(path)), n + 1,
                                 f"compressed data damaged or cut off ({e}); the rest is skipped"))


def read_jsonl_tolerant(path: str | Path, problems: list[LineProblem] | None = None) -> list[dict]:
    """The JSON objects of a (possibly interrupted or damaged) JSONL log, in file order. A line that is not
    UTF-8, not JSON or not an object is skipped and reported (file:line) -- appended to `problems` when
    given, else logged as a warning -- never raised."""
    path = Path(path)
    out: list[dict] = []
    found: list[LineProblem] = []
    try:
        f = open_read(path)
    except FileNotFoundError:
        return out
    with f:
        for n, raw in _tolerant_lines(f, path, found):
            if not raw.strip():
                continue
            try:
                obj = json.loads(_decode_line(raw, n))
            except UnicodeDecodeError as e:
                found.append(LineProblem(str(path), n, f"not UTF-8 (byte {e.start + 1} of the line); skipped"))
                continue
            except ValueError as e:
                torn = "" if raw.endswith(b"\n") else ", a torn last line"
                found.append(LineProblem(str(path), n, f"not valid JSON ({getattr(e, 'msg', e)}{torn}); skipped"))
                continue
            if isinstance(obj, dict):
                out.append(obj)
            else:
                found.append(LineProblem(str(path), n, "not a JSON object; skipped"))
    if problems is not None:
        problems.extend(found)
    else:
        for p in found[:5]:
            log.warning("%s", p)
        if len(found) > 5:
            log.warning("%s: %d more unreadable line(s) skipped", path, len(found) - 5)
    return out


def iter_jsonl(path: str | Path, nfc: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file (UTF-8, a BOM allowed, read in NFC;
    `nfc=False` reads the text as stored, for checkers of the form itself). InputError naming the file and
    line when the file is missing or unreadable, a line is not UTF-8, not JSON or not a JSON object."""
    from gaji.errors import InputError

    n = 0
    try:
        with open_read(path) as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    line = _decode_line(raw, n, nfc)
                except UnicodeDecodeError as e:
                    raise InputError(f"not UTF-8 (line {n}, byte {e.start + 1})", str(path)) from None
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"not valid JSON: {e.msg} (column {e.colno})", str(path), n) from None
                if not isinstance(obj, dict):
                    raise InputError("each line must be a JSON object", str(path), n)
                yield n, obj
    except FileNotFoundError:
        raise InputError("file not found", str(path)) from None
    except (lzma.LZMAError, EOFError) as e:
        raise InputError(f"compressed data damaged or cut off after line {n} ({e})", str(stored_path(path))) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", str(path)) from None
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror or e})", str(path)) from None


def file_sha256(path: str | Path, progress: Callable[[int, int], None] | None = None) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks; `progress(done, total)` after each block. The one file-hash
    helper: datasets, the embedder's weights and the model files are all hashed with it."""
    h = hashlib.sha256()
    total, done = os.path.getsize(path), 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            done += len(block)
            if progress:
                progress(done, total)
    return h.hexdigest()
