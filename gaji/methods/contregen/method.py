"""ConTReGen (Roy et al., 2024): context-driven tree-structured retrieval for long-form generation.

    tree   = top-down planning and retrieval (§2.1)     -> tree.grow_tree
               plan sub-questions from passages; verify each (needed? rewrite; relevant passages);
               recurse on the verified ones up to max_depth
    ranked = the verified passages, fused and ranked     -> tree.rank_union
    answer = bottom-up synthesis and generation (§2.2)   -> synthesizer.synthesize
               leaves summarise, inner nodes merge, the root writes the long-form answer with [n]

The trace is the tree: every node's query, passages, verdicts (Node.relevance) and calls; rejected
sub-questions stay as "skipped" nodes with data{verdict, reason, topic_cos}; planned nodes hold data["plan"]
and data["plan_passages_dropped"], synthesised ones data["synthesis"]. `trace.answer` is the long-form text,
`trace.citations` the passage ids it cites, and `root.data["verified_passage_ids"]` the ranked union
of verified passages (what the ConTRe retriever returns).
"""
from __future__ import annotations

from dataclasses import dataclass

from gaji.methods.base import Method, RunContext
from gaji.methods.common import cited_ids
from gaji.methods.contregen.synthesizer import SynthesisConfig, synthesize
from gaji.methods.contregen.topic_gate import TopicGate, make_gate
from gaji.methods.contregen.tree import TreeConfig, fused_scores, grow_tree, rank_union
from gaji.methods.describe import Facts, word
from gaji.registry import METHODS
from gaji.types import Fact, Node, Trace


@METHODS.register("contregen", help="tree of facet sub-questions (plan, verify, recurse), then bottom-up long-form synthesis")
class ConTReGen(Method):
    name = "contregen"
    long_form = True  # a synthesised paragraph: kept whole, never cut to a span

    @dataclass
    class Options:
        k: int = 5  # passages retrieved per node (paper: 3 for ODSUM-Story, 5 for ASQA)
        max_subquestions: int = 5  # S: sub-questions per plan
        max_depth: int = 2  # levels of sub-questions below the root
        context_budget: int = 3000  # max prompt tokens of any call (also capped by the model's context)
        summary_words: int = 100  # length of each node's summary
        answer_words: int = 250  # length of the final long-form answer
        passage_chars: int = 1000  # each passage is cut to this many characters in prompts
        topic_gate: float = 0.0  # our extension: skip sub-questions whose E5 cosine to the question is below this (0 = off)

        def __post_init__(self) -> None:
            make_gate(self.topic_gate)  # checks the range (no embedder is loaded until the gate is used)

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        d = node.data
        verdict = d.get("verdict")  # why a proposed sub-question was kept or skipped
        text = f"{verdict}" + (f" — {d['reason']}" if d.get("reason") else "")
        if d.get("topic_cos") is not None:
            text += f" · {word(lang, 'topic cosine', '주제 코사인')} {d['topic_cos']}"
        return Facts(lang).decision("verdict", "검증", verdict if isinstance(verdict, str) else None, text).lines

    def tree_config(self) -> TreeConfig:
        o = self.opts
        return TreeConfig(o.max_subquestions, o.max_depth, o.k, o.context_budget, o.passage_chars)

    def topic_gate(self) -> TopicGate | None:
        return make_gate(self.opts.topic_gate)

    def synthesis_config(self) -> SynthesisConfig:
        o = self.opts
        return SynthesisConfig(o.summary_words, o.answer_words, o.context_budget, o.passage_chars)

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        tree = grow_tree(ctx, trace.question, trace.root, self.tree_config(), self.topic_gate())
        ranked = rank_union(tree)
        scores = fused_scores(tree)
        trace.root.data["verified_passage_ids"] = [p.id for p in ranked]
        trace.root.data["verified_passage_scores"] = [round(scores[p.id], 5) for p in ranked]
        trace.answer = synthesize(ctx, tree, ranked, trace.question, self.synthesis_config())
        trace.citations = cited_ids(trace.answer, ranked)
        if trace.root.status == "failed":  # the run still returns its best answer
            trace.status, trace.error = "failed", trace.root.error
