"""Building an index folder: read -> chunk -> (extension) -> lexical -> publish -> dense vectors.

    idx = build_index(["corpus.jsonl", "notes/"], "runs/idx")        # or Documents, or "hotpotqa"
    idx = build_index(corpus, "runs/idx", fill=False)   # back as soon as BM25 answers; then gaji.index.fill

BM25 first: the index is published (swapped into place, searchable with BM25) as soon as its chunks and
BM25 part are written, with a manifest saying its vectors are pending and a plan of them
(gaji.index.fillplan). The vectors are filled afterwards (gaji.index.fill: checkpointed, resumable) and
hybrid search switches on when they are complete.

Atomicity: a build holds the target's writer lock (gaji.index.lock) until it is published, and writes
into ``.<name>.building`` beside the target; publishing renames that folder to the target when there is
none, else commits it as the target's next generation (gaji.index.generations), so that readers of the
old index, a running server, switch on their next request. A build interrupted before that leaves only
that folder: rerunning the same build resumes it (a finished BM25 part
is kept; the chunk store is rewritten, it is cheap), while a build with different inputs or settings
wipes it and starts clean; what a rerun may keep is recorded by `BuildState` in that folder. A build
interrupted while filling vectors leaves a published index: rerunning the same build (or
`gaji index fill`) goes on filling from the last checkpoint.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import ChunkingConfig
from gaji.corpus.readers import ReadReport, read_documents
from gaji.errors import ConfigError, IndexUnusableError
from gaji.io import atomic_write_json
from gaji.stores.sync import check_store
from gaji.types import Chunk, Document

from .chunkstore import ChunkStore
from .dense import choose_backend, get_embedder
from .fill import fill_vectors
from .fillplan import FillPlan, pending_state
from .folders import check_target, empty_build_dir
from .generations import collect, install
from .layout import DENSE_DIR, FILL_DIR, LEXICAL_DIR, LOCK, PARTS_DIR, STATE, building_dir
from .lock import writer_lock
from .manifest import Manifest, current_versions, read_manifest, utc_now
from .originals import keep_originals
from .progress_file import FileBars, ProgressFile
from .sources import chunk_all, doc_record, resolve_sources, source_names, write_records
from .steps import index_lexical
from .store import Index, open_index
from .texts import BuildExtension, ChunkTexts, Prepared

__all__ = ["build_index", "BuildState", "fingerprint"]


@dataclass
class BuildState:
    """What an interrupted build leaves for a rerun of the same build (build-state.json in its folder)."""

    fingerprint: str  # of the inputs and settings: another build never resumes this one
    lexical_done: str | None = None  # the analyser the finished BM25 part was made with
    lexical_stats: dict[str, Any] = field(default_factory=dict)  # its timings, reported again on resume
    dense_model: str | None = None  # set by builds that embedded before publishing (dense-parts/); read back only

    @property
    def resumed(self) -> bool:
        return bool(self.lexical_done or self.dense_model)

    def save(self, work: Path) -> None:
        atomic_write_json(work / STATE, asdict(self))

    @classmethod
    def load(cls, work: Path) -> "BuildState | None":
        try:
            d = json.loads((work / STATE).read_text(encoding="utf-8"))
            return cls(str(d["fingerprint"]), d.get("lexical_done"), dict(d.get("lexical_stats") or {}),
                       d.get("dense_model"))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    @classmethod
    def begin(cls, work: Path, fingerprint: str) -> "BuildState":
        """The state of an interrupted build of the same inputs in `work`; otherwise `work` is emptied and
        a new build starts there."""
        state = cls.load(work) if work.exists() else None
        if state is None or state.fingerprint != fingerprint:
            empty_build_dir(work)
            state = cls(fingerprint)
        work.mkdir(parents=True, exist_ok=True)
        state.save(work)
        return state


def fingerprint(chunks: Sequence[Chunk], chunking: ChunkingConfig) -> str:
    """Of the chunks (ids, titles, texts) and the chunking settings."""
    h = hashlib.sha256(json.dumps(chunking.to_dict(), sort_keys=True).encode())
    for c in chunks:
        h.update(b"\x00" + c.id.encode() + b"\x01" + c.title.encode() + b"\x02" + c.text.encode())
    return h.hexdigest()


@dataclass
class _Inputs:
    """What was read and chunked (and rewritten by an extension)."""

    chunking: ChunkingConfig
    sources: list[str]  # as the manifest lists them
    docs: int
    report: ReadReport
    records: dict[str, dict[str, str]]  # documents.json
    prepared: Prepared
    stats: dict[str, Any]  # the manifest's stats, filled by every step


@dataclass
class _Build:
    """One build's inputs and resolved settings, handed from step to step."""

    out: Path
    inputs: _Inputs
    fingerprint: str
    analyzer: Any  # None: no BM25 part
    embedder: Any  # None: no dense part
    backend: str | None
    backend_requested: str
    dense_store: str | None
    checkpoint_rows: int
    started: float
    report: ProgressFile | None = None
    originals: bool = True  # keep a copy of every file read (gaji.index.originals)

    @property
    def work(self) -> Path:
        return building_dir(self.out)

    @property
    def chunks(self) -> list[Chunk]:
        return self.inputs.prepared.chunks

    @property
    def texts(self) -> ChunkTexts:
        return self.inputs.prepared.texts

    @property
    def stats(self) -> dict[str, Any]:
        return self.inputs.stats


