"""`gaji expand judge`: the paper's LLM-judge pass rates (Appendix A.1-A.3) for titles, question sets, keywords.

    gaji expand judge .gaji/expand/koblex-sub/corpus.jsonl --expansions benchmarks/expand/koblex-sub.expansions.jsonl \\
        --out benchmarks/expand/judge-koblex-llm.jsonl --limit 50 --llm local
    gaji expand judge CORPUS --expansions multitask-predictions.jsonl --reference LLM-EXPANSIONS.jsonl --out …
    gaji expand judge --keywords benchmarks/expand/koblex-sub.keyword-labels.jsonl --out … [--tagger DIR]

Verdicts are appended to --out as they come; the same command continues where it stopped.
"""
from __future__ import annotations

import argparse
import json
import sys

from gaji.cli.common import add_settings_flags, settings_from_args, split_names

__all__ = ["register"]


def register(esub) -> None:
    j = esub.add_parser("judge", help="LLM-judge pass rates of titles, question sets and keywords (paper 001, App. A)",
                        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    j.add_argument("corpus", nargs="*", help="the corpus the expansions were made from (for --expansions)")
    j.add_argument("--expansions", metavar="FILE", help="expansions to judge (gaji expand run, or model predictions)")
    j.add_argument("--reference", metavar="FILE", help="expansions shown as the reference (참고용), e.g. the LLM's")
    j.add_argument("--keywords", metavar="FILE", help="keyword labels to judge (gaji expand label)")
    j.add_argument("--tagger", metavar="DIR", help="with --keywords: judge this tagger's keywords for those queries, "
                                                   "the labels' keywords as the reference")
    j.add_argument("--what", default="title,questions", help="for --expansions: title,questions (default both)")
    j.add_argument("--out", required=True, metavar="FILE", help="verdicts JSONL (append-only; a rerun continues)")
    j.add_argument("--limit", type=int, default=None, metavar="N", help="at most N items per kind")
    j.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop starting new items after S s")
    add_settings_flags(j, index=False)
    j.set_defaults(func=_judge)


def _judge(args: argparse.Namespace) -> int:
    from gaji.expand.judge import ExpansionJudge, judge_tasks, run_judge
    from gaji.llm.factory import llm_from_settings

    tasks = judge_tasks(args.corpus, expansions=args.expansions, reference=args.reference,
                        kinds=split_names(args.what), keywords=args.keywords, tagger=args.tagger)
    backend = llm_from_settings(settings_from_args(args))
    summary = run_judge(ExpansionJudge(backend), tasks, args.out, parallel=backend.parallel_slots, limit=args.limit,
                        time_limit=args.time_limit)
    print(json.dumps({"judge": backend.name, "out": args.out, **summary}, ensure_ascii=False))
    print(f"{args.out}: " + "; ".join(f"{k} pass {v['pass_rate']:.1%} of {v['judged']}" for k, v in summary.items()
                                       if v.get("pass_rate") is not None), file=sys.stderr)
    return 0
