"""hybrid: reciprocal-rank fusion of bm25 and dense over their top-`depth` lists (gaji.retrieve.fusion).

    r = index.retriever("hybrid", rrf_k=60, weights="bm25=1,dense=1", depth=50)
    r.search("Which battle occurred first?", k=5)   # -> list[Passage], best first
"""
from __future__ import annotations

from typing import Any

from gaji.errors import ConfigError
from gaji.registry import RETRIEVERS
from gaji.types import Passage, Retriever

from .bm25 import BM25Retriever
from .dense import DenseRetriever
from .fusion import DEFAULT_DEPTH, DEFAULT_RRF_K, parse_weights, rrf_fuse
from .rows import check_k, to_passage

__all__ = ["HybridRetriever"]


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
        k = check_k(k)
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


@RETRIEVERS.register("hybrid", help="reciprocal-rank fusion of bm25 and dense (k=60)",
                     options={"rrf_k": float, "weights": str, "depth": int, "cache_size": int})
def _hybrid(index, **kw: Any) -> Retriever:
    return HybridRetriever(index, **kw)
