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


def register(esub) -> None:
    from gaji.cli.common import add_settings_flags

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
    from gaji.cli.common import settings_from_args
    from gaji.errors import ConfigError
    from gaji.io import iter_jsonl
    from gaji.llm.factory import llm_from_settings

    from .index_hook import load_expansions
    from .judge import ExpansionJudge, JudgeTask, expansion_tasks, keyword_tasks, run_judge

    if not args.expansions and not args.keywords:
        raise ConfigError("nothing to judge: give --expansions (with the corpus) and/or --keywords")
    tasks: list[JudgeTask] = []
    if args.expansions:
        if not args.corpus:
            raise ConfigError("--expansions needs the corpus they were made from (positional CORPUS)")
        kinds = [k.strip() for k in args.what.split(",") if k.strip()]
        bad = sorted(set(kinds) - {"title", "questions"})
        if bad:
            raise ConfigError(f"--what: unknown kind(s) {', '.join(bad)}; known: title, questions")
        tasks += expansion_tasks(_chunk_texts(args.corpus), load_expansions(args.expansions),
                                 load_expansions(args.reference) if args.reference else None, kinds)
    if args.keywords:
        rows = [r for _, r in iter_jsonl(args.keywords)]
        if args.tagger:
            from .tagger import KeywordTagger

            tagger = KeywordTagger.load(args.tagger)
            rows = [{**r, "reference": ", ".join(r.get("keywords") or []), "keywords": tagger.keywords(r["query"])}
                    for r in rows if r.get("query")]
        tasks += keyword_tasks(rows)
    if not tasks:
        raise ConfigError("no item to judge (do the expansions' chunk ids belong to this corpus?)")
    s = settings_from_args(args)
    backend = llm_from_settings(s)
    summary = run_judge(ExpansionJudge(backend), tasks, args.out, parallel=backend.parallel_slots, limit=args.limit,
                        time_limit=args.time_limit)
    print(json.dumps({"judge": backend.name, "out": args.out, **summary}, ensure_ascii=False))
    print(f"{args.out}: " + "; ".join(f"{k} pass {v['pass_rate']:.1%} of {v['judged']}" for k, v in summary.items()
                                       if v.get("pass_rate") is not None), file=sys.stderr)
    return 0


def _chunk_texts(corpus: list[str]) -> dict[str, str]:
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.index.sources import chunk_all, resolve_sources

    docs, _ = read_documents(resolve_sources(corpus), skip_bad=True)
    return {c.id: (f"{c.title}\n{c.text}" if c.title else c.text) for c in chunk_all(docs, ChunkingConfig())}
