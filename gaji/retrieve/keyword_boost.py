"""Keyword-boosted lexical retrieval (paper 001, §3.1: query keywords feed retrieval).

    r = index.retriever("bm25+kw", tagger="runs/tagger", boost=2)      # or $GAJI_TAGGER
    r = index.retriever("hybrid+kw", tagger="runs/tagger")            # RRF of boosted BM25 and dense

The query's keywords (BIO tagger, gaji/expand/tagger.py) are analysed like the query and their terms
added `boost` more times to the BM25 query, whose term weights are term counts
(gaji/index/lexical.py): keyword terms weigh 1 + boost, the other query terms 1. The dense side is
unchanged. `keyword_fn` (a callable query -> keywords) replaces the tagger (tests, an LLM teacher).
The keywords found are kept on `last_keywords` for inspection.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gaji.errors import ConfigError
from gaji.expand.keyword_source import keyword_fn as keywords_from
from gaji.registry import RETRIEVERS

from .bm25 import BM25Retriever
from .hybrid import HybridRetriever

__all__ = ["KeywordBM25Retriever", "keyword_hybrid"]


class KeywordBM25Retriever(BM25Retriever):
    """BM25 whose query terms are the query's plus its keywords' terms repeated `boost` times."""

    name = "bm25+kw"

    def __init__(self, index, tagger: Any = None, boost: float = 2.0,
                 keyword_fn: Callable[[str], list[str]] | None = None, **kw: Any):
        super().__init__(index, **kw)
        self.boost = int(round(float(boost)))
        if self.boost < 0:
            raise ConfigError(f"keyword boost must be >= 0, got {boost}")
        self.keyword_fn = keywords_from(tagger, keyword_fn)
        self.last_keywords: list[str] = []

    def terms(self, query: str) -> list[str]:
        base = self.index.analyzer.analyze(query)
        kws = self.keyword_fn(query) if query.strip() else []
        self.last_keywords = kws
        extra: list[str] = []
        for kw in kws:
            extra.extend(self.index.analyzer.analyze(kw))
        return base + extra * self.boost

    def describe(self) -> dict:
        return {**super().describe(), "name": self.name, "keyword_boost": self.boost}


def keyword_hybrid(index, tagger: Any = None, boost: float = 2.0,
                   keyword_fn: Callable[[str], list[str]] | None = None, **kw: Any) -> HybridRetriever:
    h = HybridRetriever(index, **kw)
    h.bm25 = KeywordBM25Retriever(index, tagger=tagger, boost=boost, keyword_fn=keyword_fn)
    h.name = "hybrid+kw"
    return h


@RETRIEVERS.register("bm25+kw", help="BM25 with the query's keywords (BIO tagger) boosted (paper 001)",
                     options={"boost": float, "tagger": str})
def _bm25kw(index, **kw: Any):
    return KeywordBM25Retriever(index, **kw)


@RETRIEVERS.register("hybrid+kw", help="RRF of keyword-boosted BM25 and dense (paper 001)",
                     options={"boost": float, "tagger": str, "rrf_k": float, "weights": str, "depth": int, "cache_size": int})
def _hybridkw(index, **kw: Any):
    return keyword_hybrid(index, **kw)
