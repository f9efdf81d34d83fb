"""Changing a built index: add documents, remove them, keep it in step with a folder or file.

    add_documents("runs/idx", ["more.jsonl"])            # new chunks embedded, changed ones replaced
    remove_documents("runs/idx", ["guam", "notes/a.md"]) # out of BM25, vectors, a vector database, expansions
    sync_source("runs/idx", "notes/")                    # new files added, changed re-indexed, gone removed

Each takes the index's writer lock (gaji.index.lock: one writer at a time across processes, waiting up
to `wait_s`), plans against the generation committed at that moment, never against what the caller
opened earlier (so two writers never lose each other's documents), and commits the result as the next
generation (gaji.index.update, gaji.index.generations). Reading and parsing the sources happens before
the lock is taken.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import ChunkingConfig
from gaji.corpus.readers import ReadReport, read_documents
from gaji.errors import InputError
from gaji.types import Document

from . import update
from .chunkstore import ChunkStore
from .fill import fill_vectors
from .manifest import Manifest, read_manifest
from .originals import keep_originals, keeps_originals
from .refusals import Refusal, note_refusals
from .generations import Snapshot
from .session import writing
from .sources import chunk_all, doc_record, read_records, resolve_sources, source_names
from .update import AddResult, Change

__all__ = ["add_documents", "remove_documents", "sync_source", "WriteResult", "UnknownDocuments", "Writable"]


class UnknownDocuments(InputError):
    """Documents asked to be removed that the index does not hold (`ids`)."""

    def __init__(self, message: str, ids: list[str], path: str):
        super().__init__(message, path=path, field="id")
        self.ids = ids


@dataclass
class WriteResult:
    """What a remove or a sync did, by document (`chunks`: by chunk)."""

    chunks: AddResult = field(default_factory=AddResult)
    added: list[str] = field(default_factory=list)  # documents new to the index
    changed: list[str] = field(default_factory=list)  # documents re-indexed (their content changed)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # sync: documents of files that could not be read, left alone
    missing: list[str] = field(default_factory=list)  # remove: ids the index did not hold
    generation: int = 0  # the committed generation afterwards

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "changed": self.changed, "removed": self.removed,
                "unchanged": len(self.unchanged), "kept": self.kept, "missing": self.missing,
                "generation": self.generation, "chunks": self.chunks.to_dict(),
                "refused": [{"file": s.path, "reason": s.reason} for s in self.chunks.report.refused()]}


def _analyzer(snap: Snapshot, change: Change) -> Any:
    """The analyser the change needs (None when it does not touch BM25 or the index has none)."""
    if not (change.touched and snap.manifest.has_lexical):
        return None
    from gaji.text.analyzers import analyzer_from_name

    return analyzer_from_name(str(snap.manifest.config.get("analyzer")))


def _rows(snap: Snapshot) -> list:
    store = ChunkStore(snap.dir)
    try:
        return store.rows()
    finally:
        store.close()


def _commit(snap: Snapshot, change: Change, sources: list[str], progress: bool) -> Manifest:
    analyzer = _analyzer(snap, change)
    return update.apply(snap, change, sources, analyzer, progress)


def _keep_originals(snap: Snapshot, change: Change, originals: bool | None,
                    blobs: Mapping[str, bytes] | None = None) -> None:
    """Copy the original files of the documents `change` (re)indexes into the index before it commits
    (gaji.index.originals); `originals` True/False switches the index's setting (None: as the index does). When
    it is switched on, the files of the documents already indexed are copied too; switched off, the copies go
    at the commit (gaji.index.generations `collect`)."""
    before = keeps_originals(snap.manifest.config)
    if originals is not None and originals != before:
        change.originals = originals
    if not (before if originals is None else originals):
        return
    records: dict[str, Any] = dict(read_records(snap.dir)) if change.originals else {}
    records.update({k: v for k, v in change.records.items() if v})
    keep_originals(snap.root, records, blobs)


def _fill(index_dir: str | Path, m: Manifest, fill: bool, action: str, progress: bool, checkpoint_rows: int,
          workers: int | None) -> None:
    """Compute the vectors the committed change left pending (outside the writer lock: BM25 answers meanwhile)."""
    if fill and m.vectors_pending:
        fill_vectors(index_dir, None, progress, checkpoint_rows, action=action, workers=workers)


def add_documents(index_dir: str | Path, documents_or_paths: Iterable[Document | str | Path] | str | Path,
                  progress: bool = False, skip_bad: bool = False, checkpoint_rows: int = 256,
                  wait_s: float | None = None, fill: bool = True, embed_workers: int | None = None,
                  files: Sequence[str] = (), strict: bool = False, originals: bool | None = None,
                  blobs: Mapping[str, bytes] | None = None) -> AddResult:
    """Add documents (chunked as the index was). A document whose id is already indexed replaces its old
    chunks: changed chunks are re-indexed and re-embedded, unchanged ones are left alone, chunks it no
    longer has are removed. BM25 first: the new vectors are filled after the commit (`fill`), or left
    pending for gaji.index.fill.

    `files`: the file names the documents were read from (ids ``FILE`` and ``FILE#page3`` …, as
    gaji.corpus.formats names them): the file replaces all it had, so an indexed document of such a file
    that is not among `documents` (a page the new version no longer has) is removed.

    A file that cannot be read is left out and listed in the result's report (``strict``: an error).
    `originals`: see `sync_source`; `blobs`: {sha256: bytes} of files read from memory (an upload), whose
    originals are kept from these bytes."""
    sources = resolve_sources(documents_or_paths)
    docs, report = read_documents(sources, skip_bad=skip_bad, strict=strict, isolate=True)
    with writing(index_dir, "add", wait_s) as snap:
        m = snap.manifest
        rows = _rows(snap)
        chunks = chunk_all(docs, ChunkingConfig.from_dict(m.config.get("chunking") or {}))
        fresh = {d.id for d in docs}
        stale = _documents_of_files(rows, files) - fresh
        change = update.plan(rows, fresh | stale, chunks, m)
        change.result.report = report
        change.records = {**{d.id: doc_record(d) for d in docs}, **{i: None for i in stale}}
        _keep_originals(snap, change, originals, blobs)
        m2 = _commit(snap, change, source_names(sources), progress)
    _fill(index_dir, m2, fill, "add", progress, checkpoint_rows, embed_workers)
    return change.result


def _documents_of_files(rows: Sequence[Any], files: Sequence[str]) -> set[str]:
    """The indexed documents read from the files named `files` (id ``FILE`` or ``FILE#…``)."""
    if not files:
        return set()
    names = set(files)
    prefixes = tuple(f + "#" for f in files)
    return {c.doc_id for c in rows if c is not None and (c.doc_id in names or c.doc_id.startswith(prefixes))}


def remove_documents(index_dir: str | Path, ids: Sequence[str], missing_ok: bool = False, progress: bool = False,
                     wait_s: float | None = None, fill: bool = True) -> WriteResult:
    """Take documents out of the index: their chunks, BM25 entries, vectors (and HNSW graph, and a vector
    database's: written by the fill that follows, `fill`), and what a chunk expansion kept about them.
    UnknownDocuments (nothing removed) when an id is not in the index, unless `missing_ok`."""
    out = WriteResult()
    m2 = None
    with writing(index_dir, "remove", wait_s) as snap:
        rows = _rows(snap)
        present = {c.doc_id for c in rows if c is not None}
        wanted = list(dict.fromkeys(str(i) for i in ids))
        out.missing = [i for i in wanted if i not in present]
        if out.missing and not missing_ok:
            raise UnknownDocuments(f"no document {', '.join(map(repr, out.missing[:10]))} in the index"
                                   + (f" (and {len(out.missing) - 10} more)" if len(out.missing) > 10 else "")
                                   + "; nothing was removed", out.missing, str(index_dir))
        out.removed = [i for i in wanted if i in present]
        out.generation = snap.manifest.generation
        if out.removed:
            change = update.plan(rows, set(out.removed), [], snap.manifest)
            change.action = "remove"
            change.records = {i: None for i in out.removed}
            m2 = _commit(snap, change, [], progress)
            out.generation, out.chunks = m2.generation, change.result
    if m2 is not None:
        _fill(index_dir, m2, fill, "remove", progress, 256, None)
        out.generation = read_manifest(index_dir).generation
    return out


def _within(source: str, root: Path) -> bool:
    return source == str(root) or source.startswith(str(root).rstrip("/") + "/")


def _sync_plan(snap: Snapshot, docs: list[Document], src: Path, report: ReadReport) -> tuple[Change, WriteResult]:
    """What makes the index hold what `src` holds now (its documents `docs`)."""
    out = WriteResult()
    rows = _rows(snap)
    present = {c.doc_id for c in rows if c is not None}
    records = read_records(snap.dir)
    fresh = {d.id: doc_record(d) for d in docs}
    redo = [d for d in docs if d.id not in present or records.get(d.id, {}).get("sha256") != fresh[d.id]["sha256"]]
    out.added = [d.id for d in redo if d.id not in present]
    out.changed = [d.id for d in redo if d.id in present]
    out.unchanged = [d.id for d in docs if d.id in present and d.id not in set(out.changed)]
    unreadable = {str(Path(s.path).resolve()) for s in report.skipped}
    mine = [i for i, r in records.items() if i in present and i not in fresh and _within(r.get("source", ""), src)]
    out.kept = [i for i in mine if records[i].get("source") in unreadable]
    out.removed = [i for i in mine if i not in set(out.kept)]
    chunks = chunk_all(redo, ChunkingConfig.from_dict(snap.manifest.config.get("chunking") or {}))
    change = update.plan(rows, {d.id for d in redo} | set(out.removed), chunks, snap.manifest)
    change.action = "sync"
    change.result.report = report
    change.records = {**{d.id: fresh[d.id] for d in redo}, **{i: None for i in out.removed}}
    return change, out


def sync_source(index_dir: str | Path, source: str | Path, progress: bool = False, skip_bad: bool = False,
                checkpoint_rows: int = 256, wait_s: float | None = None, fill: bool = True,
                strict: bool = False, originals: bool | None = None) -> WriteResult:
    """Make the index hold what `source` (a folder or a corpus file) holds now: documents not indexed yet
    are added, documents whose content changed are re-indexed (by content hash), and documents that came
    from `source` and are gone from it are removed. Documents of a file that could not be read are kept,
    and the file is listed with its reason in ``result.chunks.report`` (``strict``: any such file is an
    error and nothing changes).

    The original file of every document it (re)indexes is copied into the index when the index keeps
    originals (gaji.index.originals); `originals` True/False switches that setting for this index from now
    on (False: the copies are removed), None leaves it as it is."""
    resolved = resolve_sources([source])
    src = Path(str(resolved[0])).resolve()
    docs, report = read_documents(resolved, skip_bad=skip_bad, allow_empty=True, strict=strict, isolate=True)
    m2 = None
    with writing(index_dir, "sync", wait_s) as snap:
        change, out = _sync_plan(snap, docs, src, report)
        out.chunks = change.result
        out.generation = snap.manifest.generation
        _keep_originals(snap, change, originals)
        if out.added or out.changed or out.removed or change.originals is not None:
            m2 = _commit(snap, change, source_names(resolved), progress)
            out.generation = m2.generation
    note_read(index_dir, src, docs, report)
    if m2 is not None:
        _fill(index_dir, m2, fill, "sync", progress, checkpoint_rows, None)
        out.generation = read_manifest(index_dir).generation
    return out


def note_read(index_dir: str | Path, src: Path, docs: Sequence[Document], report: ReadReport) -> None:
    """Keep the files of `src` that could not be read, with their reasons, beside the index (gaji.index.refusals),
    named as the documents list names files; the files read now are no longer refused."""
    def name(path: str) -> str:
        p = Path(path).resolve()
        try:
            return p.relative_to(src).as_posix() if src.is_dir() else p.name
        except ValueError:
            return p.name

    refused = [Refusal(name(s.path), s.reason, s.msg) for s in report.skipped if s.field is None and s.record_id is None]
    read_ok = {(d.location.file if d.location is not None and d.location.file else d.id.partition("#")[0]) for d in docs}
    note_refusals(index_dir, refused, read_ok)


class Writable:
    """The writing methods of gaji.index.store.Index: each goes through this module (the writer lock, the
    committed generation, a new one), then the Index reads the index's newest generation (`_switch`)."""

    path: Path

    def _switch(self) -> None:  # pragma: no cover - the Index's
        raise NotImplementedError

    def add(self, documents_or_paths: Iterable[Document | str | Path] | str | Path, progress: bool = False,
            skip_bad: bool = False, checkpoint_rows: int = 256, fill: bool = True, embed_workers: int | None = None,
            wait_s: float | None = None, files: Sequence[str] = (), strict: bool = False,
            originals: bool | None = None, blobs: Mapping[str, bytes] | None = None) -> AddResult:
        """Add documents (same chunking as the build). A document whose id is already indexed replaces
        its old chunks: changed chunks are re-indexed and re-embedded, unchanged ones are left alone,
        chunks it no longer has are removed. Atomic, BM25 first: the vectors are filled then (`fill`;
        `embed_workers` as in gaji.index.fill) or left for gaji.index.fill. `files`: see `add_documents`."""
        try:
            return add_documents(self.path, documents_or_paths, progress, skip_bad, checkpoint_rows, wait_s,
                                 fill=fill, embed_workers=embed_workers, files=files, strict=strict,
                                 originals=originals, blobs=blobs)
        finally:  # an add that fails while filling vectors has published its BM25 rows already
            self._switch()

    def remove(self, ids: Iterable[str], missing_ok: bool = False, wait_s: float | None = None) -> WriteResult:
        """Take documents out of the index (`remove_documents`)."""
        result = remove_documents(self.path, list(ids), missing_ok=missing_ok, wait_s=wait_s)
        self._switch()
        return result

    def sync(self, source: str | Path, progress: bool = False, skip_bad: bool = False,
             wait_s: float | None = None, strict: bool = False, originals: bool | None = None) -> WriteResult:
        """Make the index hold what `source` holds now (`sync_source`)."""
        result = sync_source(self.path, source, progress, skip_bad, wait_s=wait_s, strict=strict, originals=originals)
        self._switch()
        return result
