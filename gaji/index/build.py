"""Building an index folder: read -> chunk -> (extension) -> lexical -> dense -> manifest.

    idx = build_index(["corpus.jsonl", "notes/"], "runs/idx")        # or Documents, or "hotpotqa"

Atomicity: a build holds the target's writer lock (gaji.index.lock), writes into ``.<name>.building``
beside the target and puts it in place when complete: renamed to the target when there is none, else
committed as the target's next generation (gaji.index.generations), so that readers of the old index,
a running server, switch on their next request. An interrupted build leaves only that folder:
rerunning the same build resumes it (embeddings are checkpointed every `checkpoint_rows` chunks and a
finished BM25 part is kept; the chunk store is rewritten, it is cheap), while a build with different
inputs or settings empties it and starts clean. What a rerun may keep is recorded by `BuildState` in
that folder.
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
from gaji.errors import ConfigError
from gaji.io import atomic_write_json
from gaji.progress import Bars
from gaji.stores.sync import check_store, push_vectors
from gaji.types import Chunk, Document

from .chunkstore import ChunkStore
from .dense import DenseIndex, choose_backend, get_embedder
from .folders import check_target, empty_build_dir
from .generations import collect, install
from .layout import DENSE_DIR, LEXICAL_DIR, PARTS_DIR, STATE, building_dir
from .lock import writer_lock
from .manifest import Manifest, current_versions, utc_now
from .sources import chunk_all, doc_record, resolve_sources, source_names, write_records
from .steps import embed_rows, index_lexical
from .store import Index, open_index
from .texts import BuildExtension, ChunkTexts, Prepared

__all__ = ["build_index", "BuildState", "fingerprint"]


@dataclass
class BuildState:
    """What an interrupted build leaves for a rerun of the same build (build-state.json in its folder)."""

    fingerprint: str  # of the inputs and settings: another build never resumes this one
    lexical_done: str | None = None  # the analyser the finished BM25 part was made with
    lexical_stats: dict[str, Any] = field(default_factory=dict)  # its timings, reported again on resume
    dense_model: str | None = None  # the embedder of the checkpoints in dense-parts/

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
          extension: BuildExtension | None) -> _Inputs:
    """Read and chunk the sources, then let the extension rewrite the chunks."""
    cfg = chunking if isinstance(chunking, ChunkingConfig) else ChunkingConfig.from_dict(chunking or {})
    stats: dict[str, Any] = {}
    resolved = resolve_sources(sources)
    t0 = time.perf_counter()
    docs, report = read_documents(resolved, skip_bad=skip_bad, limit=limit)
    stats["read_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    chunks = chunk_all(docs, cfg)
    stats["chunk_s"] = time.perf_counter() - t0
    prepared = extension.prepare(chunks, out, progress) if extension is not None else Prepared(chunks)
    stats.update(prepared.stats)
    records = {d.id: doc_record(d) for d in docs}
    return _Inputs(cfg, source_names(resolved), len(docs), report, records, prepared, stats)


def _lexical_step(b: _Build, state: BuildState, prog: Bars) -> None:
    """BM25 over the chunks' lexical texts, unless an interrupted run of this build finished it."""
    work = b.work
    if b.analyzer is None:
        shutil.rmtree(work / LEXICAL_DIR, ignore_errors=True)
        return
    if state.lexical_done != b.analyzer.name:
        state.lexical_done = None
        state.save(work)
        lex_stats: dict[str, Any] = {}
        index_lexical(work / LEXICAL_DIR, list(enumerate(b.chunks)), b.analyzer, prog, lex_stats, create=True,
                      text=b.texts.lexical)
        state.lexical_done, state.lexical_stats = b.analyzer.name, lex_stats
        state.save(work)
    b.stats.update(state.lexical_stats)  # measured by whichever run did it


