"""`gaji bench plot`: the cost–quality plot from the recorded results (lab/gaji_lab/bench/cost_quality.py)."""
from __future__ import annotations

import argparse
import sys

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("plot", help="cost–quality plot: F1 against tokens per question, one point per method and "
                        "set, from the recorded results (auto: one point per effort, from the shipped safety model's "
                        "held-out replay, and one per live run of auto)")
    p.add_argument("--root", default=".", help="repository root holding benchmarks/ (default: .)")
    p.add_argument("--out", default="docs/cost-quality.png", help="the PNG (default docs/cost-quality.png)")
    p.add_argument("--table", help="also write the plotted numbers as markdown here")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.cost_quality import plot, points, table
    from gaji.io import atomic_write_text

    pts = points(args.root)
    out = plot(pts, args.out)
    md = table(pts)
    if args.table:
        atomic_write_text(args.table, md)
    sys.stdout.write(md)
    print(f"wrote {out}" + (f", {args.table}" if args.table else ""), file=sys.stderr)
    return 0
