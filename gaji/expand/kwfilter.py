"""Keyword metadata filtering (paper 001: keywords of the query "feed retrieval and filtering").

Each chunk carries keyword metadata: the keywords the tagger finds in its candidate questions (the paper
derives a chunk's keywords from its generated questions), written once per index by

    gaji expand chunk-keywords runs/kb --tagger runs/tagger      # -> runs/kb/expand/keywords.jsonl

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

import json
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, InputError
from gaji.index.base import Retriever
from gaji.registry import RETRIEVERS
from gaji.types import Chunk, Passage

from .retriever import _keyword_fn
from .sidecar import EXPAND_DIR, KEYWORDS_FILE, index_parts

__all__ = ["KEYWORDS_FILE", "KeywordFilterRetriever", "chunk_keywords", "write_chunk_keywords",
           "read_chunk_keywords"]

MODES = ("soft", "hard")
FIELDS = ("auto", "keywords", "expansion", "text")


def keywords_path(index: Any) -> Path:
    """The chunk-keywords file of an opened index (its generation) or of an index folder (its current one)."""
    return index_parts(index) / EXPAND_DIR / KEYWORDS_FILE


def chunk_keywords(chunk: Chunk, keyword_fn: Callable[[str], list[str]]) -> list[str]:
    """Keywords of a chunk: the union (first-seen order) of its candidate questions' keywords."""
    exp = (chunk.metadata or {}).get("expansion") or {}
    out: list[str] = []
    for q in exp.get("questions") or []:
        for kw in keyword_fn(q):
            if kw not in out:
                out.append(kw)
    return out


def write_chunk_keywords(index, keyword_fn: Callable[[str], list[str]], source: dict[str, Any] | None = None,
                         progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Tag every expanded chunk's candidate questions; write ``expand/keywords.jsonl`` of the index's
    committed generation atomically, under its writer lock."""
    from gaji.index.lock import writer_lock
    from gaji.io import atomic_write_text

    chunks = [c for c in index.iter_chunks() if (c.metadata or {}).get("expansion")]
    if not chunks:
        raise ConfigError(f"{index.path}: no expanded chunks (build the index with --expand or --expansions)")
    lines = []
    n_kw = 0
    for i, c in enumerate(chunks, 1):
        kws = chunk_keywords(c, keyword_fn)
        n_kw += len(kws)
        lines.append(json.dumps({"id": c.id, "keywords": kws}, ensure_ascii=False) + "\n")
        if progress:
            progress(i, len(chunks))
    head = json.dumps({"kind": "gaji-chunk-keywords", "source": source or {}}, ensure_ascii=False) + "\n"
    with writer_lock(index.path, action="chunk-keywords"):  # into the committed generation, no writer between
        path = keywords_path(index.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, head + "".join(lines))
    return {"path": str(path), "chunks": len(chunks), "keywords": n_kw,
            "without_keywords": sum(1 for ln in lines if '"keywords": []' in ln)}


def read_chunk_keywords(path: str | Path) -> dict[str, list[str]]:
    from gaji.io import iter_jsonl

    out: dict[str, list[str]] = {}
    for i, d in iter_jsonl(path):
        if d.get("kind") == "gaji-chunk-keywords":
            continue
        cid, kws = d.get("id"), d.get("keywords")
        if not isinstance(cid, str) or not isinstance(kws, list) or not all(isinstance(k, str) for k in kws):
            raise InputError("a chunk-keywords record needs 'id' (string) and 'keywords' (list of strings)",
                             path=str(path), line=i)
        out[cid] = kws
    return out


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
        self.keyword_fn = _keyword_fn(tagger, keyword_fn)
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