def _dense_step(b: _Build, state: BuildState, prog: Bars) -> None:
    """Embed the chunks' dense texts (resuming from checkpoints), write the vectors, fill a dense store."""
    work, embedder = b.work, b.embedder
    if embedder is None:
        shutil.rmtree(work / DENSE_DIR, ignore_errors=True)
        return
    parts = work / PARTS_DIR
    if state.dense_model != embedder.model_id and parts.exists():
        shutil.rmtree(parts)
    state.dense_model = embedder.model_id
    state.save(work)
    texts = [b.texts.dense(c) for c in b.chunks]
    vectors = embed_rows(texts, embedder, parts, prog, b.checkpoint_rows, b.stats)
    t0 = time.perf_counter()
    DenseIndex.write(work / DENSE_DIR, vectors, str(b.backend))
    b.stats["dense_write_s"] = time.perf_counter() - t0
    if b.dense_store:
        b.dense_store = push_vectors(b.dense_store, b.out.resolve().name, b.fingerprint, vectors, stats=b.stats)
    shutil.rmtree(parts, ignore_errors=True)


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
        **b.inputs.prepared.config,
    }


def _manifest(b: _Build) -> Manifest:
    now = utc_now()
    n, docs = len(b.chunks), b.inputs.docs
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
    )


def _finish(b: _Build, extension: BuildExtension | None) -> Index:
    """Write the manifest last, put the folder in place, open it."""
    manifest = _manifest(b)
    (b.work / STATE).unlink(missing_ok=True)
    if extension is not None:
        extension.finish(b.work, b.out)
    install(b.work, b.out, manifest)
    collect(b.out)
    if extension is not None:
        extension.cleanup(b.out)
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
    wait_s: float | None = None,
) -> Index:
    """Build an index from documents, files, folders or shared dataset names into `out_dir`.

    The result replaces an existing index at `out_dir` only once complete. The read report (skipped
    records) is on the returned index as `index.read_report`. `embedder` (default: E5) must be
    obtainable again by `gaji.index.dense.get_embedder(embedder.model_id)` for the index to open.
    `extension` changes the chunks and their texts after chunking (chunk expansion:
    `gaji.expand.index_hook.expansion_step`). `dense_store`: a vector-database URL (milvus://HOST:PORT,
    qdrant+local:DIR, see gaji/stores/) that receives the vectors; searches then go to it
    (dense/vectors.npy is still written, as the copy `gaji index attach-store` can reload a store from).
    `wait_s`: how long to wait for another writer of `out_dir` (gaji.index.lock; IndexBusy after it).
    """
    _check_parts(lexical, dense, dense_store)
    out = Path(out_dir)
    check_target(out)  # before the lock: a target that cannot be built fails without leaving a folder
    out.parent.mkdir(parents=True, exist_ok=True)
    with writer_lock(out, wait_s, "build"):
        check_target(out)
        b = _prepare(documents_or_paths, out, chunking, skip_bad, limit, progress, extension, lexical, dense,
                     korean_analyzer, embedder, dense_backend, dense_store, checkpoint_rows)
        state = BuildState.begin(b.work, b.fingerprint)
        b.stats["resumed"] = state.resumed
        ChunkStore.write(b.work, b.chunks)
        write_records(b.work, b.inputs.records)
        with Bars(progress, lines=True) as prog:
            _lexical_step(b, state, prog)
            _dense_step(b, state, prog)
        return _finish(b, extension)


def _prepare(sources: Any, out: Path, chunking: Any, skip_bad: bool, limit: int | None, progress: bool,
             extension: BuildExtension | None, lexical: bool, dense: bool, korean_analyzer: str, embedder: Any,
             dense_backend: str, dense_store: str | None, checkpoint_rows: int) -> _Build:
    """Read and chunk the inputs and resolve the build's settings."""
    from gaji.text.analyzers import default_analyzer

    started = time.perf_counter()
    inputs = _read(sources, out, chunking, skip_bad, limit, progress, extension)
    chunks = inputs.prepared.chunks
    analyzer = default_analyzer(korean_analyzer) if lexical else None
    if dense and embedder is None:
        embedder = get_embedder()
    fp = fingerprint(chunks, inputs.chunking) + (f"/{inputs.prepared.fingerprint}" if extension is not None else "")
    return _Build(out, inputs, fp, analyzer, embedder if dense else None,
                  backend=choose_backend(dense_backend, len(chunks)) if dense else None,
                  backend_requested=dense_backend, dense_store=dense_store, checkpoint_rows=checkpoint_rows,
                  started=started)
