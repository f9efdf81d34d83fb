"""`gaji bench evaluator | decomposer | verifier`: the component probes (lab/gaji_lab/bench/evaluator.py, decomposer.py,
verifier.py), which share their flags: --concurrency, --out and the LLM settings (no index: probes do not retrieve).
"""
from __future__ import annotations

import argparse

from gaji.cli.common import add_settings_flags, settings_from_args

__all__ = ["register"]


def add_probe_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--concurrency", type=int, help="calls at once (default: the LLM's parallel slots)")
    p.add_argument("--out", help="write <out>.md and <out>.json")
    add_settings_flags(p, index=False)


def register(bsub) -> None:
    p = bsub.add_parser("evaluator", help="ToQ query evaluator vs labelled responses (gold / bridge entity / other answer)")
    p.add_argument("--data", default="hotpotqa", help="question set with gold answers (default hotpotqa)")
    p.add_argument("--offset", type=int, default=50, help="skip the first N questions (the reported ones; default 50)")
    p.add_argument("--limit", type=int, default=40, help="questions used (default 40)")
    add_probe_flags(p)
    p.set_defaults(func=_evaluator)

    p = bsub.add_parser("decomposer", help="ToQ decomposer vs the gold question shape (chain / comparison)")
    p.add_argument("--data", default="hotpotqa", help="question sets with shape labels, comma-separated "
                   "(hotpotqa, 2wikimultihopqa, musique; default hotpotqa)")
    p.add_argument("--offset", type=int, default=50, help="skip the first N questions of each set (the reported ones; "
                   "default 50)")
    p.add_argument("--limit", type=int, default=60, help="questions taken from each set after the offset (default 60; "
                   "those without a shape label are skipped)")
    p.add_argument("--max-children", type=int, default=4, help="sub-questions per decomposition (ToQ's default 4)")
    p.add_argument("--decomposer", choices=("paper", "routed"), default="paper",
                   help="paper: Prompt B.2 (default); routed: the shape router + one prompt per shape")
    p.add_argument("--router", default="", help="routed: a router file (default: the shipped one)")
    add_probe_flags(p)
    p.set_defaults(func=_decomposer)

    p = bsub.add_parser("verifier", help="ConTReGen verification step (i): own vs another question's sub-questions")
    p.add_argument("run", help="a finished ConTReGen run directory (traces.jsonl)")
    p.add_argument("--limit", type=int, default=20, help="questions of the run used (default 20)")
    p.add_argument("--offset", type=int, default=0, help="skip the run's first N questions (default 0)")
    p.add_argument("--topic-gate", type=float, metavar="T",
                   help="also score the E5 topic gate at cosine T, alone and with the LLM (our extension)")
    p.add_argument("--gate-only", action="store_true", help="score the topic gate only (no LLM; needs --topic-gate)")
    add_probe_flags(p)
    p.set_defaults(func=_verifier)


def _evaluator(args: argparse.Namespace) -> int:
    from gaji_lab.bench import evaluator
    from gaji_lab.bench.probing import report

    report(args.out, evaluator.run_bench(args.data, settings_from_args(args), offset=args.offset, limit=args.limit,
                                         concurrency=args.concurrency))
    return 0


def _decomposer(args: argparse.Namespace) -> int:
    from gaji_lab.bench import decomposer
    from gaji_lab.bench.probing import report

    report(args.out, decomposer.run_bench(args.data, settings_from_args(args), offset=args.offset, limit=args.limit,
                                          max_children=args.max_children, decomposer=args.decomposer,
                                          router=args.router, concurrency=args.concurrency))
    return 0


def _verifier(args: argparse.Namespace) -> int:
    from gaji_lab.bench import verifier
    from gaji_lab.bench.probing import report

    report(args.out, verifier.run_bench(args.run, settings_from_args(args), limit=args.limit, offset=args.offset,
                                        topic_gate=args.topic_gate, gate_only=args.gate_only,
                                        concurrency=args.concurrency))
    return 0
