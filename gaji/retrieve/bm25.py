"""bm25: tantivy BM25 over the index's analysed text (Kiwi morphemes for Korean, Porter stems for English).

    r = index.retriever("bm25")
    r.search("캐리비안의 해적 시리즈 중 관객이 가장 많은 작품은?", k=5)   # -> list[Passage], best first

The query is analysed like the index's text (its analyser routes each word by script); the scoring and
the on-disk index are gaji.index.lexical's.
"""
from __future__ import annotations

from typing import Any

from gaji.registry import RETRIEVERS
from gaji.types import Passage, Retriever

from .rows import check_k, passages_at

__all__ = ["BM25Retriever"]


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
        return self.index.lexical.search(self.terms(query), check_k(k))

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return passages_at(self.index, self.search_rows(query, k), self.name)

    def describe(self) -> dict:
        return {"name": self.name, "analyzer": self.index.analyzer.name, "k1": 1.2, "b": 0.75}


@RETRIEVERS.register("bm25", help="BM25 (tantivy) over Kiwi-analysed Korean / Porter-stemmed English")
def _bm25(index, **kw: Any) -> Retriever:
    return BM25Retriever(index, **kw)
