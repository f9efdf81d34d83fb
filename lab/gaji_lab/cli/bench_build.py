"""`gaji bench build | embed-workers`: how soon a build is searchable (lab/gaji_lab/bench/build_time.py) and embedding in one
process versus worker processes (lab/gaji_lab/bench/embed_workers.py); each writes <out>/<stem>.json and .md and prints the
table."""
from __future__ import annotations

import argparse

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("build", help="time from `gaji index build` to BM25-searchable and to hybrid search")
    p.add_argument("--corpus", default="hotpotqa", help="shared dataset name or corpus file (default hotpotqa)")
    p.add_argument("--work", default=".gaji/bench/build", metavar="DIR", help="the index built (replaced)")
    p.add_argument("--fill-seconds", type=float, default=None, metavar="S",
                   help="stop the vector fill after S seconds and report its rate and ETA (default: wait for it)")
    p.add_argument("--korean-analyzer", choices=["auto", "kiwi", "bigram"], default="auto")
    p.add_argument("--out", default="benchmarks/build", metavar="DIR")
    p.add_argument("--tag", default="build", help="result file name stem")
    p.set_defaults(func=_build)

    w = bsub.add_parser("embed-workers", help="embedding speed: one process vs worker processes, side by side")
    w.add_argument("--corpus", default="hotpotqa", help="shared dataset name or corpus file")
    w.add_argument("--limit", type=int, default=500, help="passages embedded (default 500)")
    w.add_argument("--workers", type=int, default=2)
    w.add_argument("--out", default="benchmarks/build", metavar="DIR")
    w.add_argument("--tag", default="embed-workers", help="result file name stem")
    w.set_defaults(func=_embed_workers)


def _build(args: argparse.Namespace) -> int:
    from gaji_lab.bench.build_time import markdown, run_build_bench
    from gaji_lab.bench.results import save_result

    res = run_build_bench(args.corpus, args.work, fill_seconds=args.fill_seconds, korean_analyzer=args.korean_analyzer)
    save_result(args.out, args.tag, res, markdown(res))
    return 0 if res["bm25_searchable_s"] is not None else 1


def _embed_workers(args: argparse.Namespace) -> int:
    from gaji_lab.bench.embed_workers import markdown, run_embed_workers
    from gaji_lab.bench.results import save_result

    res = run_embed_workers(args.corpus, args.limit, args.workers)
    save_result(args.out, args.tag, res, markdown(res))
    return 0
