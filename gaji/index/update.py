"""Changing a built index in place: first `plan` what changes (pure: no file is touched), then `apply` it.

    change = plan(store.rows(), {"kimchi", "zebra"}, new_chunks, manifest)   # these documents now have these chunks
    apply(index_dir, manifest, change, sources, analyzer, embedder)

Rows never move: a changed chunk keeps its row, a new chunk gets a new row at the end, a removed chunk
leaves an empty row (`null` in the chunk store, a zero vector, no BM25 entry). `apply` works on a copy
(``.<name>.adding``) and swaps it in, so an update that fails before that leaves the index as it was.
BM25 first: what is swapped in is the chunks and BM25 with the changed rows' vectors pending (a plan,
gaji.index.fillplan), and those are filled afterwards (gaji.index.fill), by `apply` itself when it is
given an embedder. An update that fails while filling leaves its BM25 rows in place and its vectors
pending: `gaji index fill` goes on from the last checkpoint.
"""
from __future__ import annotations

import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji.corpus.readers import ReadReport
from gaji.progress import Bars
from gaji.types import Chunk

from .chunkstore import ChunkStore
from .dense import choose_backend
from .fill import fill_vectors
from .fillplan import join_change, pending_state, texts_of
from .folders import swap_in
from .layout import LEXICAL_DIR, adding_dir
from .manifest import Manifest, current_versions, read_manifest, utc_now, write_manifest
from .progress_file import FileBars, ProgressFile
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
    result: AddResult = field(default_factory=AddResult)
    dense_backend: str | None = None  # the dense backend afterwards; None = the dense part is left alone
    patch_hnsw: bool = False  # add the new rows to the HNSW graph instead of rebuilding it
    action: str = "add"  # as the manifest's history records it

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


def plan(rows: Sequence[Chunk | None], docs: Collection[str], chunks: Sequence[Chunk], manifest: Manifest) -> Change:
    """The change that makes the documents `docs` consist of exactly `chunks`, in an index whose chunk
    store holds `rows`: new chunk ids are appended, chunks whose title or text changed are replaced, unchanged
    ones are kept (their metadata updated), and chunks of `docs` not among `chunks` are deleted."""
    change = Change(list(rows))
    after, result = change.rows, change.result
    keep = {c.id for c in chunks}
    for r, old in enumerate(rows):
        if old is not None and old.doc_id in docs and old.id not in keep:
            after[r] = None
            change.deleted.append(r)
    row_of = {c.id: r for r, c in enumerate(rows) if c is not None}
    for c in chunks:
        r = row_of.get(c.id)
        if r is None:
            after.append(c)
            change.index.append((len(after) - 1, c))
            result.added += 1
        elif rows[r].title == c.title and rows[r].text == c.text:  # type: ignore[union-attr]
            result.unchanged += 1
            after[r] = c  # the metadata may differ
        else:
            after[r] = c
            change.index.append((r, c))
            change.replaced.append(r)
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


def _plan_vectors(work: Path, m: Manifest, change: Change) -> dict:
    """The changed rows' vectors become pending (joined to a plan still pending); the manifest's `vectors`."""
    plan = join_change(work, m, [r for r, _ in change.index], change.deleted, len(change.rows),
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
    m2.sources = m.sources + [s for s in sources if s not in m.sources]
    m2.history = m.history + [{"time": now, "action": change.action, "sources": sources, **change.result.to_dict()}]
    return m2


def apply(index_dir: str | Path, m: Manifest, change: Change, sources: list[str], analyzer: Any = None,
          embedder: Any = None, progress: bool = False, checkpoint_rows: int = 256, fill: bool | None = None,
          embed_workers: int | None = None) -> Manifest:
    """Carry out `change` on the index at `index_dir` (manifest `m`; `sources` as the manifest lists
    them). `analyzer` is needed when the change touches the BM25 part. The changed rows' vectors are
    pending once the change is swapped in, then filled before this returns when `fill` (None: when an
    `embedder` is given; otherwise the plan's model, `embed_workers` as in gaji.index.fill).
    Returns the new manifest."""
    path = Path(index_dir)
    work = adding_dir(path)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(path, work)
    report = ProgressFile(work, change.action)
    try:
        ChunkStore.write(work, change.rows)
        stats: dict[str, Any] = {}
        m2 = _updated_manifest(m, change, sources)
        if change.touched:
            if m.has_lexical:
                report.stage("bm25", total=len(change.index))
                with FileBars(progress, report) as prog:
                    _update_lexical(work, change, analyzer, texts_of(m), prog, stats)
            if m.has_dense:
                m2.vectors = _plan_vectors(work, m, change)
        write_manifest(work, m2)
        swap_in(work, path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    report.moved(path)
    report.stage("searchable" if m2.vectors_pending else "done", total=len(change.index), done=len(change.index))
    if (embedder is not None if fill is None else fill) and m2.vectors_pending:
        fill_vectors(path, embedder, progress, checkpoint_rows, action=change.action, workers=embed_workers)
        m2 = read_manifest(path)
    return m2
