"""Reciprocal-rank fusion (RRF) of ranked result lists: how the hybrid retriever (gaji/retrieve/hybrid.py)
combines BM25 and dense.

    fused(d) = sum_i  w_i / (k + rank_i(d))          (rank 1-based; lists cut at `depth`)

RRF needs no score calibration between BM25 and cosine, which is why it is the default fusion here.
Defaults: the usual k=60 with equal weights, over the top 50 of each list. Chosen with
`gaji bench retrieval --tune` on the shared dev sets (BENCHMARKS.md, "Retrieval"): with depth 100 hybrid recall@10
fell 0.003 below dense on 2WikiMultihopQA (83 questions); depth 50 ties or beats the best single
retriever on all five sets. Sharper settings (k=1..30, BM25 weight 0.5-0.75) scored up to +0.002 mean
recall@10 -- within noise for sets this small, so we kept the conventional constants.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gaji.errors import ConfigError

__all__ = ["FusedHit", "rrf_fuse", "parse_weights", "DEFAULT_RRF_K", "DEFAULT_DEPTH"]

DEFAULT_RRF_K = 60.0
DEFAULT_DEPTH = 50


@dataclass
class FusedHit:
    key: int  # chunk row
    score: float
    ranks: dict[str, int]  # component name -> 1-based rank (absent = not in that list)
    scores: dict[str, float]  # component name -> its own score


def rrf_fuse(
    lists: Mapping[str, Sequence[tuple[int, float]]],
    k: float = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
    depth: int | None = None,
    limit: int | None = None,
) -> list[FusedHit]:
    """Fuse ranked lists of (key, score) by weighted reciprocal rank; best first.

    Ties in fused score are broken by the best component rank, then by key (deterministic).
    """
    if k < 0:
        raise ConfigError(f"RRF k must be >= 0, got {k}")
    weights = weights or {}
    hits: dict[int, FusedHit] = {}
    for name, ranked in lists.items():
        w = float(weights.get(name, 1.0))
        for rank, (key, s) in enumerate(ranked[:depth] if depth else ranked, 1):
            h = hits.get(key)
            if h is None:
                h = hits[key] = FusedHit(key, 0.0, {}, {})
            if name in h.ranks:  # duplicate key inside one list: keep its best rank only
                continue
            h.ranks[name] = rank
            h.scores[name] = float(s)
            h.score += w / (k + rank)
    out = sorted(hits.values(), key=lambda h: (-h.score, min(h.ranks.values()), h.key))
    return out[:limit] if limit is not None else out


def parse_weights(w: Any, names: Sequence[str] = ("bm25", "dense")) -> dict[str, float]:
    """Weights from a dict, a (bm25, dense) pair, or a string "bm25=1,dense=0.5" / "1,0.5"."""
    if w is None:
        return {n: 1.0 for n in names}
    try:
        out = _weights(w, names)
    except (TypeError, ValueError):
        raise ConfigError(f"cannot read hybrid weights {w!r}; e.g. 'bm25=1,dense=0.5'") from None
    unknown = set(out) - set(names)
    if unknown:
        raise ConfigError(f"unknown hybrid weight(s) {sorted(unknown)}; use {', '.join(names)}")
    if any(v < 0 for v in out.values()):
        raise ConfigError("hybrid weights must be >= 0")
    return {n: out.get(n, 1.0) for n in names}


def _weights(w: Any, names: Sequence[str]) -> dict[str, float]:
    if isinstance(w, Mapping):
        out = {str(k): float(v) for k, v in w.items()}
    elif isinstance(w, str):
        parts = [p.strip() for p in w.split(",") if p.strip()]
        if all("=" in p for p in parts):
            out = {p.split("=", 1)[0].strip(): float(p.split("=", 1)[1]) for p in parts}
        else:
            out = dict(zip(names, (float(p) for p in parts)))
    else:
        out = dict(zip(names, (float(x) for x in w)))
    return out
