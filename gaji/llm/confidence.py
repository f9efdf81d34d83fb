"""How sure the model was of what it wrote: a summary of the generated tokens' log-probabilities.

A backend that can (the embedded llama.cpp, and OpenAI-compatible servers that honour `logprobs`) returns, per
generated token, its log-probability and the top alternatives (`Result.logprobs`). A method that wants to judge
its own answer asks for them (`Request.logprobs = 2`); `TrackedLLM` keeps only this summary on the call
(`LLMCall.confidence`), not the per-token list, so traces stay small.

    >>> s = summarize([{"token": "19", "logprob": -0.1, "top": [{"token": "19", "logprob": -0.1},
    ...                                                          {"token": "18", "logprob": -2.4}]},
    ...                {"token": "45", "logprob": -0.5, "top": [{"token": "45", "logprob": -0.5},
    ...                                                          {"token": "46", "logprob": -1.0}]}])
    >>> s["tokens"], s["mean"], s["min"], s["margin"]
    (2, -0.3, -0.5, 0.5)
"""
from __future__ import annotations

import math
from typing import Any

# tokens that carry no answer: whitespace, punctuation, an end-of-text marker
_SKIP = set(" \t\n\r.,;:!?\"'`()[]{}<>。、，")


def _content(token: str) -> bool:
    return bool(token) and any(ch not in _SKIP for ch in token)


def summarize(logprobs: list[dict[str, Any]] | None, first: int = 16) -> dict[str, float]:
    """{"tokens", "mean", "min", "first", "margin"} over the first `first` content tokens of the reply (the answer
    comes first; what follows is explanation); {} when there are none.

    mean / min: the tokens' log-probabilities; first: the first content token's (where an answer usually commits);
    margin: the smallest gap between the chosen token and its best alternative (0 when a token had none listed)."""
    if not logprobs:
        return {}
    picked = [t for t in logprobs if _content(str(t.get("token", "")))][:first]
    if not picked:
        return {}
    lps = [max(-30.0, float(t.get("logprob", 0.0))) for t in picked]
    margins = []
    for t, lp in zip(picked, lps):
        alts = [float(c.get("logprob", -30.0)) for c in t.get("top") or [] if c.get("token") != t.get("token")]
        margins.append(lp - max(alts) if alts else 0.0)
    return {"tokens": len(picked), "mean": round(sum(lps) / len(lps), 4), "min": round(min(lps), 4),
            "first": round(lps[0], 4), "margin": round(min(margins), 4),
            "p_mean": round(math.exp(sum(lps) / len(lps)), 4)}
