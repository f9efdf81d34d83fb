"""`gaji expand keywords | chunk-keywords`: the keywords of a query and keyword metadata per chunk, from a trained
tagger or the LLM teacher (gaji/expand/labels.py). Labelling and training the tagger are the lab's commands."""
from __future__ import annotations

import argparse
import json

__all__ = ["register"]


def register(esub) -> None:
    kw = esub.add_parser("keywords", help="the keywords of a query (trained tagger, or --llm for the teacher)")
    kw.add_argument("query")
    kw.add_argument("--tagger", metavar="DIR", default=None, help="tagger folder (default $GAJI_TAGGER)")
    kw.add_argument("--llm", default=None, help="ask this LLM instead (teacher)")
    kw.add_argument("--bio", action="store_true", help="print each morpheme with its label")
    kw.set_defaults(func=_keywords)

    ck = esub.add_parser("chunk-keywords", help="keyword metadata per chunk (the tagger over its candidate questions) "
                         "for the +kwf retrievers' filter")
    ck.add_argument("index", metavar="INDEX", help="an index built with --expand or --expansions")
    ck.add_argument("--tagger", metavar="DIR", default=None, help="tagger folder (default $GAJI_TAGGER)")
    ck.set_defaults(func=_chunk_keywords)


def _keywords(args: argparse.Namespace) -> int:
    from gaji.expand.keywords import decode_bio
    from gaji.expand.labels import query_keywords

    toks, labels = query_keywords(args.query, tagger=args.tagger, llm=args.llm)
    if args.bio:
        for m, lab in zip(toks, labels):
            print(f"{m.form}\t{m.tag}\t{lab}")
    print(json.dumps(decode_bio(args.query, toks, labels), ensure_ascii=False))
    return 0


def _chunk_keywords(args: argparse.Namespace) -> int:
    from gaji.expand.labels import index_chunk_keywords

    print(json.dumps(index_chunk_keywords(args.index, args.tagger), ensure_ascii=False))
    return 0
