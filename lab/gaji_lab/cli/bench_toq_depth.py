"""`gaji bench toq-depth`: the ToQ paper's Tables 4 and 5 from runs of `--method toq` (lab/gaji_lab/bench/toq_depth.py);
`gaji bench toq-judge`: how often the per-document relevance judge called a gold paragraph relevant
(lab/gaji_lab/bench/toq_judge.py)."""
from __future__ import annotations

import argparse

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("toq-depth", help="ToQ Tables 4/5: response validity by maximum depth, failures resolved deeper")
    p.add_argument("run", help="a `--method toq` run directory at the default max_depth 4")
    p.add_argument("--depth-run", action="append", default=[], metavar="D=DIR",
                   help="a run with -o max_depth=D over the questions that went deeper than D (repeatable)")
    p.add_argument("--out", help="write the table (.md) and numbers (.json) with this path prefix")
    p.set_defaults(func=_run)
    j = bsub.add_parser("toq-judge", help="ToQ's per-document judge on recorded runs: gold paragraphs judged relevant, "
                        "its share of the tokens")
    j.add_argument("runs", nargs="+", help="`--method toq` run directories (results.jsonl + traces.jsonl)")
    j.set_defaults(func=_judge)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.toq_depth import depth_report

    rep = depth_report(args.run, args.depth_run)
    print(rep.markdown)
    if args.out:
        rep.write(args.out)
    return 0


def _judge(args: argparse.Namespace) -> int:
    from gaji_lab.bench.toq_judge import report

    print(report(args.runs), end="")
    return 0
