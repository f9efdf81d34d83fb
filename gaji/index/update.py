"""Changing a built index: first `plan` what changes (pure: no file is touched), then `apply` it.

    change = plan(store.rows(), {"kimchi", "zebra"}, new_chunks, manifest)   # these documents now have these chunks
    apply(snapshot, change, sources, analyzer, embedder)                     # under the writer lock (gaji.index.writer)

Rows never move: a changed chunk keeps its row, a new chunk gets a new row at the end, a removed chunk
leaves an empty row (`null` in the chunk store, a zero vector, no BM25 entry). `apply` works on a copy
of the snapshot's parts in a folder of its own and commits it as the next generation
(gaji.index.generations), so a failed or killed update leaves the index as it was.
"""
from __future__ import annotations

import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji.corpus.readers import ReadReport
from gaji.errors import InputError
from gaji.progress import Bars
from gaji.registry import COMPOSITIONS
from gaji.stores.sync import sync_rows
from gaji.types import Chunk

from .journal import store_pending, store_synced
from .chunkstore import ChunkStore
from .dense import DenseIndex, choose_backend
from .generations import Snapshot, commit, copy_parts, new_work_dir
from .layout import DENSE_DIR, LEXICAL_DIR, PARTS_DIR, VECTORS
from .manifest import Manifest, current_versions, utc_now
from .sources import read_records, write_records
from .steps import embed_rows, index_lexical
from .texts import PLAIN, ChunkTexts

__all__ = ["AddResult", "Change", "plan", "apply", "texts_of"]


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


@dataclass
class Change:
    """One planned update of an index."""

    rows: list[Chunk | None]  # the chunk store afterwards (None = empty row)
    index: list[tuple[int, Chunk]] = field(default_factory=list)  # rows to (re)index and (re)embed
    deleted: list[int] = field(default_factory=list)  # rows that become empty
    replaced: list[int] = field(default_factory=list)  # rows whose content changes (old BM25 entry goes)
    removed_ids: list[str] = field(default_factory=list)  # chunk ids of the deleted rows (they leave the index)
    result: AddResult = field(default_factory=AddResult)
    dense_backend: str | None = None  # the dense backend afterwards; None = the dense part is left alone
    patch_hnsw: bool = False  # add the new rows to the HNSW graph instead of rebuilding it
    action: str = "add"  # as the manifest's history records it
    records: dict[str, dict[str, str] | None] = field(default_factory=dict)  # documents.json changes (None: gone)

    @property
    def touched(self) -> bool:
        """Whether BM25 and vectors change at all (a metadata-only change rewrites the chunk store only)."""
        return bool(self.index or self.deleted)

    @property
    def live(self) -> np.ndarray:
        return np.array([c is not None for c in self.rows], dtype=bool)

    @property
    def index_rows(self) -> np.ndarray:
        return np.array([r for r, _ in self.index], dtype=np.int64)


def _check_owner(old: Chunk, new: Chunk) -> None:
    """A chunk id belongs to one document: another document's chunk never replaces it."""
    if old.doc_id != new.doc_id:
        raise InputError(
            f"chunk id {new.id!r} of document {new.doc_id!r} is the id of a chunk of document {old.doc_id!r} "
            "already in the index; rename the document", field="id")


def plan(rows: Sequence[Chunk | None], docs: Collection[str], chunks: Sequence[Chunk], manifest: Manifest) -> Change:
    """The change that makes the documents `docs` consist of exactly `chunks`, in an index whose chunk
    store holds `rows`: new chunk ids are appended, chunks whose title or text changed are replaced, unchanged
    ones are kept (their metadata updated), and chunks of `docs` not among `chunks` are deleted. InputError
    when a chunk id is taken by another document's chunk."""
    change = Change(list(rows))
    after, result = change.rows, change.result
    keep = {c.id for c in chunks}
    for r, old in enumerate(rows):
        if old is not None and old.doc_id in docs and old.id not in keep:
            after[r] = None
            change.deleted.append(r)
            change.removed_ids.append(old.id)
    row_of = {c.id: r for r, c in enumerate(rows) if c is not None}
    for c in chunks:
        r = row_of.get(c.id)
        old = rows[r] if r is not None else None
        if old is None:
            after.append(c)
            change.index.append((len(after) - 1, c))
            result.added += 1
            continue
        _check_owner(old, c)
        after[r] = c  # the metadata may differ
        if old.title == c.title and old.text == c.text:
            result.unchanged += 1
        else:
            change.index.append((r, c))  # type: ignore[arg-type]
            change.replaced.append(r)  # type: ignore[arg-type]
            result.replaced += 1
    result.removed = len(change.deleted)
    _plan_dense(change, manifest)
    return change


