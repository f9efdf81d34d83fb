"""What `gaji eval` shows on the terminal: the progress bar with running means, and the summary table."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from gaji.eval.summary import format_value, metric_label
from gaji.progress import Bars, Task

PROGRESS_METRICS = ("em", "f1", "rouge_l", "recall@5", "tokens")


def print_summary(console: Any, title: str, summary: dict, notes: list[str], out: Path | None) -> None:
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("n", justify="right")
    for name, v in summary["metrics"].items():
        t.add_row(metric_label(name), format_value(name, v["mean"]), str(v["n"]))
    qph = summary.get("questions_per_hour")
    t.add_row("questions/hour", f"{qph:,.0f}" if qph else "–", str(summary.get("questions_this_session", 0)))
    t.add_row("errors / failed", f"{summary['errors']} / {summary['failed']}", str(summary["questions"]))
    console.print(t)
    for note in notes:
        console.print(f"[yellow]{note}[/yellow]")
    console.print(f"results in {out}")


class RunningMeans:
    """Running metric means for the progress line (O(1) per finished question)."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.errors = 0

    def add(self, rec: dict, sign: int = 1) -> None:
        self.errors += sign * int(rec.get("status") == "error")
        for k, v in (rec.get("metrics") or {}).items():
            if isinstance(v, (int, float)):
                self.sums[k] = self.sums.get(k, 0.0) + sign * float(v)
                self.counts[k] = self.counts.get(k, 0) + sign

    def has(self, name: str) -> bool:
        return self.counts.get(name, 0) > 0

    def mean(self, name: str) -> float | None:
        n = self.counts.get(name, 0)
        return self.sums[name] / n if n else None


class EvalProgress:
    """The eval bar with running averages (EM, F1, …); plain lines every ~10 % when stderr is not a terminal."""

    def __init__(self, console: Any, total: int, done: int, enabled: bool):
        self._bars = Bars(enabled, console=console, lines=True)
        self._total, self._done = total, done
        self._task: Task | None = None
        self.means = RunningMeans()

    def __enter__(self) -> "EvalProgress":
        self._bars.__enter__()
        self._task = self._bars.task("eval", self._total, self._done)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._bars.__exit__(*exc)

    def stats(self) -> str:
        m = self.means
        parts = [f"{metric_label(n)} {format_value(n, m.mean(n))}" for n in PROGRESS_METRICS if m.has(n)]
        if m.errors:
            parts.append(f"errors {m.errors}")
        return "  ".join(parts)

    def update(self, records: dict[str, dict]) -> None:
        """The questions already done (a resumed run)."""
        for r in records.values():
            self.means.add(r)
        if self._task is not None:
            self._task.status(self.stats())

    def advance(self, rec: dict, previous: dict | None = None) -> None:
        """One question finished; `previous` is its earlier result when it was run again."""
        if previous is not None:
            self.means.add(previous, sign=-1)
        self.means.add(rec)
        if self._task is not None:
            self._task.advance(1, status=lambda _: self.stats())
