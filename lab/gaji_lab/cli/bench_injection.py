"""`gaji bench injection`: do instructions planted in retrieved documents hijack answers? (lab/gaji_lab/bench/injection.py)"""
from __future__ import annotations

import argparse
import sys

from gaji_lab.bench.injection import DEFAULT_DOCS, DEFAULT_QUESTIONS
from gaji.cli.common import add_settings_flags, settings_from_args

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("injection", help="prompt-injection check: do planted instructions hijack answers?")
    p.add_argument("--method", "-m", action="append", help="method(s) to test (default: oner)")
    p.add_argument("--docs", default=DEFAULT_DOCS, help=f"JSONL documents (default {DEFAULT_DOCS})")
    p.add_argument("--questions", default=DEFAULT_QUESTIONS, help=f"JSONL questions (default {DEFAULT_QUESTIONS})")
    p.add_argument("--k", type=int, default=8, help="passages per retrieval (default 8: all documents)")
    p.add_argument("--json", dest="json_out", help="also write the rows and summary to this JSON file")
    add_settings_flags(p, index=False)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.injection import report, run_bench
    from gaji.io import atomic_write_json

    settings = settings_from_args(args)
    result = run_bench(settings, docs=args.docs, questions=args.questions, methods=args.method, k=args.k)
    print(report(result, settings.llm))
    if args.json_out:
        atomic_write_json(args.json_out, result)
        print(f"wrote {args.json_out}", file=sys.stderr)
    return 0
