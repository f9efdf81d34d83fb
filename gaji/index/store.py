"""An opened index folder: chunks + BM25 (tantivy) + dense vectors, each part loaded on first use.

    idx = open_index("runs/idx")
    idx.retriever("hybrid").search("질문", k=5)      # BM25 (and says so) while the vectors are pending
    idx.add(["more.jsonl"])                                            # new chunks only are embedded
    idx.remove(["guam"]); idx.sync("notes/")

An Index reads one committed generation of the folder (gaji.index.generations), pinned while it is
open: a writer committing a newer one never changes what it reads. `is_current()` says whether a newer
one exists, `reopen()` opens it. Building is gaji.index.build, the folder layout gaji.index.layout,
changes gaji.index.writer.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gaji.corpus.readers import ReadReport
from gaji.errors import IndexUnusableError
from gaji.registry import RETRIEVERS
from gaji.stores.sync import open_store_index
from gaji.types import Chunk

from . import writer
from .chunkstore import ChunkStore
from .dense import DenseIndex, get_embedder
from .folders import check_openable, folder_bytes
from .generations import Snapshot, signature, snapshot
from .layout import DENSE_DIR, LEXICAL_DIR
from .manifest import Manifest, check_compatible, read_manifest
from .originals import keeps_originals, originals_size
from .pending import BM25UntilVectors, VectorsPending, still_pending
from .session import collect_if_idle

__all__ = ["Index", "open_index", "is_index"]


def is_index(path: str | Path) -> bool:
    """Whether `path` holds a complete gaji index (no compatibility check)."""
    try:
        read_manifest(path)
    except IndexUnusableError:
        return False
    return True


def open_index(path: str | Path) -> "Index":
    """Open a built index; IndexUnusableError (saying what to do) when missing, incomplete or incompatible."""
    p = Path(path)
    check_openable(p)
    snap = snapshot(p)
    try:
        check_compatible(p, snap.manifest)
    except BaseException:
        snap.release()
        raise
    return Index(p, snap)


class Index(writer.Writable):
    """An opened generation of an index folder. Parts (chunks, BM25, vectors, analyser, embedder) load on
    first use, all from that generation."""

    def __init__(self, path: str | Path, snap: Snapshot | None = None):
        self.path = Path(path)
        self._snap = snap or snapshot(self.path)
        self._pinned: list[Snapshot] = []
        self.read_report: ReadReport | None = None
        self._lock = threading.RLock()
        self._reset()

    @property
    def manifest(self):
        return self._snap.manifest

    @property
    def dir(self) -> Path:
        """The folder of this generation's parts."""
        return self._snap.dir

    @property
    def generation(self) -> int:
        return self.manifest.generation

    def is_current(self) -> bool:
        """Whether this is still the index's committed generation (a cheap stat of its manifest)."""
        return signature(self.path) == self._snap.signature

    def reopen(self) -> "Index":
        """The index's committed generation, newly opened (this one stays as it is)."""
        return open_index(self.path)

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
                self._store = ChunkStore(self.dir)
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
            raise IndexUnusableError(f"{self.path}: this index has no BM25 part; rebuild with --lexical or use --retriever dense")
        with self._lock:
            if self._lexical is None:
                from .lexical import LexicalIndex

                self._lexical = LexicalIndex(self.dir / LEXICAL_DIR)
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

    def vectors_filled(self, manifest: Manifest) -> bool:
        """A fill committed the vectors (gaji.index.pending): read its generation from now on, when it
        differs from this one in its vectors only (no add or removal between). Whether it switched."""
        snap = snapshot(self.path)
        m, mine = snap.manifest, self.manifest
        if m.vectors_pending or m.counts != mine.counts or len(m.history) != len(mine.history):
            snap.release()
            return False
        with self._lock:  # parts already loaded keep reading the old generation's files: it stays pinned
            self._pinned.append(self._snap)
            self._snap, self._dense = snap, None
        return True

    @property
    def dense(self):
        """The vectors + search backend (gaji.index.dense.DenseIndex)."""
        if not self.has_dense:
            raise IndexUnusableError(f"{self.path}: this index has no dense part; rebuild with --dense or use --retriever bm25")
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
                self._dense = DenseIndex(self.dir / DENSE_DIR, str(self.manifest.config.get("dense_backend")), live)
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
        """What the index holds and how it was built; `analyzer_note`: what a rebuild would change in its BM25
        analysis (None when nothing)."""
        from gaji.text.analyzers import routing_note

        m = self.manifest
        keys = ("created", "updated", "build_seconds", "config", "versions", "counts", "stats", "sources", "history",
                "generation", "vectors")
        note = routing_note(m.config.get("analyzer")) if m.config.get("lexical") else None
        files, size = originals_size(self.path)
        return {"path": str(self.path), "chunks": self.chunks, "documents": m.counts.get("documents"),
                **{k: getattr(m, k) for k in keys}, "analyzer_note": note, "size_bytes": folder_bytes(self.path),
                "originals": {"kept": keeps_originals(m.config), "files": files, "bytes": size}}

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
            self._reset()

    # -- changing: add, remove, sync (gaji.index.writer.Writable) ----------------------------------
    def _switch(self) -> None:
        """Read the committed generation from now on (after this object's own change)."""
        snap = snapshot(self.path)
        with self._lock:
            self.close()
            old, self._snap = self._snap, snap
            old.release()
        collect_if_idle(self.path)  # the generation this object read until now may be the last one pinned
