"""`gaji bench fuzz-readers`: the bomb corpus read through the worker (each file refused within its limits), then
a mutational fuzz of the document readers for a while (lab/gaji_lab/bench/fuzz_readers.py). Writes <out>/fuzz-readers.json
and .md and prints the table. Exit 1 when a bomb ended otherwise than its case expects or a mutant failed."""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("fuzz-readers", help="bomb corpus + mutational fuzz of the document readers (worker process)")
    p.add_argument("--seconds", type=float, default=300.0, help="how long the fuzz runs (default 300; 0: bombs only)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bomb-mb", type=int, default=1100,
                   help="what the zip bombs expand to, in MB (default 1100, as in the issue's XLSX)")
    p.add_argument("--case", action="append", metavar="NAME", help="only the bomb cases whose name holds NAME")
    p.add_argument("--in-process", action="store_true", help="fuzz in this process instead of the worker (faster)")
    p.add_argument("--work", default=None, metavar="DIR", help="scratch folder (default: a temp dir, removed)")
    p.add_argument("--out", default="benchmarks/durability", metavar="DIR")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.fuzz_readers import markdown, run_bombs, run_fuzz
    from gaji_lab.bench.results import save_result
    from gaji.errors import ConfigError

    if args.seconds < 0 or args.bomb_mb < 1:
        raise ConfigError("--seconds must be 0 or more and --bomb-mb 1 or more")

    def show_bomb(r: dict) -> None:
        print(f"{r['case']}: {r['outcome']} in {r['seconds']} s, worker peak RSS {r['worker_peak_rss_mb']} MB"
              + ("" if r["ok"] else f"  WRONG (expected {', '.join(r['expected'])})"), file=sys.stderr, flush=True)

    def show_fuzz(n: int, s: float, failures: int) -> None:
        print(f"fuzz: {n} files in {s:.0f} s, {failures} failures", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="gaji-fuzz-readers-") as tmp:
        work = Path(args.work or tmp)
        bombs = run_bombs(work / "bombs", names=args.case, size_mb=args.bomb_mb, progress=show_bomb)
        fuzz = None
        if args.seconds > 0:
            fuzz = run_fuzz(work / "fuzz", seconds=args.seconds, seed=args.seed, isolate=not args.in_process,
                            progress=show_fuzz)
    res = {"bombs": bombs, "fuzz": fuzz}
    md = markdown(bombs, fuzz)
    save_result(args.out, "fuzz-readers", res, md)
    bad = [r for r in bombs if "skipped" not in r and not r["ok"]]
    return 1 if bad or (fuzz and fuzz["failures"]) else 0
