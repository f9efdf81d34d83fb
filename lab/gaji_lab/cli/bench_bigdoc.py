"""`gaji bench bigdoc`: one huge document vs the same text as many ~2 KB documents, end to end with vectors
(lab/gaji_lab/bench/bigdoc.py); writes <out>/<tag>.json and .md and prints the table."""
from __future__ import annotations

import argparse

from gaji.cli.common import split_names

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("bigdoc", help="indexing speed per character: one huge document vs many small ones")
    p.add_argument("--chars", type=int, default=300_000, metavar="N", help="characters of text per language (default 300000)")
    p.add_argument("--langs", default="ko,en", help="comma-separated: ko (KorQuAD paragraphs), en (HotpotQA passages)")
    p.add_argument("--piece-chars", type=int, default=2000, metavar="N", help="size of the many small documents (default 2000)")
    p.add_argument("--chunk-size", type=int, default=None, metavar="N", help="chunk size in characters (default: the build's)")
    p.add_argument("--no-dense", action="store_true", help="BM25 only (no embedding)")
    p.add_argument("--rounds", type=int, default=1, help="builds per variant, interleaved; the fastest is kept")
    p.add_argument("--work", default=".gaji/bench/bigdoc", metavar="DIR", help="corpora and indexes (replaced)")
    p.add_argument("--data", default=None, metavar="DIR", help="shared data folder (default: $GAJI_DATA or ../shared/data)")
    p.add_argument("--out", default="benchmarks/bigdoc", metavar="DIR")
    p.add_argument("--tag", default="bigdoc", help="result file name stem")
    p.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    from gaji_lab.bench.bigdoc import markdown, run_bigdoc
    from gaji_lab.bench.results import save_result
    from gaji.errors import ConfigError

    if args.chars < 1 or args.piece_chars < 1 or args.rounds < 1:
        raise ConfigError("bench bigdoc: --chars, --piece-chars and --rounds must be at least 1")
    res = run_bigdoc(chars=args.chars, langs=tuple(split_names(args.langs)), piece_chars=args.piece_chars,
                     work=args.work, dense=not args.no_dense, chunk_size=args.chunk_size, rounds=args.rounds,
                     data=args.data)
    save_result(args.out, args.tag, res, markdown(res))
    return 0
