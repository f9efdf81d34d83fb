"""`gaji bench followups` (follow-up rewrites, answers with vs without them; lab/gaji_lab/bench/followups.py) and
`gaji bench ttft` (time to the first answer token per method; lab/gaji_lab/bench/ttft.py)."""
from __future__ import annotations

import argparse

from gaji.cli.common import add_settings_flags, settings_from_args

__all__ = ["register"]


def register(bsub) -> None:
    from gaji_lab.bench.followups import PAIRS

    p = bsub.add_parser("followups", help="follow-up rewrite accuracy, and answers with vs without the rewrite")
    p.add_argument("--pairs", default=str(PAIRS), help="the follow-up pairs (default benchmarks/followups/followups.jsonl)")
    p.add_argument("--method", "-m", default="oner", help="method that answers (default oner)")
    p.add_argument("--only", choices=["ko", "en"], help="only the Korean or the English pairs")
    p.add_argument("--limit", type=int, default=0, help="first N pairs of each language")
    p.add_argument("--part", choices=["dev", "report"],
                   help="dev: the odd-numbered pairs of each language (tune on these); report: the even-numbered")
    p.add_argument("--oracle", action="store_true", help="also answer the hand-written standalone question")
    p.add_argument("--answers", action=argparse.BooleanOptionalAction, default=True,
                   help="answer the follow-ups with and without the rewrite (default); --no-answers: rewrites only")
    p.add_argument("--concurrency", type=int, help="pairs at once (default: the LLM's parallel slots)")
    p.add_argument("--index-cache", default=".gaji/indexes", help="where the corpora's indexes are cached (as gaji eval)")
    p.add_argument("--dense", action=argparse.BooleanOptionalAction, default=True,
                   help="index the corpora with dense embeddings too (default; --no-dense: BM25 only, much faster "
                   "to build on a CPU; use --retriever bm25 with it)")
    p.add_argument("--out", default="benchmarks/results/followups", help="result directory")
    add_settings_flags(p, index=False)
    p.add_argument("--retriever", help="bm25 | dense | hybrid (default hybrid)")
    p.add_argument("-k", "--k", type=int, dest="k", help="passages per retrieval (default: the method's)")
    p.set_defaults(func=_followups)

    t = bsub.add_parser("ttft", help="time to the first answer token per method (the answer streamed)")
    t.add_argument("--methods", default="nor,oner,toq", help="comma-separated methods (default nor,oner,toq)")
    t.add_argument("--question", "-q", action="append", help="ask these (repeatable; default: four demo questions)")
    t.add_argument("--out", default="benchmarks/results/ttft", help="result directory")
    add_settings_flags(t)
    t.set_defaults(func=_ttft)


def _followups(args: argparse.Namespace) -> int:
    from gaji_lab.bench.followups import FollowupOptions, run_followups

    opts = FollowupOptions(pairs=args.pairs, method=args.method, only=args.only, part=args.part, limit=args.limit,
                           oracle=args.oracle,
                           answers=args.answers, concurrency=args.concurrency, index_cache=args.index_cache,
                           dense=args.dense, out=args.out)
    run_followups(settings_from_args(args), opts, say=lambda m: print(m, flush=True))
    return 0


def _ttft(args: argparse.Namespace) -> int:
    from gaji_lab.bench.ttft import run_ttft

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    run_ttft(settings_from_args(args), methods, args.question, args.out, say=lambda m: print(m, flush=True))
    return 0
