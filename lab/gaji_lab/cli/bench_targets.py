"""`gaji bench targets`: auto's targets judged from the recorded runs a targets file names
(lab/gaji_lab/bench/targets.py)."""
from __future__ import annotations

import argparse
import sys

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("targets", help="auto's targets (≥ the best fixed method, near the oracle, cost, one call, "
                        "latency) computed from the recorded runs a targets file names")
    p.add_argument("--root", default=".", help="repository root the file's directories are relative to (default: .)")
    p.add_argument("--file", default=None, help="the targets file (default: benchmarks/auto/targets.yaml)")
    p.add_argument("--out", help="also write the table here (docs/auto-targets.md)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji.io import atomic_write_text
    from gaji_lab.bench.targets import TARGETS, run

    _results, md = run(args.file or TARGETS, args.root)
    if args.out:
        atomic_write_text(args.out, md)
    sys.stdout.write(md)
    if args.out:
        print(f"wrote {args.out}", file=sys.stderr)
    return 0