def _plan_dense(change: Change, m: Manifest) -> None:
    """Which dense backend the index has afterwards, and whether its HNSW graph can just grow."""
    if not (m.has_dense and change.touched):
        return
    backend = str(m.config.get("dense_backend"))
    if m.config.get("dense_backend_requested") == "auto":
        backend = choose_backend("auto", int(change.live.sum()))
    change.dense_backend = backend
    change.patch_hnsw = backend == "hnsw" == m.config.get("dense_backend") and not change.deleted and not change.replaced
    change.result.embedded = len(change.index)


def texts_of(m: Manifest) -> ChunkTexts:
    """The texts the index was built with: the composition its manifest names (config "compose"), else plain."""
    name = m.config.get("compose")
    return COMPOSITIONS.get(str(name)) if name else PLAIN


def _update_lexical(work: Path, change: Change, analyzer, texts: ChunkTexts, prog: Bars, stats: dict) -> None:
    index_lexical(work / LEXICAL_DIR, change.index, analyzer, prog, stats, create=False,
                  delete_rows=sorted(set(change.deleted) | set(change.replaced)), text=texts.lexical)


def _update_dense(work: Path, change: Change, embedder, texts: ChunkTexts, prog: Bars, checkpoint_rows: int,
                  stats: dict) -> np.ndarray:
    """Embed the changed rows into the vectors (empty rows zeroed) and write them; returns all vectors."""
    dense_dir = work / DENSE_DIR
    old = np.load(dense_dir / VECTORS)
    vecs = np.zeros((len(change.rows), old.shape[1]), dtype=np.float32)
    vecs[: old.shape[0]] = old
    parts = work / PARTS_DIR
    shutil.rmtree(parts, ignore_errors=True)
    new = embed_rows([texts.dense(c) for _, c in change.index], embedder, parts, prog, checkpoint_rows, stats)
    shutil.rmtree(parts, ignore_errors=True)
    for (r, _), v in zip(change.index, new):
        vecs[r] = v
    live = change.live
    vecs[~live] = 0.0
    if change.patch_hnsw:
        DenseIndex.append(dense_dir, vecs, change.index_rows)
    else:
        DenseIndex.write(dense_dir, vecs, str(change.dense_backend), live if not live.all() else None)
    return vecs


def _updated_manifest(m: Manifest, change: Change, sources: list[str]) -> Manifest:
    now = utc_now()
    live = change.live
    m2 = Manifest.from_dict(m.to_dict())
    m2.updated = now
    m2.versions = current_versions()
    m2.counts = {
        "documents": len({c.doc_id for c in change.rows if c is not None}),
        "chunks": int(live.sum()),
        "rows": len(change.rows),
        "deleted": int((~live).sum()),
    }
    if change.dense_backend is not None:
        m2.config["dense_backend"] = change.dense_backend
    m2.sources = m.sources + [s for s in sources if s not in m.sources]
    m2.history = m.history + [{"time": now, "action": change.action, "sources": sources, **change.result.to_dict()}]
    return m2


def _change_parts(root: Path, work: Path, m: Manifest, change: Change, analyzer: Any, embedder: Any,
                  progress: bool, checkpoint_rows: int) -> None:
    """Carry out `change` on the copy of the parts in `work` (a vector database: in place, journalled)."""
    ChunkStore.write(work, change.rows)
    if change.records:
        records = read_records(work)
        for doc_id, rec in change.records.items():
            if rec is None:
                records.pop(doc_id, None)
            else:
                records[doc_id] = rec
        write_records(work, records)
    if not change.touched:
        return
    texts = texts_of(m)
    stats: dict[str, Any] = {}
    with Bars(progress, lines=True) as prog:
        if m.has_lexical:
            _update_lexical(work, change, analyzer, texts, prog, stats)
        if m.has_dense:
            vecs = _update_dense(work, change, embedder, texts, prog, checkpoint_rows, stats)
            if m.config.get("dense_store"):  # keep the vector database in step; a crash from here on is redone
                store_pending(root)
                rows = change.index_rows
                sync_rows(str(m.config["dense_store"]), rows, vecs[rows], np.array(change.deleted, dtype=np.int64))
    if change.removed_ids and texts.prune is not None:
        texts.prune(work, set(change.removed_ids))


def apply(snap: Snapshot, change: Change, sources: list[str], analyzer: Any = None, embedder: Any = None,
          progress: bool = False, checkpoint_rows: int = 256) -> Manifest:
    """Carry out `change` on the generation `snap` (the caller holds the writer lock; `sources` as the
    manifest lists them) and commit the result as the next generation. `analyzer`/`embedder` are needed
    when the change touches the BM25/dense part. Returns the new manifest."""
    m = snap.manifest
    work = new_work_dir(snap.root)
    try:
        copy_parts(snap.dir, work, snap.root)
        _change_parts(snap.root, work, m, change, analyzer, embedder, progress, checkpoint_rows)
        m2 = commit(snap.root, work, _updated_manifest(m, change, sources), m.generation)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    store_synced(snap.root)
    return m2
