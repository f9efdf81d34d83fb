"""`gaji bench …`: benchmarks are commands. The sub-commands (retrieval, run, check, …) are added by the
gaji_lab/cli/bench_*.py modules listed in gaji_lab/cli/commands.py; the benchmarks themselves are in lab/gaji_lab/bench/."""
from __future__ import annotations

__all__ = ["register"]


def register(sub):
    """Add `gaji bench` and return its sub-command list."""
    p = sub.add_parser("bench", help="run a benchmark (results go to BENCHMARKS.md / benchmarks/)")
    bsub = p.add_subparsers(dest="bench_command", metavar="BENCHMARK")
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])
    return bsub
