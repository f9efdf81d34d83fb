"""Computing the vectors a published index lacks (its `FillPlan`), resumably, while BM25 already answers.

    fill_vectors("runs/idx", progress=True)      # `gaji index fill runs/idx`; builds and adds call it too

One process fills an index at a time (a lock file beside the folder, released when the process ends);
another call returns at once with `FillResult.busy`. Embeddings are checkpointed every
`checkpoint_rows` rows, so a killed fill resumes after its last checkpoint without embedding those rows
again. The embedding reads the committed generation (pinned) and takes no writer lock, so adds and
removals go on meanwhile; when every planned row has its vector, the fill takes the writer lock and
commits a generation whose vectors (an HNSW graph, a dense store) are complete: hybrid search is on from
then on. Should an add replace the plan meanwhile, the fill notices at its next checkpoint (or at its
commit) and goes on with the new plan.
"""
from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gaji.errors import IndexUnusableError
from gaji.stores.sync import push_vectors, sync_rows

from .chunkstore import ChunkStore
from .dense import DenseIndex
from .fillplan import FillPlan, base_vectors, texts_of
from .generations import Snapshot, commit_manifest, snapshot
from .journal import store_pending, store_synced
from .layout import DENSE_DIR, FILL_DIR, fill_lock
from .lock import IndexBusy
from .manifest import Manifest, utc_now
from .progress_file import FileBars, ProgressFile
from .session import writing
from .steps import embed_rows
from .workers import fill_embedder

__all__ = ["FillResult", "fill_vectors"]


