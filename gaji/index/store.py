"""The on-disk index: chunks + BM25 (tantivy) + dense vectors, built atomically, opened lazily.

    idx = build_index(["corpus.jsonl", "notes/"], "runs/idx")        # or Documents, or "hotpotqa"
    idx = open_index("runs/idx")
    idx.retriever("hybrid").search("질문", k=5)
    idx.add(["more.jsonl"])                                            # new chunks only are embedded

Layout of an index folder::

    manifest.json         written last (see gaji.index.manifest); no complete manifest = no index
    chunks.jsonl          row i = chunk i as JSON; a deleted row is `null`
    chunks.offsets.npy    int64 byte offsets of the rows (O(1) random access through mmap)
    chunks.ids.json       [[chunk_id, doc_id] | null] per row
    lexical/              tantivy BM25 index (optional)
    dense/vectors.npy     float32 [rows x 384] (optional), dense/hnsw.faiss for the HNSW backend

Atomicity: a build writes into ``.<name>.building`` beside the target and renames it into place when
complete. An interrupted build leaves only that folder: rerunning the same build resumes it (embeddings
are checkpointed every `checkpoint_rows` chunks; chunks and BM25 are redone, they are cheap), while a
build with different inputs or settings wipes it and starts clean. `Index.add` works on a copy
(``.<name>.adding``) and swaps it in the same way.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji.corpus.chunking import ChunkingConfig, chunk_document
from gaji.corpus.readers import ReadReport, read_documents
from gaji.errors import ConfigError, IndexError_
from gaji.io import atomic_write_bytes, atomic_write_json, fsync_dir
from gaji.progress import Bars
from gaji.types import Chunk, Document

from .manifest import (
    MANIFEST,
    Manifest,
    check_compatible,
    current_versions,
    read_manifest,
    utc_now,
    write_manifest,
)

__all__ = ["Index", "ChunkStore", "AddResult", "build_index", "open_index", "is_index"]

CHUNKS = "chunks.jsonl"
OFFSETS = "chunks.offsets.npy"
IDS = "chunks.ids.json"
LEXICAL_DIR = "lexical"
DENSE_DIR = "dense"
PARTS_DIR = "dense-parts"
STATE = "build-state.json"
ANALYZE_BATCH = 512


# ---------------------------------------------------------------------------------------------
# chunk store
# ---------------------------------------------------------------------------------------------


class ChunkStore:
    """Rows of chunks on disk, read on demand (mmap + offsets); deleted rows read as None."""

    def __init__(self, index_dir: str | Path):
        self.dir = Path(index_dir)
        self._offsets = np.load(self.dir / OFFSETS)
        self._file = open(self.dir / CHUNKS, "rb")
        size = os.fstat(self._file.fileno()).st_size
        self._mm = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._ids: list[list[str] | None] | None = None
        self._row_of: dict[str, int] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def close(self) -> None:
        if isinstance(self._mm, mmap.mmap):
            self._mm.close()
        self._file.close()

    def get(self, row: int) -> Chunk | None:
        if not 0 <= row < len(self):
            raise IndexError(row)
        raw = self._mm[int(self._offsets[row]) : int(self._offsets[row + 1])]
        d = json.loads(raw)
        return Chunk.from_dict(d) if d is not None else None

    def _load_ids(self) -> None:
        with self._lock:
            if self._ids is None:
                ids = json.loads((self.dir / IDS).read_text(encoding="utf-8"))
                self._row_of = {e[0]: i for i, e in enumerate(ids) if e is not None}
                self._ids = ids

    def row_of(self, chunk_id: str) -> int | None:
        self._load_ids()
        assert self._row_of is not None
        return self._row_of.get(chunk_id)

    def id_pairs(self) -> list[list[str] | None]:
        """[chunk_id, doc_id] per row (None for deleted rows)."""
        self._load_ids()
        assert self._ids is not None
        return self._ids

    def live_mask(self) -> np.ndarray:
        return np.array([e is not None for e in self.id_pairs()], dtype=bool)

    def __iter__(self) -> Iterator[Chunk]:
        for r in range(len(self)):
            c = self.get(r)
            if c is not None:
                yield c

    @staticmethod
    def write(index_dir: str | Path, rows: Iterable[Chunk | None]) -> int:
        """Write the chunk files for `rows` (None = deleted row); returns the number of rows."""
        d = Path(index_dir)
        d.mkdir(parents=True, exist_ok=True)
        offsets = [0]
        ids: list[list[str] | None] = []
        tmp = d / f".{CHUNKS}.tmp"
        with open(tmp, "wb") as f:
            for c in rows:
                if c is None:
                    line = b"null\n"
                    ids.append(None)
                else:
                    line = (json.dumps(c.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
                    ids.append([c.id, c.doc_id])
                f.write(line)
                offsets.append(offsets[-1] + len(line))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, d / CHUNKS)
        import io

        buf = io.BytesIO()
        np.save(buf, np.asarray(offsets, dtype=np.int64))
        atomic_write_bytes(d / OFFSETS, buf.getvalue())
        atomic_write_json(d / IDS, ids, indent=None)
        return len(ids)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _passages_per_s(task) -> str:
    return f"{task.rate():,.0f} passages/s"


def _fingerprint(chunks: Sequence[Chunk], chunking: ChunkingConfig) -> str:
    h = hashlib.sha256(json.dumps(chunking.to_dict(), sort_keys=True).encode())
    for c in chunks:
        h.update(b"\x00" + c.id.encode() + b"\x01" + c.title.encode() + b"\x02" + c.text.encode())
    return h.hexdigest()


def _lexical_text(c: Chunk, compose: str | None = None) -> str:
    if compose:  # an expanded index (issue 8): title / candidate questions / chunk, per the composition
        from gaji.expand.compose import lexical_text

        return lexical_text(compose, c)
    return f"{c.title}\n{c.text}" if c.title else c.text


def _dense_text(c: Chunk, compose: str | None = None) -> str:
    """What gets embedded: the chunk (gaji.index.dense.passage_text), or its composition (issue 8)."""
    if compose:
        from gaji.expand.compose import compose as compose_passage

        return compose_passage(compose, c)
    from .dense import passage_text

    return passage_text(c)


def _resolve_sources(sources: Any) -> list[Any]:
    """Paths, dataset names and Documents -> paths/Documents (dataset names resolved)."""
    from gaji.corpus.shared_data import resolve_corpus

    if isinstance(sources, (str, Path, Document)):
        sources = [sources]
    out: list[Any] = []
    for s in sources:
        out.append(s if isinstance(s, Document) else resolve_corpus(s))
    return out


def _source_names(sources: Sequence[Any]) -> list[str]:
    names = [str(s) for s in sources if not isinstance(s, Document)]
    n_docs = sum(1 for s in sources if isinstance(s, Document))
    if n_docs:
        names.append(f"<{n_docs} documents>")
    return names


def _chunk_all(docs: Sequence[Document], cfg: ChunkingConfig) -> list[Chunk]:
    chunks: list[Chunk] = []
    seen: dict[str, str] = {}
    for d in docs:
        for c in chunk_document(d, cfg):
            if c.id in seen:
                raise IndexError_(
                    f"chunk id {c.id!r} of document {d.id!r} collides with a chunk of document {seen[c.id]!r}; "
                    "rename one of the documents"
                )
            seen[c.id] = d.id
            chunks.append(c)
    return chunks


def _check_target(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise ConfigError(f"{out} exists and is not a folder")
        if not (out / MANIFEST).exists() and any(out.iterdir()):
            raise ConfigError(f"{out} exists, is not empty and is not a gaji index: refusing to overwrite it")


def _swap_in(tmp: Path, out: Path) -> None:
    """Move the finished folder `tmp` to `out`, replacing an old index there."""
    if out.exists():
        backup = out.parent / f".{out.name}.old"
        if backup.exists():
            shutil.rmtree(backup)
        os.rename(out, backup)
        os.rename(tmp, out)
        shutil.rmtree(backup, ignore_errors=True)
    else:
        os.rename(tmp, out)
    fsync_dir(out.parent)  # the renames are durable only once the parent folder is synced


def _analyze_and_index(
    lex_dir: Path, items: Sequence[tuple[int, Chunk]], analyzer, prog: Bars, stats: dict[str, float],
    create: bool, delete_rows: Sequence[int] = (), compose: str | None = None,
) -> None:
    """Analyse chunks and add them as (row, terms) to the BM25 index in `lex_dir`."""
    from .lexical import LexicalIndex

    if create:
        if lex_dir.exists():
            shutil.rmtree(lex_dir)
        LexicalIndex.create(lex_dir)
    lex = LexicalIndex(lex_dir)
    t0 = time.perf_counter()
    if hasattr(analyzer, "warmup"):
        analyzer.warmup()
    stats["analyzer_load_s"] = stats.get("analyzer_load_s", 0.0) + time.perf_counter() - t0
    t_index = 0.0
    t_analyze = 0.0
    t0 = time.perf_counter()
    writer = lex.writer()
    t_index += time.perf_counter() - t0
    writer.delete_many(list(delete_rows))
    task = prog.task("BM25 analyse + index", len(items))
    for start in range(0, len(items), ANALYZE_BATCH):
        batch = items[start : start + ANALYZE_BATCH]
        t0 = time.perf_counter()
        texts = [_lexical_text(c, compose) for _, c in batch]
        terms = list(analyzer.analyze_many(texts, [c.lang for _, c in batch]))
        bodies = [" ".join(t) for t in terms]
        t1 = time.perf_counter()
        for (row, _), body in zip(batch, bodies):
            writer.add_text(row, body)
        t2 = time.perf_counter()
        t_analyze += t1 - t0
        t_index += t2 - t1
        task.advance(len(batch), status=_passages_per_s)
    t0 = time.perf_counter()
    writer.close()
    t_index += time.perf_counter() - t0
    stats["analyze_s"] = stats.get("analyze_s", 0.0) + t_analyze
    stats["lexical_index_s"] = stats.get("lexical_index_s", 0.0) + t_index
    stats["lexical_docs"] = stats.get("lexical_docs", 0) + len(items)


def _embed_rows(
    texts: Sequence[str], embedder, parts_dir: Path, prog: Bars, checkpoint_rows: int, stats: dict[str, float]
) -> np.ndarray:
    """Embed `texts`, checkpointing every `checkpoint_rows` into parts_dir; resumes from existing parts."""
    from .dense import save_npy_atomic

    parts_dir.mkdir(parents=True, exist_ok=True)
    n = len(texts)
    parts: list[np.ndarray] = []
    done = 0
    for p in sorted(parts_dir.glob("*.npy")):
        try:
            a, b = (int(x) for x in p.stem.split("-"))
            arr = np.load(p)
        except (ValueError, OSError):
            p.unlink()
            continue
        if a != done or b > n or arr.shape[0] != b - a:
            p.unlink()  # not contiguous with what we have: drop it and redo those rows
            continue
        parts.append(arr)
        done = b
    stats["resumed_rows"] = done
    task = prog.task("embedding (e5)", n, completed=done)
    t0 = time.perf_counter()
    batch = max(1, min(checkpoint_rows, 64))
    pending: list[np.ndarray] = []
    pending_start = done
    while done < n:
        end = min(n, done + batch)
        pending.append(embedder.embed_passages(list(texts[done:end])))
        task.advance(end - done, status=_passages_per_s)
        done = end
        if done - pending_start >= checkpoint_rows or done == n:
            block = np.concatenate(pending) if len(pending) > 1 else pending[0]
            save_npy_atomic(parts_dir / f"{pending_start:09d}-{done:09d}.npy", block)
            parts.append(block)
            pending, pending_start = [], done
    stats["embed_s"] = stats.get("embed_s", 0.0) + time.perf_counter() - t0
    stats["embedded_rows"] = stats.get("embedded_rows", 0) + n - int(stats["resumed_rows"])
    if not parts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------


def build_index(
    documents_or_paths: Iterable[Document | str | Path] | str | Path,
    out_dir: str | Path,
    lexical: bool = True,
    dense: bool = True,
    chunking: ChunkingConfig | dict | None = None,
    progress: bool = True,
    skip_bad: bool = False,
    dense_backend: str = "auto",
    limit: int | None = None,
    checkpoint_rows: int = 256,
    korean_analyzer: str = "auto",
    embedder: Any = None,
    expander: Any = None,
    expansions: Any = None,
    compose: str | None = None,
    dense_store: str | None = None,
) -> "Index":
    """Build an index from documents, files, folders or shared dataset names into `out_dir`.

    The result replaces an existing index at `out_dir` only once complete. The read report (skipped
    records) is on the returned index as `index.read_report`. `embedder` (default: E5) must be
    obtainable again by `gaji.index.dense.get_embedder(embedder.model_id)` for the index to open.
    Chunk expansion (issue 8, gaji/expand/index_hook.py): `expander` (a gaji.expand.Expander) generates
    titles + candidate questions, `expansions` supplies ready ones, `compose` ("case1".."case7") says
    how they are embedded and BM25-indexed (default case when expanding: gaji.expand.compose.DEFAULT_CASE).
    `dense_store` (issue 10): a vector-database URL (milvus://HOST:PORT, qdrant+local:DIR, see gaji/stores/)
    that receives the vectors; searches then go to it (dense/vectors.npy is still written, as the copy
    `gaji index attach-store` can reload a store from).
    """
    from gaji.text.analyzers import default_analyzer

    from .dense import DenseIndex, choose_backend, get_embedder

    if not lexical and not dense:
        raise ConfigError("an index needs at least one of lexical (BM25) or dense")
    if dense_store and not dense:
        raise ConfigError("--dense-store needs the dense part: drop --no-dense")
    if dense_store:  # issue 10: a store that is down fails now, not after the corpus is embedded
        from gaji.stores.sync import check_store

        check_store(dense_store)
    out = Path(out_dir)
    _check_target(out)
    cfg = chunking if isinstance(chunking, ChunkingConfig) else ChunkingConfig.from_dict(chunking or {})
    t_start = time.perf_counter()
    stats: dict[str, Any] = {}

    sources = _resolve_sources(documents_or_paths)
    t0 = time.perf_counter()
    docs, report = read_documents(sources, skip_bad=skip_bad, limit=limit)
    stats["read_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    chunks = _chunk_all(docs, cfg)
    stats["chunk_s"] = time.perf_counter() - t0
    expand_fp, used_expansions = "", []
    if expander is not None or expansions is not None or compose:
        from gaji.expand import index_hook

        compose = index_hook.resolve_compose(compose, expander is not None or expansions is not None)
        if expander is not None or expansions is not None:
            chunks, exp_stats, expand_fp, used_expansions = index_hook.attach_expansions(
                chunks, out, expander=expander, expansions=expansions, progress=progress
            )
            stats.update(exp_stats)

    analyzer = default_analyzer(korean_analyzer) if lexical else None
    if dense and embedder is None:
        embedder = get_embedder()
    if not dense:
        embedder = None
    backend = choose_backend(dense_backend, len(chunks)) if dense else None
    fp = _fingerprint(chunks, cfg) + (f"/{compose}/{expand_fp}" if compose else "")

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.building"
    state: dict[str, Any] = {}
    if tmp.exists():
        try:
            state = json.loads((tmp / STATE).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            state = {}
        if state.get("fingerprint") != fp:
            shutil.rmtree(tmp)  # a different build was interrupted here: start clean
            state = {}
    tmp.mkdir(parents=True, exist_ok=True)
    state["fingerprint"] = fp
    atomic_write_json(tmp / STATE, state)
    stats["resumed"] = bool(state.get("dense_model") or state.get("lexical_done"))

    ChunkStore.write(tmp, chunks)
    rows = list(enumerate(chunks))
    with Bars(progress, lines=True) as prog:
        if lexical:
            assert analyzer is not None
            if state.get("lexical_done") != analyzer.name:
                state.pop("lexical_done", None)
                atomic_write_json(tmp / STATE, state)
                lex_stats: dict[str, Any] = {}
                _analyze_and_index(tmp / LEXICAL_DIR, rows, analyzer, prog, lex_stats, create=True, compose=compose)
                state["lexical_done"] = analyzer.name
                state["lexical_stats"] = lex_stats
                atomic_write_json(tmp / STATE, state)
            stats.update(state.get("lexical_stats") or {})  # measured by whichever run did it
        elif (tmp / LEXICAL_DIR).exists():
            shutil.rmtree(tmp / LEXICAL_DIR)
        if dense:
            assert embedder is not None and backend is not None
            parts = tmp / PARTS_DIR
            if state.get("dense_model") != embedder.model_id and parts.exists():
                shutil.rmtree(parts)
            state["dense_model"] = embedder.model_id
            atomic_write_json(tmp / STATE, state)
            vectors = _embed_rows([_dense_text(c, compose) for c in chunks], embedder, parts, prog, checkpoint_rows, stats)
            t0 = time.perf_counter()
            DenseIndex.write(tmp / DENSE_DIR, vectors, backend)
            stats["dense_write_s"] = time.perf_counter() - t0
            if dense_store:  # issue 10: the vectors go to a vector database too
                from gaji.stores.sync import push_vectors

                dense_store = push_vectors(dense_store, out.resolve().name, fp, vectors, stats=stats)
            shutil.rmtree(parts, ignore_errors=True)
        elif (tmp / DENSE_DIR).exists():
            shutil.rmtree(tmp / DENSE_DIR)

    now = utc_now()
    manifest = Manifest(
        complete=True,
        created=now,
        updated=now,
        build_seconds=round(time.perf_counter() - t_start, 3),
        config={
            "chunking": cfg.to_dict(),
            "lexical": lexical,
            "analyzer": analyzer.name if analyzer else None,
            "dense": dense,
            "embedding_model": embedder.model_id if embedder else None,
            "embedding_dim": embedder.dim if embedder else None,
            "dense_backend": backend,
            "dense_backend_requested": dense_backend if dense else None,
            **({"dense_store": dense_store} if dense and dense_store else {}),
            **({"compose": compose, "expansion_model": used_expansions[0].model if used_expansions else None}
               if compose else {}),
        },
        versions=current_versions(),
        counts={"documents": len(docs), "chunks": len(chunks), "rows": len(chunks), "deleted": 0},
        stats={k: (round(v, 4) if isinstance(v, float) else v) for k, v in stats.items()},
        sources=_source_names(sources),
        history=[{"time": now, "action": "build", "documents": len(docs), "chunks": len(chunks),
                  "skipped": len(report.skipped)}],
    )
    (tmp / STATE).unlink(missing_ok=True)
    if compose:
        from gaji.expand import index_hook

        index_hook.finish(used_expansions, tmp, out)
    write_manifest(tmp, manifest)
    _swap_in(tmp, out)
    if compose:
        index_hook.drop_work_dir(out)
    idx = open_index(out)
    idx.read_report = report
    return idx


# ---------------------------------------------------------------------------------------------
# open / Index
# ---------------------------------------------------------------------------------------------


def is_index(path: str | Path) -> bool:
    """Whether `path` holds a complete gaji index (no compatibility check)."""
    try:
        read_manifest(path)
    except IndexError_:
        return False
    return True


def open_index(path: str | Path) -> "Index":
    """Open a built index; IndexError_ (saying what to do) when missing, incomplete or incompatible."""
    p = Path(path)
    backup = p.parent / f".{p.name}.old"
    if not p.exists() and backup.exists() and is_index(backup):
        os.rename(backup, p)  # a swap was interrupted between its two renames: restore the old index
    building = p.parent / f".{p.name}.building"
    if not (p / MANIFEST).exists() and building.exists():
        raise IndexError_(
            f"{p}: the build of this index was interrupted (partial work in {building}); "
            "rerun the same `gaji index build` command to resume it"
        )
    if not p.exists():
        raise IndexError_(f"{p}: no index here; build one with `gaji index build CORPUS --out {p}`")
    m = read_manifest(p)
    check_compatible(p, m)
    return Index(p, m)


@dataclass
class AddResult:
    """What `Index.add` did."""

    added: int = 0  # new chunk ids
    replaced: int = 0  # existing chunk ids whose content changed
    unchanged: int = 0  # existing chunk ids with identical content
    removed: int = 0  # old chunks of re-added documents that no longer exist
    embedded: int = 0
    report: ReadReport = field(default_factory=ReadReport)

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in ("added", "replaced", "unchanged", "removed", "embedded")}
        d["skipped"] = len(self.report.skipped)
        return d


class Index:
    """An opened index folder. Parts (chunks, BM25, vectors, analyser, embedder) load on first use."""

    def __init__(self, path: str | Path, manifest: Manifest | None = None):
        self.path = Path(path)
        self.manifest = manifest or read_manifest(self.path)
        self.read_report: ReadReport | None = None
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self._store: ChunkStore | None = None
        self._lexical = None
        self._dense = None
        self._analyzer = None
        self._embedder = None

    def __repr__(self) -> str:
        return f"Index({str(self.path)!r}, chunks={self.chunks})"

    # -- parts ------------------------------------------------------------------------------
    @property
    def store(self) -> ChunkStore:
        with self._lock:
            if self._store is None:
                self._store = ChunkStore(self.path)
            return self._store

    @property
    def has_lexical(self) -> bool:
        return self.manifest.has_lexical

    @property
    def has_dense(self) -> bool:
        return self.manifest.has_dense

    @property
    def lexical(self):
        """The BM25 index (gaji.index.lexical.LexicalIndex)."""
        if not self.has_lexical:
            raise IndexError_(f"{self.path}: this index has no BM25 part; rebuild with --lexical or use --retriever dense")
        with self._lock:
            if self._lexical is None:
                from .lexical import LexicalIndex

                self._lexical = LexicalIndex(self.path / LEXICAL_DIR)
            return self._lexical

    @property
    def analyzer(self):
        with self._lock:
            if self._analyzer is None:
                from gaji.text.analyzers import analyzer_from_name

                self._analyzer = analyzer_from_name(str(self.manifest.config.get("analyzer")))
            return self._analyzer

    @property
    def dense(self):
        """The vectors + search backend (gaji.index.dense.DenseIndex)."""
        if not self.has_dense:
            raise IndexError_(f"{self.path}: this index has no dense part; rebuild with --dense or use --retriever bm25")
        with self._lock:
            if self._dense is None:
                from .dense import DenseIndex

                live = self.store.live_mask() if self.manifest.counts.get("deleted") else None
                if self.manifest.config.get("dense_store"):  # vectors in a vector database (gaji/stores/)
                    from gaji.stores.sync import open_store_index

                    self._dense = open_store_index(str(self.manifest.config["dense_store"]),
                                                   int(self.manifest.config.get("embedding_dim") or 0),
                                                   int(self.manifest.counts.get("rows", 0)))
                    return self._dense
                self._dense = DenseIndex(self.path / DENSE_DIR, str(self.manifest.config.get("dense_backend")), live)
            return self._dense

    @property
    def embedder(self):
        with self._lock:
            if self._embedder is None:
                from .dense import get_embedder

                self._embedder = get_embedder(self.manifest.config.get("embedding_model"))
            return self._embedder

    # -- chunks -----------------------------------------------------------------------------
    @property
    def chunks(self) -> int:
        """Number of (live) chunks."""
        c = self.manifest.counts
        return int(c.get("rows", 0)) - int(c.get("deleted", 0))

    def __len__(self) -> int:
        return self.chunks

    def __contains__(self, chunk_id: str) -> bool:
        return self.store.row_of(chunk_id) is not None

    def get_chunk(self, chunk_id: str) -> Chunk:
        """The chunk with this id; KeyError when absent."""
        row = self.store.row_of(chunk_id)
        c = self.store.get(row) if row is not None else None
        if c is None:
            raise KeyError(f"no chunk {chunk_id!r} in index {self.path}")
        return c

    def chunk_at(self, row: int) -> Chunk | None:
        return self.store.get(row)

    def iter_chunks(self) -> Iterator[Chunk]:
        return iter(self.store)

    # -- retrieval --------------------------------------------------------------------------
    def retriever(self, name: str, **kw: Any):
        """A registered retriever ("bm25", "dense", "hybrid", ...) over this index."""
        from gaji.registry import RETRIEVERS

        return RETRIEVERS.get(name)(self, **kw)

    def info(self) -> dict[str, Any]:
        m = self.manifest
        return {
            "path": str(self.path),
            "chunks": self.chunks,
            "documents": m.counts.get("documents"),
            "created": m.created,
            "updated": m.updated,
            "build_seconds": m.build_seconds,
            "config": m.config,
            "versions": m.versions,
            "counts": m.counts,
            "stats": m.stats,
            "sources": m.sources,
            "history": m.history,
        }

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
            self._reset()

    # -- adding -----------------------------------------------------------------------------
    def add(
        self,
        documents_or_paths: Iterable[Document | str | Path] | str | Path,
        progress: bool = False,
        skip_bad: bool = False,
        checkpoint_rows: int = 256,
    ) -> AddResult:
        """Add documents (same chunking as the build). A document whose id is already indexed replaces
        its old chunks: changed chunks are re-indexed and re-embedded, unchanged ones are left alone,
        chunks it no longer has are removed. Atomic: works on a copy, then swaps it in."""
        from .dense import DenseIndex, HNSWBackend, choose_backend

        m = self.manifest
        cfg = ChunkingConfig.from_dict(m.config.get("chunking") or {})
        sources = _resolve_sources(documents_or_paths)
        docs, report = read_documents(sources, skip_bad=skip_bad)
        new_chunks = _chunk_all(docs, cfg)
        result = AddResult(report=report)

        store = self.store
        rows: list[Chunk | None] = [store.get(r) for r in range(len(store))]
        pairs = store.id_pairs()
        row_of = {e[0]: i for i, e in enumerate(pairs) if e is not None}
        doc_rows: dict[str, list[int]] = {}
        for i, e in enumerate(pairs):
            if e is not None:
                doc_rows.setdefault(e[1], []).append(i)

        changed: list[tuple[int, Chunk]] = []  # rows to (re)index and (re)embed
        deleted: list[int] = []
        replaced_rows: list[int] = []
        new_docs = {d.id for d in docs}
        kept = {c.id for c in new_chunks}
        for doc_id in new_docs:
            for r in doc_rows.get(doc_id, []):
                old = rows[r]
                if old is not None and old.id not in kept:
                    rows[r] = None
                    deleted.append(r)
        for c in new_chunks:
            r = row_of.get(c.id)
            if r is None:
                rows.append(c)
                changed.append((len(rows) - 1, c))
                result.added += 1
                continue
            old = rows[r]
            if old is not None and old.title == c.title and old.text == c.text:
                result.unchanged += 1
                if old.to_dict() != c.to_dict():
                    rows[r] = c  # metadata only
                continue
            rows[r] = c
            changed.append((r, c))
            replaced_rows.append(r)
            result.replaced += 1
        result.removed = len(deleted)

        tmp = self.path.parent / f".{self.path.name}.adding"
        if tmp.exists():
            shutil.rmtree(tmp)
        with self._lock:
            self.close()
            shutil.copytree(self.path, tmp)
        try:
            ChunkStore.write(tmp, rows)
            stats: dict[str, Any] = {}
            live = np.array([c is not None for c in rows], dtype=bool)
            with Bars(progress, lines=True) as prog:
                if m.has_lexical and (changed or deleted):
                    _analyze_and_index(
                        tmp / LEXICAL_DIR, changed, self.analyzer, prog, stats, create=False,
                        delete_rows=sorted(set(deleted) | set(replaced_rows)), compose=m.config.get("compose"),
                    )
                if m.has_dense and (changed or deleted):
                    old_vecs = np.load(tmp / DENSE_DIR / "vectors.npy")
                    vecs = np.zeros((len(rows), old_vecs.shape[1]), dtype=np.float32)
                    vecs[: old_vecs.shape[0]] = old_vecs
                    parts = tmp / PARTS_DIR
                    shutil.rmtree(parts, ignore_errors=True)
                    new_vecs = _embed_rows(
                        [_dense_text(c, m.config.get("compose")) for _, c in changed], self.embedder, parts, prog,
                        checkpoint_rows, stats
                    )
                    shutil.rmtree(parts, ignore_errors=True)
                    for (r, _), v in zip(changed, new_vecs):
                        vecs[r] = v
                    vecs[~live] = 0.0
                    result.embedded = len(changed)
                    backend = str(m.config.get("dense_backend"))
                    if m.config.get("dense_backend_requested") == "auto":
                        backend = choose_backend("auto", int(live.sum()))
                    if backend == "hnsw" == m.config.get("dense_backend") and not deleted and not replaced_rows:
                        import faiss

                        hn = HNSWBackend.load(tmp / DENSE_DIR / "hnsw.faiss").index
                        new_rows = np.array([r for r, _ in changed], dtype=np.int64)
                        hn.add_with_ids(np.ascontiguousarray(vecs[new_rows]), new_rows)
                        from .dense import save_npy_atomic

                        save_npy_atomic(tmp / DENSE_DIR / "vectors.npy", vecs)
                        faiss.write_index(hn, str(tmp / DENSE_DIR / "hnsw.faiss"))
                    else:
                        DenseIndex.write(tmp / DENSE_DIR, vecs, backend, live if not live.all() else None)
                    if m.config.get("dense_store"):  # issue 10: keep the vector database in step
                        from gaji.stores.sync import sync_rows

                        ch_rows = np.array([r for r, _ in changed], dtype=np.int64)
                        sync_rows(str(m.config["dense_store"]), ch_rows, vecs[ch_rows] if len(ch_rows) else vecs[:0],
                                  np.array(deleted, dtype=np.int64))
            now = utc_now()
            n_deleted = int((~live).sum())
            m2 = Manifest.from_dict(m.to_dict())
            m2.updated = now
            m2.versions = current_versions()
            m2.counts = {
                "documents": len({c.doc_id for c in rows if c is not None}),
                "chunks": int(live.sum()),
                "rows": len(rows),
                "deleted": n_deleted,
            }
            if m.has_dense and (changed or deleted):
                m2.config["dense_backend"] = backend
            m2.sources = m.sources + [s for s in _source_names(sources) if s not in m.sources]
            m2.history = m.history + [{"time": now, "action": "add", "sources": _source_names(sources), **result.to_dict()}]
            write_manifest(tmp, m2)
            _swap_in(tmp, self.path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        with self._lock:
            self.manifest = read_manifest(self.path)
            self._reset()
        return result
