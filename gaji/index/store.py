"""An opened index folder: chunks + BM25 (tantivy) + dense vectors, each part loaded on first use.

    idx = open_index("runs/idx")
    idx.retriever("hybrid").search("질문", k=5)      # BM25 (and says so) while the vectors are pending
    idx.add(["more.jsonl"])                                            # new chunks only are embedded

Building is gaji.index.build, the folder layout gaji.index.layout, updates gaji.index.update.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import ChunkingConfig
from gaji.corpus.readers import ReadReport, read_documents
from gaji.errors import IndexError_
from gaji.registry import RETRIEVERS
from gaji.stores.sync import open_store_index
from gaji.types import Chunk, Document

from . import update
from .chunkstore import ChunkStore
from .dense import DenseIndex, get_embedder
from .layout import DENSE_DIR, LEXICAL_DIR, MANIFEST, backup_dir, building_dir
from .manifest import Manifest, check_compatible, read_manifest
from .pending import BM25UntilVectors, VectorsPending, still_pending
from .sources import chunk_all, resolve_sources, source_names
from .update import AddResult

__all__ = ["Index", "open_index", "is_index"]


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
    backup = backup_dir(p)
    if not p.exists() and backup.exists() and is_index(backup):
        os.rename(backup, p)  # a swap was interrupted between its two renames: restore the old index
    building = building_dir(p)
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
    def vectors_pending(self) -> bool:
        """Whether the vectors are still being computed (checked again on disk while they are)."""
        return self.manifest.vectors_pending and still_pending(self)

    def vectors_filled(self, manifest: Manifest) -> None:  # a fill completed the vectors (gaji.index.pending)
        with self._lock:
            self.manifest = manifest
            self._dense = None

    @property
    def dense(self):
        """The vectors + search backend (gaji.index.dense.DenseIndex)."""
        if not self.has_dense:
            raise IndexError_(f"{self.path}: this index has no dense part; rebuild with --dense or use --retriever bm25")
        if self.vectors_pending:
            raise VectorsPending(f"{self.path}: the vectors are still being computed; BM25 answers meanwhile")
        with self._lock:
            if self._dense is None:
                live = self.store.live_mask() if self.manifest.counts.get("deleted") else None
                if self.manifest.config.get("dense_store"):  # vectors in a vector database (gaji/stores/)
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
        """A registered retriever ("bm25", "dense", "hybrid", ...) over this index; while the vectors are
        pending, one needing them answers with BM25 until they are complete (gaji.index.pending)."""
        try:
            return RETRIEVERS.get(name)(self, **kw)
        except VectorsPending:
            return BM25UntilVectors(self, name, kw)

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
            "vectors": m.vectors,
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
        fill: bool = True,
        embed_workers: int | None = None,
    ) -> AddResult:
        """Add documents (same chunking as the build). A document whose id is already indexed replaces
        its old chunks: changed chunks are re-indexed and re-embedded, unchanged ones are left alone,
        chunks it no longer has are removed. Atomic: works on a copy, then swaps it in, BM25 first; the
        vectors are filled then (`fill`; `embed_workers` as in gaji.index.fill), or left for gaji.index.fill."""
        m = self.manifest
        sources = resolve_sources(documents_or_paths)
        docs, report = read_documents(sources, skip_bad=skip_bad)
        chunks = chunk_all(docs, ChunkingConfig.from_dict(m.config.get("chunking") or {}))
        change = update.plan(self.store.rows(), {d.id for d in docs}, chunks, m)
        change.result.report = report
        analyzer = self.analyzer if m.has_lexical and change.touched else None
        with self._lock:
            self.close()
        try:  # an add that fails while filling vectors has published its BM25 rows already
            update.apply(self.path, m, change, source_names(sources), analyzer, None, progress, checkpoint_rows,
                         fill=fill, embed_workers=embed_workers)
        finally:
            with self._lock:
                self.manifest = read_manifest(self.path)
                self._reset()
        return change.result
