"""`gaji bench documents`: parse speed per document format and folder indexing time (lab/gaji_lab/bench/documents.py);
`gaji bench crossdoc`: Korean two-hop questions across two files of different formats (lab/gaji_lab/bench/crossdoc.py)."""
from __future__ import annotations

import argparse
import sys

from gaji.cli.common import add_settings_flags, settings_from_args

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("documents", help="parse speed per document format and folder indexing time")
    p.add_argument("--folder", default=None, metavar="DIR", help="documents to measure (default: generate them)")
    p.add_argument("--files", type=int, default=50, metavar="N", help="files to generate (default 50)")
    p.add_argument("--extra", nargs="*", default=[], metavar="FILE", help="more files copied into the generated folder")
    p.add_argument("--repeat", type=int, default=3, metavar="N", help="parse passes to time (default 3)")
    p.add_argument("--dense", action="store_true", help="also time an index build with E5 vectors")
    p.add_argument("--work", default=".gaji/bench/documents", metavar="DIR")
    p.add_argument("--out", default="benchmarks/documents", metavar="DIR")
    p.set_defaults(func=_run)

    c = bsub.add_parser("crossdoc", help="Korean two-hop questions whose facts sit in two files of different formats")
    c.add_argument("--methods", default="auto", help="comma-separated methods (default auto)")
    c.add_argument("--dense", action=argparse.BooleanOptionalAction, default=True,
                   help="index with E5 vectors too (default; --no-dense: BM25 only)")
    c.add_argument("--work", default=".gaji/bench/crossdoc", metavar="DIR")
    c.add_argument("--out", default="benchmarks/crossdoc", metavar="DIR")
    add_settings_flags(c, index=False)
    c.set_defaults(func=_crossdoc)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.documents import run

    res = run(folder=args.folder, files=args.files, extra=args.extra, repeat=args.repeat, dense=args.dense,
              work=args.work, out=args.out, command="gaji " + " ".join(sys.argv[1:]))
    print(f"\nresults: {res['json_path']}", file=sys.stderr)
    return 0


def _crossdoc(args: argparse.Namespace) -> int:
    from gaji_lab.bench.crossdoc import run

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    res = run(settings_from_args(args), methods, work=args.work, out=args.out, dense=args.dense,
              say=lambda m: print(m, flush=True))
    print("passed: " + ", ".join(f"{m} {n}/{res['cases']}" for m, n in res["passed"].items()))
    return 0
