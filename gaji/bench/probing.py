"""What the component probes (`gaji bench evaluator`, `decomposer`, `verifier`) share: their common
flags, one model for the probe's calls, and the <out>.md / <out>.json report."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def add_probe_flags(p: argparse.ArgumentParser) -> None:
    """--concurrency, --out and the usual LLM settings (no index: probes do not retrieve)."""
    from gaji.cli.common import add_settings_flags

    p.add_argument("--concurrency", type=int, help="calls at once (default: the LLM's parallel slots)")
    p.add_argument("--out", help="write <out>.md and <out>.json")
    add_settings_flags(p, index=False)


def with_llm(args: argparse.Namespace, work: Callable[[Any, int], T]) -> tuple[T, dict[str, str]]:
    """Build the LLM the flags name, run `work(tracked_llm, concurrency)`, close the LLM. Returns the
    work's result and {"llm": the --llm spec, "model": the model's name} for the report."""
    from gaji.cli.common import settings_from_args
    from gaji.llm.factory import llm_from_settings
    from gaji.llm.tracked import TrackedLLM

    s = settings_from_args(args)
    llm = llm_from_settings(s, cache=False)
    try:
        concurrency = args.concurrency or int(getattr(llm, "parallel_slots", 1) or 1)
        return work(TrackedLLM(llm, retries=s.retries), concurrency), {"llm": s.llm, "model": llm.name}
    finally:
        llm.close()


def report(out: str | None, md: str, payload: dict[str, Any]) -> None:
    """Print the Markdown table; with --out also write <out>.md and <out>.json (atomic)."""
    from gaji.io import atomic_write_json, atomic_write_text

    print(md)
    if out:
        atomic_write_text(Path(out + ".md"), md + "\n")
        atomic_write_json(Path(out + ".json"), payload)


def map_calls(fn: Callable[[Any], T], items: list[Any], concurrency: int) -> list[T]:
    """fn over items, `concurrency` at a time (the LLM's slots), results in the items' order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as ex:
        return list(ex.map(fn, items))
