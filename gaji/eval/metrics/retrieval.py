"""Retrieval metrics over gold passages (paragraph level): recall@k and Top@k.

A question's gold is a list of `GoldRef(doc_id, title)` (its supporting paragraphs). A retrieved
document matches a gold reference by document id, or by title when the reference has no id (the
official HotpotQA / 2Wiki files name supporting paragraphs by title) or when matching by title is
asked for (`match="title"`: an index built from another copy of the corpus, with other ids).

For multi-step methods the ranking is every retrieved document in first-seen order across the whole
trace, deduplicated by document (chunks of one paragraph count once), cut at k — IRCoT's "recall of
the gold paragraphs among at most K retrieved paragraphs".

    recall@k = |gold matched within the first k| / |gold|
    Top@k    = 1 if at least one gold paragraph is within the first k, else 0   (paper 001, Table 7)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

DEFAULT_KS: tuple[int, ...] = (2, 5, 10)


@dataclass(frozen=True)
class GoldRef:
    doc_id: str = ""
    title: str = ""


@dataclass(frozen=True)
class RetrievedDoc:
    doc_id: str
    title: str = ""


def _norm_title(t: str) -> str:
    return " ".join((t or "").lower().split())


def _unique_gold(gold: Iterable[GoldRef], match: str) -> list[GoldRef]:
    seen: set[tuple[str, str]] = set()
    out = []
    for g in gold:
        key = _gold_key(g, match)
        if key[1] and key not in seen:
            seen.add(key)
            out.append(g)
    return out


def _gold_key(g: GoldRef, match: str) -> tuple[str, str]:
    if match == "title" or (match == "auto" and not g.doc_id):
        return ("title", _norm_title(g.title))
    return ("id", g.doc_id)


def dedupe_docs(docs: Iterable[RetrievedDoc]) -> list[RetrievedDoc]:
    """First occurrence of each document id, order kept."""
    seen: set[str] = set()
    out = []
    for d in docs:
        if d.doc_id not in seen:
            seen.add(d.doc_id)
            out.append(d)
    return out


def first_match_ranks(retrieved: Sequence[RetrievedDoc], gold: Iterable[GoldRef], match: str = "auto") -> list[int | None]:
    """For each (unique) gold reference, the 1-based rank of the first retrieved document matching it."""
    if match not in ("auto", "id", "title"):
        raise ValueError(f"match must be auto, id or title, not {match!r}")
    docs = dedupe_docs(retrieved)
    by_id: dict[str, int] = {}
    by_title: dict[str, int] = {}
    for rank, d in enumerate(docs, 1):
        by_id.setdefault(d.doc_id, rank)
        if d.title:
            by_title.setdefault(_norm_title(d.title), rank)
    ranks: list[int | None] = []
    for g in _unique_gold(gold, match):
        kind, key = _gold_key(g, match)
        ranks.append((by_title if kind == "title" else by_id).get(key))
    return ranks


def recall_at_k(ranks: Sequence[int | None], k: int) -> float:
    if not ranks:
        return 0.0
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def top_at_k(ranks: Sequence[int | None], k: int) -> float:
    return float(any(r is not None and r <= k for r in ranks))


def retrieval_scores(
    retrieved: Sequence[RetrievedDoc],
    gold: Sequence[GoldRef],
    ks: Iterable[int] = DEFAULT_KS,
    match: str = "auto",
) -> dict[str, float] | None:
    """{"recall@k": .., "top@k": ..} for each k; None when the question has no gold passage."""
    if not _unique_gold(gold, match):
        return None
    ranks = first_match_ranks(retrieved, gold, match)
    out: dict[str, float] = {}
    for k in ks:
        out[f"recall@{k}"] = recall_at_k(ranks, k)
    for k in ks:
        out[f"top@{k}"] = top_at_k(ranks, k)
    return out