@dataclass
class FillResult:
    """What one `fill_vectors` call did."""

    embedded: int = 0  # rows embedded by this call
    resumed: int = 0  # rows an interrupted fill had checkpointed before
    seconds: float = 0.0
    complete: bool = False  # the index's vectors are complete now
    busy: bool = False  # another process is filling this index: nothing was done

    def rate(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0


class _closing(AbstractContextManager):
    """Closes an embedder that has a `close` (worker processes) when the block ends."""

    def __init__(self, emb: Any):
        self.emb = emb

    def __enter__(self) -> Any:
        return self.emb

    def __exit__(self, *exc: Any) -> None:
        close = getattr(self.emb, "close", None)
        if callable(close):
            close()


class _PlanChanged(Exception):
    """The index got a new plan (an add) while this fill was working on the old one."""


@contextmanager
def _only_filler(path: Path) -> Iterator[bool]:
    """Whether this process may fill `path` (True while it holds the lock file beside the folder, which is
    removed when released: a lock taken on a file somebody removed meanwhile is taken again)."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here: trust the caller
        yield True
        return
    lock = fill_lock(path)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            yield False
            return
        try:
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield True
    finally:
        try:
            os.unlink(lock)
        except FileNotFoundError:
            pass
        os.close(fd)  # releases the lock


def _current_plan(path: Path) -> tuple[Snapshot, FillPlan] | None:
    """The committed generation (pinned) and its plan, or None when its vectors are complete."""
    snap = snapshot(path)
    if not snap.manifest.vectors_pending:
        snap.release()
        return None
    plan = FillPlan.load(snap.dir)
    if plan is None:
        snap.release()
        raise IndexUnusableError(f"{path}: the manifest says vectors are pending but there is no plan of them "
                          f"({FILL_DIR}/ missing); rebuild the index with `gaji index build`")
    return snap, plan


def fill_vectors(index_dir: str | Path, embedder: Any = None, progress: bool = False, checkpoint_rows: int = 256,
                 action: str = "fill", workers: int | None = None) -> FillResult:
    """Embed the rows the index at `index_dir` still lacks and commit its vectors as complete.
    `embedder`: default the model the plan names, in `workers` worker processes (None: where that measured
    faster, gaji.index.workers.fill_embedder); `action` labels progress.json."""
    path = Path(index_dir)
    t0 = time.perf_counter()
    result = FillResult()
    with _only_filler(path) as mine:
        if not mine:
            result.busy = True
            return result
        report = ProgressFile(path, action)
        planned = 0
        try:
            while (current := _current_plan(path)) is not None:
                snap, plan = current
                planned = len(plan.rows)
                try:
                    _fill(path, snap, plan, embedder, FileBars(progress, report), checkpoint_rows, result, workers)
                except (_PlanChanged, IndexBusy):  # a new plan, or a long writer: look again
                    continue
                finally:
                    snap.release()
        except BaseException as e:
            report.stopped(type(e).__name__ if isinstance(e, KeyboardInterrupt) else str(e) or type(e).__name__)
            raise
        result.seconds = time.perf_counter() - t0
        if planned:
            report.stage("done", total=planned, done=planned, rate=result.rate())
    result.complete = True
    return result


def _texts(parts: Path, plan: FillPlan, m: Manifest) -> list[str]:
    texts = texts_of(m)
    store = ChunkStore(parts)
    try:
        chunks = [store.get(r) for r in plan.rows]
    finally:
        store.close()
    return [texts.dense(c) if c is not None else "" for c in chunks]


def _fill(path: Path, snap: Snapshot, plan: FillPlan, embedder: Any, bars: FileBars, checkpoint_rows: int,
          result: FillResult, workers: int | None) -> None:
    if embedder is None:
        with _closing(fill_embedder(plan.model, len(plan.rows), workers)) as own:
            return _fill(path, snap, plan, own, bars, checkpoint_rows, result, workers)
    emb = embedder
    if emb.model_id != plan.model:
        raise IndexUnusableError(f"{path}: the vectors so far were made with {plan.model!r}, not {emb.model_id!r}; "
                          "fill them with the same embedder or rebuild the index")

    def still_current() -> None:
        if not plan.is_current(path):
            raise _PlanChanged

    stats: dict[str, Any] = {}
    texts = _texts(snap.dir, plan, snap.manifest)
    assert bars.file is not None
    bars.file.stage("embedding", total=len(texts))
    with bars:
        vectors = embed_rows(texts, emb, plan.parts_dir(path), bars, checkpoint_rows, stats, before_save=still_current)
    still_current()
    bars.file.stage("vectors", total=len(texts), done=len(texts), rate=bars.file.state.get("rate"))
    result.embedded += int(stats.get("embedded_rows", 0))
    result.resumed += int(stats.get("resumed_rows", 0))
    _complete(path, plan, vectors, stats)


def _to_store(path: Path, m: Manifest, plan: FillPlan, vecs: np.ndarray, live: np.ndarray,
              stats: dict[str, Any]) -> None:
    """Keep a vector database (config "dense_store") in step: all vectors after a build, changed rows after an
    add. It has no generations: the journal (gaji.index.journal) redoes this if the commit does not follow."""
    url = m.config.get("dense_store")
    if not url:
        return
    store_pending(path)
    if plan.action == "build":
        m.config["dense_store"] = push_vectors(str(url), path.resolve().name, plan.fingerprint, vecs,
                                               None if live.all() else live, stats=stats)
    else:
        rows = np.asarray(plan.rows, dtype=np.int64)
        sync_rows(str(url), rows, vecs[rows], np.asarray(plan.deleted, dtype=np.int64))


def _write_vectors(path: Path, parts: Path, m: Manifest, plan: FillPlan, vectors: np.ndarray,
                   stats: dict[str, Any]) -> None:
    """The whole dense part into `parts` (and the vector database); the manifest `m` says complete."""
    t0 = time.perf_counter()
    n = int(m.counts.get("rows", 0))
    full = base_vectors(parts, n, plan.dim)
    rows = np.asarray(plan.rows, dtype=np.int64)
    if len(rows):
        full[rows] = vectors
    store = ChunkStore(parts)
    try:
        live = store.live_mask()
    finally:
        store.close()
    full[~live] = 0.0
    if plan.patch_hnsw:
        DenseIndex.append(parts / DENSE_DIR, full, rows)
    else:
        DenseIndex.write(parts / DENSE_DIR, full, plan.backend, None if live.all() else live)
    stats["dense_write_s"] = time.perf_counter() - t0
    _to_store(path, m, plan, full, live, stats)
    m.vectors = {"state": "complete", "rows": n}
    m.config["dense_backend"] = plan.backend
    m.updated = utc_now()
    if plan.action == "build":  # a build's timings; an add's are not kept, as before
        m.stats.update({k: (round(v, 4) if isinstance(v, float) else v) for k, v in stats.items()})
        m.build_seconds = round(m.build_seconds + float(stats.get("embed_s", 0.0)) + stats["dense_write_s"], 3)


def _complete(path: Path, plan: FillPlan, vectors: np.ndarray, stats: dict[str, Any]) -> None:
    """Under the writer lock: the dense part written into the committed generation's folder, then a
    manifest saying the vectors are complete committed as the next generation (same parts). Writing into
    a committed generation is safe here and only here: while its manifest says pending nobody reads its
    dense part (gaji.index.pending), and every write is idempotent, so a fill killed before the manifest
    is simply done again. _PlanChanged when an add replaced the plan meanwhile."""
    with writing(path, "fill") as snap:
        if not snap.manifest.vectors_pending or not plan.is_current(path):
            raise _PlanChanged
        m = Manifest.from_dict(snap.manifest.to_dict())
        _write_vectors(path, snap.dir, m, plan, vectors, stats)
        m.generation += 1
        commit_manifest(path, m)
        store_synced(path)
        shutil.rmtree(snap.dir / FILL_DIR, ignore_errors=True)  # a complete generation has no plan
    shutil.rmtree(plan.parts_dir(path), ignore_errors=True)
    try:
        plan.parts_dir(path).parent.rmdir()  # when it was the only one
    except OSError:
        pass