def _check_parts(lexical: bool, dense: bool, dense_store: str | None) -> None:
    if not lexical and not dense:
        raise ConfigError("an index needs at least one of lexical (BM25) or dense")
    if dense_store and not dense:
        raise ConfigError("--dense-store needs the dense part: drop --no-dense")
    if dense_store:  # a store that is down fails now, not after the corpus is embedded
        check_store(dense_store)


def _read(sources: Any, out: Path, chunking: Any, skip_bad: bool, limit: int | None, progress: bool,
          extension: BuildExtension | None, progress_file: ProgressFile, strict: bool = False) -> _Inputs:
    """Read and chunk the sources, then let the extension rewrite the chunks."""
    cfg = chunking if isinstance(chunking, ChunkingConfig) else ChunkingConfig.from_dict(chunking or {})
    stats: dict[str, Any] = {}
    resolved = resolve_sources(sources)
    t0 = time.perf_counter()
    progress_file.stage("read")
    docs, report = read_documents(resolved, skip_bad=skip_bad, limit=limit, strict=strict, isolate=True)
    stats["read_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    progress_file.stage("chunk", total=len(docs))
    chunks = chunk_all(docs, cfg)
    stats["chunk_s"] = time.perf_counter() - t0
    if extension is not None:
        progress_file.stage("extension", total=len(chunks))
    prepared = extension.prepare(chunks, out, progress) if extension is not None else Prepared(chunks)
    stats.update(prepared.stats)
    records = {d.id: doc_record(d) for d in docs}
    return _Inputs(cfg, source_names(resolved), len(docs), report, records, prepared, stats)


def _lexical_step(b: _Build, state: BuildState, prog: FileBars) -> None:
    """BM25 over the chunks' lexical texts, unless an interrupted run of this build finished it."""
    work = b.work
    if b.analyzer is None:
        shutil.rmtree(work / LEXICAL_DIR, ignore_errors=True)
        return
    if state.lexical_done != b.analyzer.name:
        state.lexical_done = None
        state.save(work)
        lex_stats: dict[str, Any] = {}
        if prog.file is not None:
            prog.file.stage("bm25", total=len(b.chunks))
        index_lexical(work / LEXICAL_DIR, list(enumerate(b.chunks)), b.analyzer, prog, lex_stats, create=True,
                      text=b.texts.lexical)
        state.lexical_done, state.lexical_stats = b.analyzer.name, lex_stats
        state.save(work)
    b.stats.update(state.lexical_stats)  # measured by whichever run did it


def _plan_vectors(b: _Build) -> FillPlan | None:
    """The plan of every row's vector, for the fill after publishing (the build itself embeds nothing)."""
    work = b.work
    shutil.rmtree(work / PARTS_DIR, ignore_errors=True)  # checkpoints of builds that embedded before publishing
    shutil.rmtree(work / DENSE_DIR, ignore_errors=True)
    shutil.rmtree(work / FILL_DIR, ignore_errors=True)
    if b.embedder is None:
        return None
    plan = FillPlan(list(range(len(b.chunks))), b.embedder.model_id, int(b.embedder.dim), str(b.backend),
                    fingerprint=b.fingerprint)
    plan.save(work)
    return plan


def _config(b: _Build) -> dict[str, Any]:
    analyzer, embedder, texts = b.analyzer, b.embedder, b.texts
    return {
        "chunking": b.inputs.chunking.to_dict(),
        "lexical": analyzer is not None,
        "analyzer": analyzer.name if analyzer else None,
        "dense": embedder is not None,
        "embedding_model": embedder.model_id if embedder else None,
        "embedding_dim": embedder.dim if embedder else None,
        "dense_backend": b.backend,
        "dense_backend_requested": b.backend_requested if embedder else None,
        **({"dense_store": b.dense_store} if embedder and b.dense_store else {}),
        **({"compose": texts.name} if texts.name else {}),
        "originals": b.originals,
        **b.inputs.prepared.config,
    }


def _manifest(b: _Build, plan: FillPlan | None) -> Manifest:
    now = utc_now()
    n, docs = len(b.chunks), b.inputs.docs
    b.stats["searchable_s"] = time.perf_counter() - b.started
    return Manifest(
        complete=True,
        created=now,
        updated=now,
        build_seconds=round(time.perf_counter() - b.started, 3),
        config=_config(b),
        versions=current_versions(),
        counts={"documents": docs, "chunks": n, "rows": n, "deleted": 0},
        stats={k: (round(v, 4) if isinstance(v, float) else v) for k, v in b.stats.items()},
        sources=b.inputs.sources,
        history=[{"time": now, "action": "build", "documents": docs, "chunks": n,
                  "skipped": len(b.inputs.report.skipped)}],
        vectors=pending_state(plan, n) if plan is not None else {},
    )


def _publish(b: _Build, extension: BuildExtension | None) -> Index:
    """Plan the vectors, write the manifest last, put the folder in place, open it: BM25 answers now."""
    plan = _plan_vectors(b)
    if b.originals:  # before the commit: a document readers see has its original in place
        kept = keep_originals(b.out if b.out.exists() else b.work, b.inputs.records)
        b.stats["originals"] = kept.to_dict()
    manifest = _manifest(b, plan)
    (b.work / STATE).unlink(missing_ok=True)
    if extension is not None:
        extension.finish(b.work, b.out)
    install(b.work, b.out, manifest)
    collect(b.out)
    if b.report is not None:
        b.report.moved(b.out)
        b.report.stage("searchable" if plan is not None else "done", total=len(b.chunks), done=len(b.chunks))
    if extension is not None:
        extension.cleanup(b.out)
    idx = open_index(b.out)
    idx.read_report = b.inputs.report
    return idx


def _published(b: _Build) -> Index | None:
    """The index this same build published before it was interrupted while filling vectors, if that is
    what is at `b.out` (same chunks, settings and embedder): the rerun goes on filling it."""
    if b.embedder is None:
        return None
    try:
        m = read_manifest(b.out)
        plan = FillPlan.load(b.out) if m.vectors_pending else None
    except IndexUnusableError:
        return None
    if plan is None or plan.joined or plan.fingerprint != b.fingerprint or plan.model != b.embedder.model_id:
        return None
    if {k: v for k, v in m.config.items() if k != "dense_store"} != {k: v for k, v in _config(b).items()
                                                                     if k != "dense_store"}:
        return None
    idx = open_index(b.out)
    idx.read_report = b.inputs.report
    return idx


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
    extension: BuildExtension | None = None,
    dense_store: str | None = None,
    fill: bool = True,
    embed_workers: int | None = None,
    wait_s: float | None = None,
    strict: bool = False,
    originals: bool = True,
) -> Index:
    """Build an index from documents, files, folders or shared dataset names into `out_dir`.

    A file that cannot be read is left out and listed (with its reason) in `index.read_report`, and the
    other files are indexed: a partial build (``index.read_report.partial``). ``strict=True`` makes any
    unreadable file fail the whole build instead, with nothing written.

    The result replaces an existing index at `out_dir` once its BM25 part is complete; its vectors are
    then filled (`fill`, default) before this returns, or left pending (`fill=False`: BM25 answers, hybrid
    waits for `gaji.index.fill.fill_vectors(out_dir)`). `embed_workers`: worker processes of the fill
    (None: automatic, gaji.index.workers.fill_embedder; not used with a given `embedder`). The read report
    (skipped records) is on the returned index as `index.read_report`. `embedder` (default: E5) must be
    obtainable again by `gaji.index.dense.get_embedder(embedder.model_id)` for the index to open.
    `extension` changes the chunks and their texts after chunking (chunk expansion:
    `gaji.expand.index_hook.expansion_step`). `dense_store`: a vector-database URL (milvus://HOST:PORT,
    qdrant+local:DIR, see gaji/stores/) that receives the vectors; searches then go to it
    (dense/vectors.npy is still written, as the copy `gaji index attach-store` can reload a store from).
    `wait_s`: how long to wait for another writer of `out_dir` (gaji.index.lock; IndexBusy after it).
    `originals`: keep a copy of each file read in the index, for citations to open (gaji.index.originals).
    """
    _check_parts(lexical, dense, dense_store)
    out = Path(out_dir)
    check_target(out)  # before the lock: a target that cannot be built fails without leaving a folder
    out.parent.mkdir(parents=True, exist_ok=True)
    with writer_lock(out, wait_s, "build"):  # until published; the vectors are filled outside it
        check_target(out)
        b = _prepare(documents_or_paths, out, lexical, dense, chunking, progress, skip_bad, dense_backend, limit,
                     checkpoint_rows, korean_analyzer, embedder, extension, dense_store, strict, originals)
        idx = _published(b)
        if idx is None:
            idx = _write_and_publish(b, extension, progress)
        else:  # this build was published already: only its vectors are left to fill
            shutil.rmtree(b.work, ignore_errors=True)
    note_build_refusals(out, b.inputs.sources, b.inputs.report)  # the files it could not read (gaji.index.refusals)
    if fill and idx.manifest.vectors_pending:
        fill_vectors(out, embedder, progress, checkpoint_rows, action="build", workers=embed_workers)
        report = idx.read_report
        idx = open_index(out)
        idx.read_report = report
    return idx


