"""Prompt selection for Tree-of-Question.

The language follows `ctx.lang` ("ko" → prompts_ko, anything else → prompts_en). The components build
their messages with `gaji.methods.common.few_shot_messages`: system + few-shot turns + the variable user
turn *last*, so every call of one component shares its long prefix and llama.cpp's prompt cache reuses it.
"""
from __future__ import annotations

from types import ModuleType

from gaji.methods.toq import prompts_en, prompts_ko

_BY_LANG: dict[str, ModuleType] = {"en": prompts_en, "ko": prompts_ko}

# names every prompt module defines (checked by the tests, so the two languages stay in step)
REQUIRED = (
    "UNKNOWN",
    "DECOMPOSE_SYSTEM", "DECOMPOSE_USER", "DECOMPOSE_SHOTS",
    "CHAIN_SYSTEM", "CHAIN_USER", "CHAIN_SHOTS", "COMPARE_SYSTEM", "COMPARE_USER", "COMPARE_SHOTS",
    "INTERSECT_SYSTEM", "INTERSECT_USER", "INTERSECT_SHOTS",
    "QUERY_SYSTEM", "QUERY_USER", "QUERY_SHOTS",
    "INTEGRATE_SYSTEM", "INTEGRATE_USER", "INTEGRATE_SHOTS",
    "INTEGRATE_BATCH_SYSTEM", "INTEGRATE_BATCH_USER", "INTEGRATE_BATCH_SHOTS",
    "REWRITE_SYSTEM", "REWRITE_USER", "REWRITE_SHOTS",
    "RESPOND_SYSTEM", "RESPOND_USER", "RESPOND_SHOTS", "SUBANSWERS_HEADER",
    "EVALUATE_SYSTEM", "EVALUATE_USER", "EVALUATE_SHOTS", "EVIDENCE_HEADER",
)


def prompts(lang: str) -> ModuleType:
    """The prompt module for a language: Korean for "ko", English otherwise."""
    return _BY_LANG.get(lang, prompts_en)


def is_unknown(answer: str) -> bool:
    """True for an empty answer or the responders' "unknown" (either language)."""
    a = answer.strip().strip(".").strip().lower()
    return a in ("", "none", "null", "n/a", prompts_en.UNKNOWN, prompts_ko.UNKNOWN, "모름", "알 수 없습니다")
