"""`gaji bench chat-set`: a question set asked through a gaji server's `/v1/chat/completions`, one at a time
(lab/gaji_lab/bench/chat_set.py)."""
from __future__ import annotations

import argparse

from gaji.cli.eval_cmd import question_ids

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("chat-set", help="a question set through /v1/chat/completions as a chat client asks it: "
                                         "answered or refused, time-limit hits, wall time, F1")
    p.add_argument("--data", required=True, help="a set name (komultihop-report, hotpotqa, …) or a question file")
    p.add_argument("--ids", type=question_ids,
                   help="only these question ids, in this order: a comma list or a file, one id a line (default: the "
                   "set's first --limit)")
    p.add_argument("--limit", type=int, help="the first N questions")
    p.add_argument("--out", required=True, help="the JSONL of answers (appended; a stopped run resumes)")
    p.add_argument("--url", help="a running server (default: start `gaji serve` on a free loopback port)")
    p.add_argument("--model", default="gaji", help="the chat model (default gaji: the server's default method)")
    p.add_argument("--timeout", type=float, default=900.0, help="client timeout per question (s)")
    g = p.add_argument_group("the server to start (without --url)")
    g.add_argument("--llm", default="local", help="LLM spec for the started server (default local)")
    g.add_argument("--serve-index", action="append", metavar="[NAME=]DIR", help="index for the started server")
    g.add_argument("--request-timeout", type=float,
                   help="server: time limit per question (s; default the server's own, 300)")
    p.add_argument("--json", dest="json_out", help="also write the summary to this JSON file")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.chat_set import report, run_chat_set

    s = run_chat_set(args.data, args.out, url=args.url, ids=args.ids, limit=args.limit, model=args.model,
                     llm=args.llm, serve_index=args.serve_index, request_timeout=args.request_timeout,
                     timeout=args.timeout)
    print(report(s))
    if args.json_out:
        from gaji.io import atomic_write_json

        atomic_write_json(args.json_out, s)
    return 0
