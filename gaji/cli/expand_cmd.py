"""`gaji expand ...`: chunk knowledge generation (paper 001; gaji/expand/).

    gaji expand run koblex --out runs/koblex.expansions.jsonl --llm local:small   # sidecar JSONL, resumable
    gaji expand run koblex --out runs/kb.jsonl --llm local:small --ray local --workers 2   # sharded over Ray
    gaji index build koblex --out runs/kb --expansions runs/koblex.expansions.jsonl --compose case6
    gaji index build notes/ --out runs/notes --expand --llm local:small          # generate while indexing
    gaji expand show runs/koblex.expansions.jsonl -n 3
    gaji expand keywords "대기오염경보의 대상 오염물질은?" --tagger runs/tagger     # BIO keywords of a query
    gaji expand label koblex --out runs/kw-teacher.jsonl --llm local:small       # teacher BIO labels
    gaji expand train-tagger runs/kw-teacher.jsonl --out runs/tagger              # the small tagger
    gaji expand bench koblex --expansions runs/koblex.expansions.jsonl            # Top@k for Cases 1-7
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["register", "add_expand_flags", "expander_from_args"]


def add_expand_flags(p: argparse.ArgumentParser) -> None:
    """The `gaji index build` flags for chunk expansion (shared with `gaji expand run`)."""
    g = p.add_argument_group("chunk expansion (titles + candidate questions, paper 001)")
    g.add_argument("--expand", action="store_true", help="generate a title and 3 candidate questions per chunk (LLM)")
    g.add_argument("--expansions", metavar="FILE", default=None,
                   help="use ready expansions (JSONL from `gaji expand run`, or an expanded index folder)")
    g.add_argument("--compose", default=None, metavar="CASE",
                   help="passage composition case1..case7 (Table 7; default when expanding: "
                   "gaji.expand.compose.DEFAULT_CASE, the best measured, case7)")
    g.add_argument("--llm", default=None, help="LLM for --expand: local | local:small | openai:MODEL (default: settings)")
    g.add_argument("--base-url", dest="base_url", default=None, help="server URL for openai:MODEL")
    g.add_argument("--parallel", type=int, default=None, help="LLM parallel slots (chunks in flight)")
    g.add_argument("--threads", type=int, default=None, help="CPU threads for the embedded LLM (0 = all)")
    g.add_argument("--expand-lang", choices=["auto", "ko", "en"], default="auto",
                   help="prompt language (default: follows each chunk)")


def expander_from_args(args: argparse.Namespace):
    """An Expander for `--expand` (None when not asked for)."""
    if not getattr(args, "expand", False):
        return None
    from gaji.config import load_settings
    from gaji.expand.generator import Expander
    from gaji.llm.factory import llm_from_settings

    flags = {k: getattr(args, k, None) for k in ("llm", "base_url", "parallel", "threads")}
    s = load_settings(flags)
    if getattr(args, "ray", None):  # the chunks sharded over Ray workers, one LLM each
        from gaji.cli.scale_flags import ray_expander

        return ray_expander(args, s)
    backend = llm_from_settings(s, cache=False)
    return Expander(backend, lang=getattr(args, "expand_lang", "auto"))


def register(sub):
    """Add `gaji expand` with its run and show actions; returns its sub-command list."""
    p = sub.add_parser("expand", help="chunk knowledge generation: titles, candidate questions, query keywords")
    esub = p.add_subparsers(dest="expand_command", metavar="ACTION")

    r = esub.add_parser("run", help="expand the chunks of a corpus into a sidecar JSONL (resumable)")
    r.add_argument("corpus", nargs="+", metavar="CORPUS")
    r.add_argument("--out", required=True, metavar="FILE", help="append-only JSONL of expansions (rerun resumes)")
    r.add_argument("--chunk-size", type=int, default=None)
    r.add_argument("--chunk-overlap", type=int, default=None)
    r.add_argument("--chunk-by", choices=["chars", "tokens"], default="chars")
    r.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N documents")
    r.add_argument("--max-chunks", type=int, default=None, metavar="N", help="only the first N chunks")
    r.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="stop starting new chunks after S seconds (rerun to continue)")
    r.add_argument("--skip-bad", action="store_true")
    r.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    add_expand_flags(r)
    from gaji.cli.scale_flags import add_expand_ray_flags

    add_expand_ray_flags(r)  # --ray ADDRESS --workers N
    r.set_defaults(func=_run, expand=True)

    s = esub.add_parser("show", help="print expansions from a sidecar JSONL or an expanded index")
    s.add_argument("source", metavar="FILE_OR_INDEX")
    s.add_argument("-n", type=int, default=5)
    s.set_defaults(func=_show)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])
    return esub  # the other actions: gaji/cli/expand_keywords.py, expand_judge.py (listed in gaji/cli/main.py)


def _chunks_of(args: argparse.Namespace):
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.index.sources import chunk_all, resolve_sources

    cfg = ChunkingConfig(size=args.chunk_size, overlap=args.chunk_overlap, by=args.chunk_by)
    docs, report = read_documents(resolve_sources(args.corpus), skip_bad=args.skip_bad, limit=args.limit)
    chunks = chunk_all(docs, cfg)
    if args.max_chunks:
        chunks = chunks[: args.max_chunks]
    return chunks, report


def _run(args: argparse.Namespace) -> int:
    from gaji.expand.generator import ExpansionStore

    chunks, _ = _chunks_of(args)
    exp = expander_from_args(args)
    assert exp is not None
    store = ExpansionStore(args.out)
    res = exp.run(chunks, store, progress=args.progress and sys.stderr.isatty(), limit_s=args.time_limit)
    st = res.stats()
    left = len(chunks) - len(res.expansions)
    print(json.dumps(st, ensure_ascii=False))
    print(
        f"{args.out}: {len(res.expansions)}/{len(chunks)} chunks expanded ({res.generated} now, {res.reused} reused, "
        f"{len(res.failed)} failed) with {st['model']} in {st['wall_s']:.1f} s"
        + (f"; {left} left: rerun to continue" if left else ""),
        file=sys.stderr,
    )
    return 0


def _show(args: argparse.Namespace) -> int:
    from gaji.expand.index_hook import load_expansions

    exps = load_expansions(args.source)
    for i, e in enumerate(exps.values()):
        if i >= args.n:
            break
        print(f"{e.chunk_id}  [{e.model}, {e.seconds:.1f} s, {e.prompt_tokens}+{e.completion_tokens} tok]")
        print(f"  title: {e.title}")
        for q in e.questions:
            print(f"  q: {q}")
    print(f"({len(exps)} expansions in {Path(args.source)})", file=sys.stderr)
    return 0
