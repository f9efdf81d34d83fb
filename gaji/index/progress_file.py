"""progress.json: what the build, add or fill working on an index is doing, for any process to read
(`GET /api/indexes/{name}`, `gaji index info`, a second terminal):

    {"action": "build", "stage": "embedding", "done": 1200, "total": 6642, "unit": "passages",
     "rate": 5.1, "eta_s": 1067.5, "pid": 4242, "host": "laptop", "started": "2025-06-01T10:00:00Z",
     "updated": 1748772000.0}

Stages, in order: read, chunk, extension (when a build has one), bm25, searchable (BM25 answers from here on), embedding, vectors (writing
them), done; or stopped (interrupted or failed; `stopped_in` says where). `rate` is per second over what this process did in the stage; `eta_s` is what is left at
that rate. The file is replaced atomically at each stage change and each 1 % of a stage, and otherwise
at most every `EVERY_S` seconds. A build writes it in its work folder, which becomes the index folder (or, when the index was there
already, goes on writing it there); adds, removals and fills write it in the index folder. `read_progress`
looks in the index folder and in the build folder beside it.
"""
from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from gaji.io import atomic_write_json
from gaji.progress import Bars, Task

from .layout import PROGRESS, building_dir

__all__ = ["EVERY_S", "ProgressFile", "FileBars", "read_progress", "format_eta"]

EVERY_S = 0.5


def format_eta(seconds: float | None) -> str:
    """12 s, 3 min 05 s, 1 h 02 min."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class ProgressFile:
    """Writes progress.json into `folder` (`moved` follows a work folder that became the index)."""

    def __init__(self, folder: str | Path, action: str):
        self.folder = Path(folder)
        self.state: dict[str, Any] = {
            "action": action, "stage": "", "done": 0, "total": None, "unit": "passages", "rate": None,
            "eta_s": None, "pid": os.getpid(), "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "updated": 0.0,
        }
        self._written = 0.0

    def moved(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def stage(self, stage: str, total: int | None = None, done: int = 0, rate: float | None = None) -> None:
        self.state.update(stage=stage, total=total, done=done, rate=None if rate is None else round(rate, 3),
                          eta_s=None)
        self._write(force=True)

    def stopped(self, why: str) -> None:
        """The job ended before its work was done (killed, interrupted, failed): readers stop waiting."""
        self.state.update(stopped_in=self.state.get("stage"), stage="stopped", error=why, eta_s=None)
        self._write(force=True)

    def count(self, done: int, total: int, rate: float) -> None:
        left = max(0, total - done)
        eta = left / rate if rate > 0 else None
        step = max(1, total // 100)  # every 1 % is written, however fast it comes
        moved = done // step != int(self.state.get("done") or 0) // step
        self.state.update(done=done, total=total, rate=round(rate, 3), eta_s=None if eta is None else round(eta, 1))
        self._write(force=moved or done >= total)

    def _write(self, force: bool) -> None:
        now = time.time()
        if (not force and now - self._written < EVERY_S) or not self.folder.is_dir():
            return  # (a folder that was swapped away is not made again)
        self.state["updated"] = now
        self._written = now
        try:
            atomic_write_json(self.folder / PROGRESS, self.state)
        except OSError:  # the folder was swapped away under us: the next write goes to the new one
            pass


class _FileTask(Task):
    def __init__(self, bars: "FileBars", description: str, total: int, completed: int):
        super().__init__(bars, description, total, completed)
        self.file = bars.file
        if self.file is not None and completed:  # what a resumed job had done already
            self.file.count(completed, total, 0.0)

    def advance(self, n: int = 1, status: Any = None) -> None:
        super().advance(n, status)
        if self.file is not None:
            self.file.count(self.done, self.total, self.rate())


class FileBars(Bars):
    """Progress bars (gaji.progress) whose tasks also report to a ProgressFile."""

    def __init__(self, enabled: bool, file: ProgressFile | None, lines: bool = True):
        super().__init__(enabled, lines=lines)
        self.file = file

    def task(self, description: str, total: int, completed: int = 0) -> Task:
        return _FileTask(self, description, total, completed)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # somebody else's process: it exists
        return True
    return True


def _load(path: Path) -> dict[str, Any] | None:
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def read_progress(index_dir: str | Path) -> dict[str, Any] | None:
    """The latest progress of a job on the index at `index_dir` (or None), with `age_s` (seconds since it
    was written) and `running`: whether the process that wrote it is alive (None when it ran elsewhere).
    A job that stopped before its stage "done" reads as running false."""
    p = Path(index_dir)
    found = [d for d in (_load(f / PROGRESS) for f in (p, building_dir(p))) if d is not None]
    if not found:
        return None
    d = max(found, key=lambda x: float(x.get("updated") or 0.0))
    d["age_s"] = round(max(0.0, time.time() - float(d.get("updated") or 0.0)), 1)
    if d.get("stage") in ("done", "stopped"):
        d["running"] = False
    elif d.get("host") == socket.gethostname() and isinstance(d.get("pid"), int):
        d["running"] = _alive(d["pid"])
    else:
        d["running"] = None
    return d
