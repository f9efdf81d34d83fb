"""From index rows to Passages: the step the retrievers over an on-disk index share (bm25, dense, hybrid).

The index's searches answer ``[(row, score)]``, best first; a retriever checks the k it was asked for
(`check_k`) and turns the rows into Passages (`passages_at`), numbered 1.. in order.
"""
from __future__ import annotations

from typing import Any

from gaji.errors import ConfigError
from gaji.types import Chunk, Passage

__all__ = ["to_passage", "passages_at", "check_k"]


def to_passage(chunk: Chunk, score: float, rank: int, source: str, **meta: Any) -> Passage:
    md: dict[str, Any] = {"lang": chunk.lang}
    if chunk.id != chunk.doc_id:
        md.update(start=chunk.start, end=chunk.end)
    md.update(meta)
    return Passage(
        id=chunk.id, doc_id=chunk.doc_id, text=chunk.text, title=chunk.title,
        score=float(score), rank=rank, source=source, metadata=md, location=chunk.location,
    )


def passages_at(index, hits: list[tuple[int, float]], source: str) -> list[Passage]:
    """The Passages of the (row, score) hits; a row the index no longer holds is skipped."""
    out = []
    for row, score in hits:
        c = index.chunk_at(row)
        if c is not None:
            out.append(to_passage(c, score, len(out) + 1, source))
    return out


def check_k(k: int) -> int:
    try:
        k = int(k)
    except (TypeError, ValueError):
        raise ConfigError(f"k must be an integer, got {k!r}") from None
    if k < 0:
        raise ConfigError(f"k must be >= 0, got {k}")
    return k
