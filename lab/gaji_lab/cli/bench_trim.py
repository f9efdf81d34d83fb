"""`gaji bench trim`: how much of the evidence passages keep when cut to a character budget (lab/gaji_lab/bench/trim.py).
No model: retrieval only."""
from __future__ import annotations

import argparse

from gaji.cli.common import add_settings_flags, settings_from_args, split_names

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("trim", help="evidence kept when passages are cut to N characters (head or relevant sentences)")
    p.add_argument("--data", default="komultihop-dev", help="question set (default komultihop-dev: sub-answers "
                   "in their paragraphs; other sets: the gold answer)")
    p.add_argument("--chars", default="300,400,500,700", help="character budgets, comma-separated")
    p.add_argument("--trims", default="head,relevant", help="cuts compared at each budget (head, relevant)")
    p.add_argument("--limit", type=int, help="first N questions only")
    p.add_argument("--out", help="write <out>.md and <out>.json")
    add_settings_flags(p)
    p.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    from gaji_lab.bench.probing import report
    from gaji_lab.bench.trim import run_bench
    from gaji.errors import ConfigError

    try:
        budgets = [int(x) for x in split_names(args.chars)]
    except ValueError:
        raise ConfigError(f"--chars must be whole numbers separated by commas, not {args.chars!r}") from None
    report(args.out, run_bench(args.data, settings_from_args(args), budgets, trims=split_names(args.trims),
                               limit=args.limit))
    return 0
