"""Progress bars for long jobs (index builds, chunk expansion, evaluation runs), all in one layout.

    with Bars(enabled=True) as bars:
        task = bars.task("embedding (e5)", total=n, completed=resumed)
        task.advance(32, status=f"{task.rate():,.0f} passages/s")

On a terminal: a rich bar per task on stderr (description, bar, done/total, status text, elapsed, ETA).
Elsewhere (a log file, CI): nothing, or with ``lines=True`` one plain line per ~10 % of the task, so a
long job's log still shows where it is. Disabled: every call is a no-op, so callers never branch.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["Bars", "Task"]


class Bars:
    def __init__(self, enabled: bool, console: Any = None, lines: bool = False):
        self.enabled = enabled
        self.lines = lines
        self._console = console
        self._p: Any = None

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return self._console

    @property
    def live(self) -> bool:
        return self._p is not None

    def __enter__(self) -> "Bars":
        if self.enabled and self.console.is_terminal:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._p = Progress(
                TextColumn("{task.description:<22}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[status]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=False,
            )
            self._p.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._p is not None:
            self._p.__exit__(*exc)
            self._p = None

    def task(self, description: str, total: int, completed: int = 0) -> "Task":
        return Task(self, description, total, completed)


class Task:
    """One bar: counts what is done in this process (`new`) apart from what a resumed job had done."""

    def __init__(self, bars: Bars, description: str, total: int, completed: int):
        self.bars = bars
        self.description = description
        self.total = total
        self.start = completed
        self.done = completed
        self.t0 = time.perf_counter()
        self._every = max(1, total // 10)
        self._id = None
        if bars.live:
            self._id = bars._p.add_task(description, total=total, completed=completed, status="")

    @property
    def new(self) -> int:
        return self.done - self.start

    def elapsed(self) -> float:
        return max(1e-9, time.perf_counter() - self.t0)

    def rate(self) -> float:
        """Items per second done by this process."""
        return self.new / self.elapsed()

    def advance(self, n: int = 1, status: str | Callable[["Task"], str] | None = None) -> None:
        """Count `n` more done; `status` is the new status text, or a function of the task, called after counting
        (so a rate includes these `n`) and only when something is shown."""
        before = self.done
        self.done += n
        line = (self._id is None and self.bars.enabled and self.bars.lines
                and (self.done // self._every > before // self._every or self.done == self.total))
        if callable(status) and (self._id is not None or line):
            status = status(self)
        if self._id is not None:
            fields = {} if status is None else {"status": status}
            self.bars._p.update(self._id, completed=self.done, **fields)
        elif line:
            self.bars.console.print(f"{self.description} {self.done}/{self.total}  {status or ''}".rstrip())

    def status(self, text: str) -> None:
        """Change the status text without advancing."""
        if self._id is not None:
            self.bars._p.update(self._id, status=text)
