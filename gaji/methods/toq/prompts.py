"""Tree-of-Question's prompt set (the pattern of gaji/llm/prompts.py).

The text of each language is long, so it sits in its own module of constants, `prompts_en` and `prompts_ko`
(the paper's Appendix B prompts B.1–B.4, the response generator f_RG, and the routed decomposer's shape prompts);
this module gathers each into a `ToQPrompts`. Every prompt is system + worked examples (fixed) + one user turn
(variable, last), so all calls of one component share their long prefix and llama.cpp's prompt cache reuses it.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from gaji.llm.prompts import ByLang, Prompt
from gaji.methods.toq import prompts_en, prompts_ko


@dataclass(frozen=True)
class ToQPrompts:
    unknown: str  # the responder's answer when the documents do not hold one
    decompose: Prompt  # B.2, the paper's decomposer ({max_children}, {question})
    chain: Prompt  # routed decomposition, one prompt per shape
    compare: Prompt
    intersect: Prompt
    query: Prompt  # B.3, the query generator
    integrate: Prompt  # B.1, the answer integrator, one document
    integrate_batch: Prompt  # B.1 over every document in one call
    rewrite: Prompt  # Algorithm 1, line 6: a node whose filled-in answer is long or awkward
    respond: Prompt  # f_RG, the response generator (json style)
    subanswers_header: str  # before a node's children's answers, in f_RG's user turn
    evaluate: Prompt  # B.4, the query evaluator
    evidence_header: str  # before the evaluated response's sources
    order_date: str  # a comparison's items in order of their dates ({items}), written by code
    order_number: str  # … of their numbers


def _prompt(m: ModuleType, name: str) -> Prompt:
    return Prompt(getattr(m, f"{name}_SYSTEM"), getattr(m, f"{name}_USER"), tuple(getattr(m, f"{name}_SHOTS")))


def _prompt_set(m: ModuleType) -> ToQPrompts:
    """The prompt set of one language's module (each defines NAME_SYSTEM, NAME_USER and NAME_SHOTS per prompt)."""
    return ToQPrompts(
        unknown=m.UNKNOWN,
        decompose=_prompt(m, "DECOMPOSE"),
        chain=_prompt(m, "CHAIN"),
        compare=_prompt(m, "COMPARE"),
        intersect=_prompt(m, "INTERSECT"),
        query=_prompt(m, "QUERY"),
        integrate=_prompt(m, "INTEGRATE"),
        integrate_batch=_prompt(m, "INTEGRATE_BATCH"),
        rewrite=_prompt(m, "REWRITE"),
        respond=_prompt(m, "RESPOND"),
        subanswers_header=m.SUBANSWERS_HEADER,
        evaluate=_prompt(m, "EVALUATE"),
        evidence_header=m.EVIDENCE_HEADER,
        order_date=m.ORDER_DATE,
        order_number=m.ORDER_NUMBER,
    )


PROMPTS = ByLang(en=_prompt_set(prompts_en), ko=_prompt_set(prompts_ko))


def is_unknown(answer: str) -> bool:
    """True for an empty answer or the responders' "unknown" (either language)."""
    a = answer.strip().strip(".").strip().lower()
    return a in ("", "none", "null", "n/a", PROMPTS.en.unknown, PROMPTS.ko.unknown, "모름", "알 수 없습니다")
