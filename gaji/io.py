"""Atomic file writes: write a temp file in the same folder, fsync, rename. A crash never leaves half a file."""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterator

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


def append_jsonl(path: str | Path, obj: Any) -> None:
    """Append one JSON line and fsync (for resumable logs: a torn last line is ignored by readers)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(obj, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file (UTF-8, a BOM allowed). InputError naming
    the file and line when the file is missing or unreadable, a line is not JSON or is not a JSON object."""
    from gaji.errors import InputError

    try:
        with open(path, "r", encoding="utf-8-sig") as f:
            for n, line in enumerate(f, 1):
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
    except UnicodeDecodeError:
        raise InputError("not UTF-8", str(path)) from None
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror or e})", str(path)) from None
