"""Bottom-up synthesis and generation (paper §2.2, Figure 4b).

    for depth = deepest .. 1:                                     (nodes of one depth in parallel)
        leaf:  summary = summarise(its relevant passages, for its sub-question)
        inner: summary = merge(children's summaries + its own passages, for its sub-question)
    root: answer = final long-form answer from the children's summaries + the root's passages

Summaries, never raw passages, travel upward, and every prompt is fitted to the context budget:
children's notes first (they stand for whole subtrees), then the node's passages in rank order.
Passages carry one tree-wide number [n] (their position in the ranked union), so citations written
at any level still point at the right passage in the final answer.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gaji.errors import LLMError
from gaji.methods.base import RunContext
from gaji.methods.contregen import prompts
from gaji.methods.contregen.tree import FacetNode
from gaji.types import Passage


@dataclass
class SynthesisConfig:
    summary_words: int = 100  # length of each sub-question's summary
    answer_words: int = 250  # length of the final long-form answer
    context_budget: int = 3000  # max prompt tokens of any call
    passage_chars: int = 1000


def synthesize(ctx: RunContext, tree: FacetNode, ranked: list[Passage], main: str, cfg: SynthesisConfig) -> str:
    """Summarise the verified tree bottom-up and return the root's final answer (citing [n] into `ranked`).

    A node whose call fails is marked failed and its children's notes go up in its place; if the final
    call fails, the root is marked failed and the answer falls back to the top-level notes."""
    numbers = {p.id: i for i, p in enumerate(ranked, 1)}
    levels: dict[int, list[FacetNode]] = defaultdict(list)
    for f in tree.walk():
        if f is not tree:
            levels[f.depth].append(f)
    for depth in sorted(levels, reverse=True):
        ctx.map(lambda f: _summarise(ctx, f, main, numbers, cfg), levels[depth])
    try:
        answer = _write(ctx, tree, "final", main, numbers, cfg.answer_words, cfg)
    except LLMError as e:
        tree.node.status, tree.node.error = "failed", str(e)
        answer = "\n\n".join(a for _, a in child_notes(tree))
    tree.node.answer = answer
    ctx.emit(tree.node)
    return answer


def child_notes(f: FacetNode) -> list[tuple[str, str]]:
    """(sub-question, summary) of each child; a child without a summary passes up its own children's."""
    notes: list[tuple[str, str]] = []
    for c in f.children:
        if c.summary:
            notes.append((c.question, c.summary))
        else:
            notes.extend(child_notes(c))
    return notes


def _summarise(ctx: RunContext, f: FacetNode, main: str, numbers: dict[str, int], cfg: SynthesisConfig) -> None:
    kind = "merge" if child_notes(f) else "summary"
    try:
        f.summary = _write(ctx, f, kind, main, numbers, cfg.summary_words, cfg)
    except LLMError as e:
        f.node.status, f.node.error = "failed", str(e)
    f.node.answer = f.summary
    ctx.emit(f.node)


def _write(
    ctx: RunContext, f: FacetNode, kind: str, main: str, numbers: dict[str, int], words: int, cfg: SynthesisConfig
) -> str:
    """One synthesis call on `f`'s node, its prompt fitted to the budget (what was left out goes to data)."""
    max_tokens = (3 if ctx.lang == "ko" else 2) * words + 32  # Korean words (eojeol) run ~3 tokens
    budget = prompts.prompt_budget(ctx.llm, cfg.context_budget, max_tokens)
    count = ctx.llm.count_tokens
    question = main if f.parent is None else f.question

    def build(notes: list[tuple[str, str]], passages: list[Passage]) -> prompts.Messages:
        return prompts.synthesis_messages(
            ctx.lang, kind, question, main, notes, passages, [numbers[p.id] for p in passages], words,
            cfg.passage_chars,
        )

    notes = child_notes(f)
    notes_in = notes[: prompts.fit_prefix(count, lambda ns: build(ns, []), notes, budget)]
    passages_in = f.passages[: prompts.fit_prefix(count, lambda ps: build(notes_in, ps), f.passages, budget)]
    messages = build(notes_in, passages_in)
    f.node.data["synthesis"] = {
        "kind": kind,
        "notes": len(notes_in),
        "notes_dropped": len(notes) - len(notes_in),
        "passages": len(passages_in),
        "passages_dropped": len(f.passages) - len(passages_in),
        "prompt_tokens_est": prompts.message_tokens(count, messages),
        "budget": budget,
    }
    return ctx.llm.chat(f.node, kind, messages, max_tokens=max_tokens).strip()
