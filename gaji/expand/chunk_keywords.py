"""The chunk-keywords file: each expanded chunk's keywords (the keywords the tagger finds in its candidate
questions; paper 001 derives a chunk's keywords from its generated questions), written once per index by

    gaji expand chunk-keywords runs/kb --tagger runs/tagger      # -> runs/kb/expand/keywords.jsonl

It lives in the index generation's expand/ folder beside the expansions (gaji/expand/sidecar.py), and is the
metadata the keyword filter (gaji/retrieve/keyword_filter.py, `*+kwf`) matches the query's keywords against.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, InputError
from gaji.types import Chunk

from .sidecar import EXPAND_DIR, KEYWORDS_FILE, index_parts

__all__ = ["KEYWORDS_FILE", "keywords_path", "chunk_keywords", "write_chunk_keywords", "read_chunk_keywords"]


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
