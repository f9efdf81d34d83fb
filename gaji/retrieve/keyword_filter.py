"""Keyword metadata filtering (paper 001: keywords of the query "feed retrieval and filtering").

Each chunk carries keyword metadata: the keywords the tagger finds in its candidate questions (the paper
derives a chunk's keywords from its generated questions), written once per index by
`gaji expand chunk-keywords` (gaji/expand/chunk_keywords.py).

At query time the query's own keywords (same tagger) select candidates:

    r = index.retriever("hybrid+kwf", tagger="runs/tagger")            # soft filter over hybrid's top 50
    r = index.retriever("dense+kwf", tagger="runs/tagger", mode="hard", field="text")

A candidate *matches* when, for at least one query keyword, every analysed term of that keyword is among
the chunk's metadata terms. `field` picks the metadata: ``keywords`` (the chunk-keywords file),
``expansion`` (the chunk's generated title and questions), ``text`` (title + chunk text: a lexical
must-match, usable on an index without expansion), ``auto`` (keywords if the file exists, else expansion
if the chunk has one, else text). ``mode=soft`` ranks matching candidates first and fills up to k with the
others in their original order (a filter that never returns fewer passages); ``mode=hard`` returns only
matching candidates. A query with no keywords is not filtered. Each passage gets
``metadata["keyword_match"]``; the last query's counts are on `last_filter`.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from gaji.errors import ConfigError
from gaji.expand.chunk_keywords import keywords_path, read_chunk_keywords
from gaji.expand.keyword_source import keyword_fn as keywords_from
from gaji.registry import RETRIEVERS
from gaji.types import Passage, Retriever

__all__ = ["KeywordFilterRetriever"]

MODES = ("soft", "hard")
FIELDS = ("auto", "keywords", "expansion", "text")


class KeywordFilterRetriever(Retriever):
    """A base retriever's top `depth`, filtered (soft or hard) by the query's keywords against chunk metadata."""

    def __init__(self, index, base: Retriever, tagger: Any = None, mode: str = "soft", field: str = "auto",
                 depth: int = 50, keyword_fn: Callable[[str], list[str]] | None = None, **_: Any):
        if mode not in MODES:
            raise ConfigError(f"keyword filter mode must be one of {', '.join(MODES)}, got {mode!r}")
        if field not in FIELDS:
            raise ConfigError(f"keyword filter field must be one of {', '.join(FIELDS)}, got {field!r}")
        self.depth = int(depth)
        if self.depth < 1:
            raise ConfigError(f"keyword filter depth must be >= 1, got {depth}")
        self.index = index
        self.base = base
        self.name = f"{base.name}+kwf"
        self.mode = mode
        self.keyword_fn = keywords_from(tagger, keyword_fn)
        kpath = keywords_path(index)
        self.chunk_kw: dict[str, list[str]] | None = read_chunk_keywords(kpath) if kpath.exists() else None
        if field == "keywords" and self.chunk_kw is None:
            raise ConfigError(f"{index.path}: field=keywords needs {kpath} (make it with `gaji expand chunk-keywords`)")
        self.field = field
        self._terms: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()
        self.last_filter: dict[str, Any] = {}

    def _analyze(self, texts: Iterable[str]) -> frozenset[str]:
        terms: set[str] = set()
        for t in texts:
            if t:
                terms.update(self.index.analyzer.analyze(t))
        return frozenset(terms)

    def metadata_terms(self, chunk_id: str) -> frozenset[str]:
        with self._lock:
            got = self._terms.get(chunk_id)
        if got is not None:
            return got
        c = self.index.get_chunk(chunk_id)
        exp = (c.metadata or {}).get("expansion") or {}
        field = self.field
        if field == "auto":
            field = "keywords" if self.chunk_kw is not None else ("expansion" if exp else "text")
        if field == "keywords":
            texts = list((self.chunk_kw or {}).get(chunk_id, []))
        elif field == "expansion":
            texts = [exp.get("title") or "", *(exp.get("questions") or [])]
        else:
            texts = [c.title, c.text]
        got = self._analyze(texts)
        with self._lock:
            self._terms[chunk_id] = got
        return got

    def search(self, query: str, k: int = 5) -> list[Passage]:
        k = int(k)
        if k <= 0:
            return []
        kws = self.keyword_fn(query) if query.strip() else []
        need = [t for t in (self._analyze([kw]) for kw in kws) if t]
        cands = self.base.search(query, max(self.depth, k))
        if not need:
            self.last_filter = {"keywords": kws, "candidates": len(cands), "matched": None}
            return _renumber(cands[:k], self.name, None)
        hit = [p for p in cands if any(t <= self.metadata_terms(p.id) for t in need)]
        hit_ids = {p.id for p in hit}
        out = hit[:k]
        if self.mode == "soft" and len(out) < k:
            out += [p for p in cands if p.id not in hit_ids][: k - len(out)]
        self.last_filter = {"keywords": kws, "candidates": len(cands), "matched": len(hit)}
        return _renumber(out, self.name, hit_ids)

    def describe(self) -> dict:
        return {"name": self.name, "base": self.base.describe(), "mode": self.mode, "field": self.field,
                "depth": self.depth, "chunk_keywords": self.chunk_kw is not None}


def _renumber(ps: list[Passage], source: str, hit_ids: set[str] | None) -> list[Passage]:
    import dataclasses

    out = []
    for i, p in enumerate(ps, 1):
        md = dict(p.metadata or {})
        md["keyword_match"] = None if hit_ids is None else p.id in hit_ids
        md.setdefault("base_rank", p.rank)
        out.append(dataclasses.replace(p, rank=i, source=source, metadata=md))
    return out


_OPTS = {"mode": str, "field": str, "depth": int, "tagger": str}


def _factory(base_name: str):
    def make(index, tagger: Any = None, mode: str = "soft", field: str = "auto", depth: int = 50,
             keyword_fn: Callable[[str], list[str]] | None = None, **kw: Any):
        base = RETRIEVERS.get(base_name)(index, **kw)
        return KeywordFilterRetriever(index, base, tagger=tagger, mode=mode, field=field, depth=depth,
                                      keyword_fn=keyword_fn)
    return make


RETRIEVERS.register("bm25+kwf", help="BM25 candidates filtered by the query's keywords against chunk keyword "
                    "metadata (paper 001)", options=_OPTS)(_factory("bm25"))
RETRIEVERS.register("dense+kwf", help="dense candidates filtered by the query's keywords (paper 001)",
                    options=_OPTS)(_factory("dense"))
RETRIEVERS.register("hybrid+kwf", help="hybrid candidates filtered by the query's keywords (paper 001)",
                    options={**_OPTS, "rrf_k": float, "weights": str, "cache_size": int})(_factory("hybrid"))
