"""Changing a built index: first `plan` what changes (pure: no file is touched), then `apply` it.

    change = plan(store.rows(), {"kimchi", "zebra"}, new_chunks, manifest)   # these documents now have these chunks
    apply(snapshot, change, sources, analyzer)                               # under the writer lock (gaji.index.writer)

Rows never move: a changed chunk keeps its row, a new chunk gets a new row at the end, a removed chunk
leaves an empty row (`null` in the chunk store, a zero vector, no BM25 entry). `apply` works on a copy
of the snapshot's parts in a folder of its own and commits it as the next generation
(gaji.index.generations), so a failed or killed update leaves the index as it was. BM25 first: the
committed generation has the changed rows in BM25 and their vectors pending (a plan, gaji.index.fillplan,
joined to one still pending); gaji.index.fill computes them afterwards, outside the writer lock, and
commits them as a generation of their own.
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
from gaji.types import Chunk

from .chunkstore import ChunkStore
from .dense import choose_backend
from .fillplan import join_change, pending_state, texts_of
from .generations import Snapshot, commit, copy_parts, new_work_dir
from .layout import LEXICAL_DIR
from .manifest import Manifest, current_versions, utc_now
from .progress_file import FileBars, ProgressFile
from .sources import read_records, write_records
from .steps import index_lexical
from .texts import ChunkTexts

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
    originals: bool | None = None  # the index keeps copies of its files from now on (True/False); None: as before

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


def _update_lexical(work: Path, change: Change, analyzer, texts: ChunkTexts, prog: Bars, stats: dict) -> None:
    index_lexical(work / LEXICAL_DIR, change.index, analyzer, prog, stats, create=False,
                  delete_rows=sorted(set(change.deleted) | set(change.replaced)), text=texts.lexical)


def _plan_vectors(root: Path, work: Path, m: Manifest, change: Change) -> dict:
    """The changed rows' vectors become pending (joined to a plan still pending); the manifest's `vectors`."""
    plan = join_change(root, work, m, [r for r, _ in change.index], change.deleted, len(change.rows),
                       str(change.dense_backend), change.patch_hnsw, change.action)
    return pending_state(plan, len(change.rows))


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
    if change.originals is not None:
        m2.config["originals"] = change.originals
    m2.sources = m.sources + [s for s in sources if s not in m.sources]
    m2.history = m.history + [{"time": now, "action": change.action, "sources": sources, **change.result.to_dict()}]
    return m2


def _change_parts(root: Path, work: Path, m: Manifest, m2: Manifest, change: Change, analyzer: Any,
                  report: ProgressFile, progress: bool) -> None:
    """Carry out `change` on the copy of the parts in `work` (its vectors: a plan, in `m2.vectors`)."""
    ChunkStore.write(work, change.rows)
    if change.records:
        records = read_records(work)
        for doc_id, rec in change.records.items():
            if rec is None:
                records.pop(doc_id, None)
            else:  # when it was (re)indexed: a documents list shows it
                records[doc_id] = {**rec, "indexed": m2.updated}
        write_records(work, records)
    if not change.touched:
        return
    texts = texts_of(m)
    if m.has_lexical:
        report.stage("bm25", total=len(change.index))
        with FileBars(progress, report) as prog:
            _update_lexical(work, change, analyzer, texts, prog, {})
    if m.has_dense:
        m2.vectors = _plan_vectors(root, work, m, change)
    if change.removed_ids and texts.prune is not None:
        texts.prune(work, set(change.removed_ids))


def apply(snap: Snapshot, change: Change, sources: list[str], analyzer: Any = None, progress: bool = False) -> Manifest:
    """Carry out `change` on the generation `snap` (the caller holds the writer lock; `sources` as the
    manifest lists them) and commit the result as the next generation, its changed vectors pending.
    `analyzer` is needed when the change touches the BM25 part. Returns the new manifest."""
    m = snap.manifest
    work = new_work_dir(snap.root)
    report = ProgressFile(snap.root, change.action)
    try:
        copy_parts(snap.dir, work, snap.root)
        m2 = _updated_manifest(m, change, sources)
        _change_parts(snap.root, work, m, m2, change, analyzer, report, progress)
        m2 = commit(snap.root, work, m2, m.generation)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    report.stage("searchable" if m2.vectors_pending else "done", total=len(change.index), done=len(change.index))
    return m2
