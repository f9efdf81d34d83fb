"""What the component probes (`gaji bench evaluator`, `decomposer`, `verifier`) share: one model for the
probe's calls, the calls in parallel, and the <out>.md / <out>.json report. Their flags: lab/gaji_lab/cli/bench_probes.py."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def with_llm(settings: Any, concurrency: int | None, work: Callable[[Any, int], T]) -> tuple[T, dict[str, str]]:
    """Build the LLM the settings name, run `work(tracked_llm, concurrency)` (default concurrency: the LLM's
    parallel slots), close the LLM. Returns the work's result and {"llm": the --llm spec, "model": the model's
    name} for the report."""
    from gaji.llm.factory import llm_from_settings
    from gaji.llm.tracked import TrackedLLM

    llm = llm_from_settings(settings, cache=False)
    try:
        n = concurrency or int(getattr(llm, "parallel_slots", 1) or 1)
        return work(TrackedLLM(llm, retries=settings.retries), n), {"llm": settings.llm, "model": llm.name}
    finally:
        llm.close()


@dataclass
class ProbeReport:
    """A probe's Markdown table and the numbers (with every verdict) behind it."""

    markdown: str
    payload: dict[str, Any]


def report(out: str | None, rep: ProbeReport) -> None:
    """Print the Markdown table; with `out` also write <out>.md and <out>.json (atomic)."""
    from gaji.io import atomic_write_json, atomic_write_text

    print(rep.markdown)
    if out:
        atomic_write_text(Path(out + ".md"), rep.markdown + "\n")
        atomic_write_json(Path(out + ".json"), rep.payload)


def map_calls(fn: Callable[[Any], T], items: list[Any], concurrency: int) -> list[T]:
    """fn over items, `concurrency` at a time (the LLM's slots), results in the items' order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as ex:
        return list(ex.map(fn, items))
