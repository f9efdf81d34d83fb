"""Two-step verification of a proposed sub-question (paper §2.1, "Verification", Figure 5).

  (i)  `judge_need`:     is the sub-question needed for the main question? If so, rewrite it as a
                         self-sufficient, context-rich search query.
  (ii) `keep_relevant`:  of the passages that query retrieved, keep only those relevant to the
                         *original* (root) question; every passage's verdict is written to Node.relevance.

Both raise LLMError when the model fails after retries; the caller marks the node failed.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gaji.methods.base import RunContext
from gaji.methods.contregen import prompts
from gaji.types import Node, Passage

NEED_SCHEMA = {
    "type": "object",
    "title": "contregen_verify",
    "properties": {
        "sub_topic": {"type": "string", "maxLength": 80},
        "main_topic": {"type": "string", "maxLength": 80},
        "needed": {"type": "boolean"},
        "query": {"type": "string", "maxLength": 200},
    },
    "required": ["sub_topic", "main_topic", "needed", "query"],  # both topics first, then the verdict
}

RELEVANCE_SCHEMA = {
    "type": "object",
    "title": "contregen_relevance",
    "properties": {"relevant": {"type": "array", "items": {"type": "integer"}}},
    "required": ["relevant"],
}


@dataclass
class Verdict:
    """Step (i)'s judgement of one sub-question."""

    needed: bool
    query: str  # the rewritten, self-contained search query ("" when not needed)
    reason: str = ""  # "<main topic> / <sub-question's topic>", as the model named them before deciding


def judge_need(
    ctx: RunContext, node: Node, main: str, parent: str, sub: str, titles: Sequence[str], max_tokens: int = 224
) -> Verdict:
    """Step (i) on `node`. A needed sub-question without a rewrite keeps its own wording as the query."""
    out = ctx.llm.json(node, "verify", prompts.verify_messages(ctx.lang, main, parent, sub, titles),
                       schema=NEED_SCHEMA, max_tokens=max_tokens)
    needed = bool(out.get("needed"))
    query = " ".join(str(out.get("query") or "").split())
    topics = [str(out.get(k) or "").strip() for k in ("main_topic", "sub_topic")]
    return Verdict(needed=needed, query=(query or sub) if needed else "", reason=" / ".join(t for t in topics if t))


def keep_relevant(
    ctx: RunContext,
    node: Node,
    main: str,
    sub: str,
    passages: Sequence[Passage],
    context_budget: int,
    passage_chars: int,
) -> list[Passage]:
    """Step (ii) on `node`: the passages judged relevant to `main`, in retrieval order.

    One call judges all of the node's passages (shown as [1]..[k]). Passages that do not fit the
    context budget are not shown and count as not relevant (their verdict says so)."""
    if not passages:
        return []
    max_tokens = 16 + 6 * len(passages)
    budget = prompts.prompt_budget(ctx.llm, context_budget, max_tokens)

    def build(ps: list[Passage]) -> prompts.Messages:
        return prompts.relevance_messages(ctx.lang, main, sub, ps, passage_chars)

    shown = list(passages)[: prompts.fit_prefix(ctx.llm.count_tokens, build, list(passages), budget)]
    out = ctx.llm.json(node, "relevance", build(shown), schema=RELEVANCE_SCHEMA, max_tokens=max_tokens)
    chosen = {n for n in out.get("relevant", []) if 1 <= n <= len(shown)}
    kept: list[Passage] = []
    for i, p in enumerate(passages, 1):
        if i > len(shown):
            node.relevance[p.id] = {"relevant": False, "reason": "not judged: over the context budget"}
        else:
            node.relevance[p.id] = {"relevant": i in chosen}
            if i in chosen:
                kept.append(p)
    return kept
