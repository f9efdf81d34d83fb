"""The files an index could not take, kept beside it so that a list of its documents can say which and why.

    note_refusals(index_dir, [Refusal("암호.hwp", reason, msg)], read_ok=["보고서.pdf"])
    read_refusals(index_dir)        # [Refusal(file, reason, msg, time)], oldest first
    forget_refusals(index_dir, ["암호.hwp"])

`refused.json` sits in the index folder itself (gaji.index.layout, root-only: not part of a generation):
``{file: {"reason": English text, "msg": gaji.messages.Msg as JSON or null, "time": ISO time}}``. A file
that is read (or removed) later is dropped from it. Writes are atomic; two processes noting refusals at the
same moment may lose one note (the index itself is never at stake).
"""
from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gaji.io import atomic_write_json

from .layout import REFUSED

__all__ = ["Refusal", "note_refusals", "read_refusals", "forget_refusals", "replace_refusals"]

_LOCK = threading.Lock()
MAX_KEPT = 1000  # the newest refusals kept: a folder of junk must not grow the file without end


@dataclass
class Refusal:
    file: str  # as the documents list names it: the path relative to the folder read, or the uploaded name
    reason: str  # English
    msg: dict[str, Any] | None = None  # the reason as a message of the table (gaji.messages.Msg.to_dict)
    time: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "msg": self.msg, "time": self.time}


def _path(index_dir: str | Path) -> Path:
    return Path(index_dir) / REFUSED


def _load(index_dir: str | Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_path(index_dir).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except (ValueError, UnicodeDecodeError, OSError):
        return {}  # an unreadable note is no reason to fail: it is only rewritten
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, dict)} if isinstance(data, dict) else {}


def read_refusals(index_dir: str | Path) -> list[Refusal]:
    out = []
    for name, v in _load(index_dir).items():
        msg = v.get("msg") if isinstance(v.get("msg"), dict) else None
        out.append(Refusal(name, str(v.get("reason") or ""), msg, str(v.get("time") or "")))
    return sorted(out, key=lambda r: r.time)


def note_refusals(index_dir: str | Path, refused: Iterable[Refusal], read_ok: Iterable[str] = ()) -> None:
    """Keep `refused` (a file refused again replaces its old note) and drop the files in `read_ok`."""
    refused = list(refused)
    read_ok = set(read_ok)
    if not Path(index_dir).is_dir():
        return
    with _LOCK:
        data = _load(index_dir)
        if not refused and not (read_ok & set(data)):
            return
        for name in read_ok:
            data.pop(name, None)
        for r in refused:
            data.pop(r.file, None)
            data[r.file] = r.to_dict()
        keep = sorted(data.items(), key=lambda kv: str(kv[1].get("time", "")))[-MAX_KEPT:]
        atomic_write_json(_path(index_dir), dict(keep), indent=None)


def replace_refusals(index_dir: str | Path, refused: Iterable[Refusal]) -> None:
    """Keep only `refused` (a new build of the index: what an earlier one refused does not matter any more)."""
    refused = list(refused)
    if not Path(index_dir).is_dir() or (not refused and not _path(index_dir).exists()):
        return
    with _LOCK:
        atomic_write_json(_path(index_dir), {r.file: r.to_dict() for r in refused[-MAX_KEPT:]}, indent=None)


def forget_refusals(index_dir: str | Path, files: Iterable[str]) -> None:
    note_refusals(index_dir, [], read_ok=files)
