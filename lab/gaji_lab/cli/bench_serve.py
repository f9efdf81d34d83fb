"""`gaji bench serve`: load-test `gaji serve` with N concurrent clients on loopback (lab/gaji_lab/bench/serve.py)."""
from __future__ import annotations

import argparse

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("serve", help="load-test `gaji serve`: N concurrent clients, latency, throughput, errors")
    p.add_argument("--url", help="a running server (default: start `gaji serve` on a free loopback port)")
    p.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    p.add_argument("--duration", type=float, default=10.0, help="seconds to send requests (default 10)")
    p.add_argument("--method", "-m", help="method to ask with (default: nor without --serve-index, else oner)")
    p.add_argument("--index", help="index name on the server")
    p.add_argument("--question", "-q", action="append", help="question(s) to send, round-robin (default: 4 ko/en)")
    p.add_argument("--stream", action="store_true", help="use /api/ask/stream (time to the final event)")
    p.add_argument("--timeout", type=float, default=600.0, help="client timeout per request (s)")
    g = p.add_argument_group("the server to start (without --url)")
    g.add_argument("--llm", default="scripted", help="LLM spec for the started server (default scripted)")
    g.add_argument("--serve-index", action="append", metavar="[NAME=]DIR", help="index for the started server")
    g.add_argument("--slots", type=int, help="server: questions at once")
    g.add_argument("--queue", type=int, help="server: queue length")
    g.add_argument("--request-timeout", type=float, help="server: time limit per question (s)")
    p.add_argument("--json", dest="json_out", help="also write the result to this JSON file")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.serve import passed, report, run_bench

    res = run_bench(args.url, clients=args.clients, duration=args.duration, method=args.method, index=args.index,
                    questions=args.question, stream=args.stream, timeout=args.timeout, llm=args.llm,
                    serve_index=args.serve_index, slots=args.slots, queue=args.queue,
                    request_timeout=args.request_timeout)
    print(report(res))
    if args.json_out:
        from gaji.io import atomic_write_json

        atomic_write_json(args.json_out, res)
    return 0 if passed(res) else 1
