"""`gaji bench retrieval`: recall@k, latency and indexing speed of bm25 / dense / hybrid (lab/gaji_lab/bench/retrieval.py)."""
from __future__ import annotations

import argparse
import sys

from gaji_lab.bench.retrieval import DEFAULT_SETS
from gaji.cli.common import split_names

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("retrieval", help="recall@k, latency and indexing speed of bm25 / dense / hybrid")
    p.add_argument("--sets", default=",".join(DEFAULT_SETS), help="comma-separated shared datasets")
    p.add_argument("--retrievers", default="bm25,dense,hybrid")
    p.add_argument("--data", default=None, metavar="DIR", help="shared data folder (default: $GAJI_DATA or ../shared/data)")
    p.add_argument("--work", default=".gaji/bench", metavar="DIR", help="cache of built indexes (default .gaji/bench)")
    p.add_argument("--out", default="benchmarks/retrieval", metavar="DIR", help="where JSON/markdown results go")
    p.add_argument("--max-questions", type=int, default=None, metavar="N", help="first N questions per set")
    p.add_argument("--scale", type=int, default=200_000, metavar="N", help="BM25 scale test size (0 = skip)")
    p.add_argument("--tune", action="store_true", help="grid-search RRF k / weights / depth (cheap, from cached lists)")
    p.add_argument("--rrf-k", type=float, default=None, help="hybrid RRF k (default: the retriever's)")
    p.add_argument("--weights", default=None, help="hybrid weights, e.g. bm25=1,dense=1")
    p.add_argument("--depth", type=int, default=None, help="hybrid candidate depth per component")
    p.add_argument("--rebuild", action="store_true", help="rebuild cached indexes")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--baseline", default=None, metavar="JSON",
                   help="an earlier run's results (e.g. benchmarks/retrieval/latest.json, built with another embedder): "
                   "recall@10 and embedding rates are shown beside it")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.retrieval import run

    res = run(
        sets=split_names(args.sets),
        retrievers=split_names(args.retrievers),
        data=args.data,
        work=args.work,
        out=args.out,
        max_questions=args.max_questions,
        scale=args.scale,
        tune=args.tune,
        hybrid_kw={k: v for k, v in (("rrf_k", args.rrf_k), ("weights", args.weights), ("depth", args.depth)) if v is not None},
        rebuild=args.rebuild,
        baseline=args.baseline,
        progress=args.progress and sys.stderr.isatty(),
        command="gaji " + " ".join(sys.argv[1:]) if sys.argv and sys.argv[0].endswith("gaji") else None,
    )
    print(res["markdown"])
    print(f"\nresults: {res['json_path']}", file=sys.stderr)
    return 0