def _write_and_publish(b: Any, extension: BuildExtension | None, progress: bool) -> Index:
    """The build's chunks and records written, BM25 indexed (resuming a stopped build), then published."""
    state = BuildState.begin(b.work, b.fingerprint)
    b.stats["resumed"] = state.resumed
    ChunkStore.write(b.work, b.chunks)
    write_records(b.work, b.inputs.records)
    with FileBars(progress, b.report) as prog:
        _lexical_step(b, state, prog)
    return _publish(b, extension)


def note_build_refusals(out: Path, sources: list[str], report: Any) -> None:
    """A new build's refused files replace what the folder noted before, named relative to the folder read."""
    from .refusals import Refusal, replace_refusals

    roots = [Path(s).resolve() for s in sources if not s.startswith("<") and Path(s).is_dir()]

    def name(path: str) -> str:
        p = Path(path).resolve()
        for r in roots:
            if p.is_relative_to(r):
                return p.relative_to(r).as_posix()
        return p.name

    replace_refusals(out, [Refusal(name(s.path), s.reason, s.msg) for s in report.skipped
                           if s.field is None and s.record_id is None])


def _prepare(sources: Any, out: Path, lexical: bool, dense: bool, chunking: Any, progress: bool, skip_bad: bool,
             dense_backend: str, limit: int | None, checkpoint_rows: int, korean_analyzer: str, embedder: Any,
             extension: BuildExtension | None, dense_store: str | None, strict: bool = False,
             originals: bool = True) -> _Build:
    """Read and chunk the sources and resolve the settings."""
    from gaji.text.analyzers import default_analyzer

    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    work = building_dir(out)
    fresh = not work.exists() or all(e.name == LOCK for e in work.iterdir())  # (the lock of a new target)
    work.mkdir(exist_ok=True)  # progress.json is readable from the first second
    report = ProgressFile(work, "build")
    try:
        inputs = _read(sources, out, chunking, skip_bad, limit, progress, extension, report, strict)
    except BaseException:
        if fresh:  # nothing of this build is worth keeping
            shutil.rmtree(work, ignore_errors=True)
        raise
    chunks = inputs.prepared.chunks
    analyzer = default_analyzer(korean_analyzer) if lexical else None
    if dense and embedder is None:
        embedder = get_embedder()
    fp = fingerprint(chunks, inputs.chunking) + (f"/{inputs.prepared.fingerprint}" if extension is not None else "")
    return _Build(out, inputs, fp, analyzer, embedder if dense else None,
                  backend=choose_backend(dense_backend, len(chunks)) if dense else None,
                  backend_requested=dense_backend, dense_store=dense_store, checkpoint_rows=checkpoint_rows,
                  started=started, report=report, originals=originals)
