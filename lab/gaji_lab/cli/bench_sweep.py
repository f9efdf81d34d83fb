"""`gaji bench sweep`: one method over a question set once per value of one option (lab/gaji_lab/bench/methods.py)."""
from __future__ import annotations

import argparse

from gaji.cli.common import add_settings_flags, parse_kv, settings_from_args
from gaji.errors import ConfigError

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("sweep", help="evaluate a method once per value of one option (K, steps, …) and tabulate")
    p.add_argument("--data", required=True, help="dataset name or path (as for `gaji eval`)")
    p.add_argument("--method", required=True, help="method name (see `gaji methods`)")
    p.add_argument("--param", required=True, metavar="NAME=V1,V2,…", help="the option to sweep, e.g. k=2,4,6,8")
    p.add_argument("-o", "--option", action="append", dest="options", metavar="KEY=VALUE",
                   help="a fixed method option for every run (repeatable)")
    p.add_argument("--limit", type=int, help="first N questions only")
    p.add_argument("--out", help="parent directory of the runs (default runs/sweep/<dataset>-<method>-<param>)")
    p.add_argument("--ks", default="2,5,10,15", help="k values for recall@k (default 2,5,10,15; IRCoT reports ≤15)")
    p.add_argument("--concurrency", type=int, help="questions in flight at once (default: the LLM's parallel slots)")
    p.add_argument("--overwrite", action="store_true", help="start every run again")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_settings_flags(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.methods import parse_param, sweep, table

    s = settings_from_args(args)
    if s.sources.get("cache") == "default":
        s.cache = True  # as in `gaji eval`: the response cache is on unless --no-cache
    name, values = parse_param(args.param)
    try:
        ks = tuple(sorted({int(x) for x in args.ks.split(",") if x.strip()}))
    except ValueError:
        raise ConfigError(f"--ks must be comma-separated integers, not {args.ks!r}") from None
    rows = sweep(args.data, args.method, name, values, parse_kv(args.options), s, limit=args.limit, out=args.out,
                 ks=ks, concurrency=args.concurrency, overwrite=args.overwrite, progress=not args.quiet)
    print(table(name, rows))
    return 0
