"""Cost metrics of one question's run, from its Trace.

    tokens  = Σ over every LLM call of (prompt + completion) tokens      (T_in + T_out of paper 003)
    ATC     = mean of `tokens` over the questions                         (paper 003, eq. 7)
    tokens:<purpose>  the same sum over one component's calls (LLMCall.purpose: answer, decompose, evaluate, …),
                      so a summary says which component spends the tokens (a component a method never
                      calls has no value, and its mean is over the questions that called it)

Retrieved passages are part of the prompt, so they are counted. Calls answered from gaji's response
cache keep the token counts of the original call: ATC measures what the method consumes, not what
this particular run paid; `cache_hits` says how many calls were replayed (their wall time is ~0).
Calls made by evaluators (the LLM judge, ToQ scores) are not part of the method and are counted
separately under `eval_*`.
"""
from __future__ import annotations

from gaji.types import LLMCall, Trace, usage_by_purpose


def call_cost(calls: list[LLMCall]) -> dict[str, float]:
    return {
        "tokens": sum(c.prompt_tokens + c.completion_tokens for c in calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "calls": len(calls),
        "failed_calls": sum(1 for c in calls if not c.ok),
        "cache_hits": sum(1 for c in calls if c.cache_hit),
    }


def cost_metrics(trace: Trace) -> dict[str, float]:
    """tokens, prompt/completion tokens, LLM calls, failed calls, cache hits, wall seconds."""
    calls = trace.calls()
    out = call_cost(calls)
    out["wall_s"] = round(trace.wall_ms / 1000.0, 4)
    for purpose, u in usage_by_purpose(calls).items():
        out[f"tokens:{purpose}"] = u.total_tokens
    return out


def atc(token_counts: list[float]) -> float:
    """Average token consumption per question (eq. 7): (1/N) Σ_j (T_j^in + T_j^out)."""
    return sum(token_counts) / len(token_counts) if token_counts else 0.0
