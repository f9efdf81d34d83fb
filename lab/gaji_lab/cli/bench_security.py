"""`gaji bench security`: attack a live `gaji serve` (CSRF, DNS rebinding, traversal, keys, limits, injection
titles) and print a table (lab/gaji_lab/bench/security.py)."""
from __future__ import annotations

import argparse
import sys

__all__ = ["register"]


def register(bsub) -> None:
    from gaji_lab.bench.security import AREAS

    p = bsub.add_parser("security", help="attack a live gaji serve: CSRF, DNS rebinding, traversal, keys, limits, "
                                         "prompt-injection titles")
    p.add_argument("--url", help="a running server (default: start two on loopback, one keyless, one with a key)")
    p.add_argument("--index", default="sec", help="index name to write to on --url (default sec)")
    p.add_argument("--area", action="append", choices=AREAS, help="only these areas (repeatable)")
    p.add_argument("--json", dest="json_out", help="also write the checks to this JSON file")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from gaji_lab.bench.security import AREAS, format_table, run_bench
    from gaji.io import atomic_write_json

    checks = run_bench(args.url, args.index, tuple(args.area or AREAS))
    print(format_table(checks))
    if args.json_out:
        atomic_write_json(args.json_out, {"checks": [asdict(c) for c in checks],
                                          "passed": sum(c.passed for c in checks), "total": len(checks)})
        print(f"wrote {args.json_out}", file=sys.stderr)
    return 0 if all(c.passed for c in checks) else 1
