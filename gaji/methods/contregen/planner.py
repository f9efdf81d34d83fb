"""The planning agent (paper §2.1, "Planning"): from a (sub-)question and its passages, propose up to S
sub-questions, each about a different facet. An empty plan means the node needs no further exploration."""
from __future__ import annotations

import re
from collections.abc import Sequence

from gaji.methods.base import RunContext
from gaji.methods.contregen import prompts
from gaji.types import Node, Passage

SUBQUESTION_CHARS = 160


def plan_schema(n: int) -> dict:
    """At most n sub-questions of bounded length. The bounds constrain grammar-guided decoding (a small
    model cannot ramble); gaji's validator checks maxItems but not maxLength."""
    return {
        "type": "object",
        "title": "contregen_plan",
        "properties": {
            "subquestions": {"type": "array", "items": {"type": "string", "maxLength": SUBQUESTION_CHARS}, "maxItems": n}
        },
        "required": ["subquestions"],
    }


def propose_subquestions(
    ctx: RunContext,
    node: Node,
    question: str,
    passages: Sequence[Passage],
    main: str,
    n: int,
    context_budget: int,
    passage_chars: int,
) -> list[str]:
    """One planning call on `node`: at most `n` distinct, non-empty sub-questions (raises LLMError).

    `main` is the root question, shown as the overall goal below the root. Passages that do not fit
    `context_budget` tokens are left out of the prompt (best-ranked first)."""
    max_tokens = (SUBQUESTION_CHARS // 2 + 8) * n + 24  # an upper bound (Korean runs ~2 characters a token)
    budget = prompts.prompt_budget(ctx.llm, context_budget, max_tokens)

    def build(ps: list[Passage]) -> prompts.Messages:
        return prompts.plan_messages(ctx.lang, question, ps, n, main, passage_chars)

    shown = list(passages)[: prompts.fit_prefix(ctx.llm.count_tokens, build, list(passages), budget)]
    out = ctx.llm.json(node, "plan", build(shown), schema=plan_schema(n), max_tokens=max_tokens)
    if len(shown) < len(passages):
        node.data["plan_passages_dropped"] = len(passages) - len(shown)
    subqs: list[str] = []
    for s in out.get("subquestions", []):
        s = " ".join(str(s).split())
        if s and normalise(s) not in {normalise(x) for x in subqs}:
            subqs.append(s)
    return subqs[:n]


_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def normalise(text: str) -> str:
    """Comparison key for spotting repeated questions: lower case, punctuation and spacing dropped."""
    return _NON_WORD.sub(" ", text.lower()).strip()
