"""contre: ConTReGen's retrieval stage on its own, as a retriever any method can use
(paper §5.4 "ConTRe w/o BSG", Table 5; §5.5.3 Table 8). The tree it grows is ConTReGen's
(gaji/methods/contregen/: tree.py, planner.py, verifier.py, topic_gate.py); this module makes it a retriever.

`search(query, k)` grows the verified facet tree for the query over a base retriever (planning,
two-step verification, recursion: `tree.grow_tree`) and returns the top k of the ranked union of
verified passages (`tree.rank_union`). Inside a method, `RunContext.retrieve` calls `search_traced`,
so the planning and verification calls are recorded on the calling node (purposes prefixed
"contre.") and the tree's outline (questions, queries, verdicts, passage ids) goes to
`node.data["contre"]`.

    gaji ask --index DIR --retriever contre --method oner "..."
"""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from gaji.errors import ConfigError
from gaji.llm.base import LLMBackend
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.contregen.topic_gate import TopicGate, make_gate
from gaji.methods.contregen.tree import TreeConfig, fused_scores, grow_tree, rank_union
from gaji.registry import RETRIEVERS
from gaji.text.lang import detect_lang
from gaji.types import Node, Passage, Retriever


class ConTReRetriever(Retriever):
    """The union of a ConTReGen tree's verified passages, ranked by reciprocal-rank fusion."""

    name = "contre"

    def __init__(
        self,
        base: Retriever,
        get_llm: Callable[[], LLMBackend] | None = None,
        config: TreeConfig | None = None,
        parallel: bool = True,
        node_k: int | None = None,
        gate: TopicGate | None = None,
    ):
        if isinstance(base, ConTReRetriever):
            raise ConfigError("the ConTRe retriever needs a plain base retriever (bm25, dense or hybrid), not contre")
        self.base = base
        self.config = config or TreeConfig()
        self.node_k = node_k  # passages per tree node; None: the k of each search (the paper uses one k)
        self.parallel = parallel
        self.gate = gate  # the topic gate (our extension; None = off, as in the paper)
        self._get_llm = get_llm
        self._llm: TrackedLLM | None = None
        self._lock = threading.Lock()

    def _tracked(self) -> TrackedLLM:
        with self._lock:
            if self._llm is None:
                if self._get_llm is None:
                    raise ConfigError("the ConTRe retriever needs an LLM (it plans and verifies sub-questions)")
                self._llm = TrackedLLM(self._get_llm())
            return self._llm

    def search(self, query: str, k: int = 5) -> list[Passage]:
        """Untraced search (e.g. from the CLI): the LLM work is done but not kept."""
        return self.search_traced(query, k, node=Node(question=query, kind="contre"), llm=self._tracked())

    def search_traced(self, query: str, k: int, node: Node, llm: TrackedLLM) -> list[Passage]:
        """Search, recording the LLM calls on `node` and the tree's outline in `node.data["contre"]`."""
        scratch = Node(question=query, kind="root")
        ctx = RunContext(llm=llm, retriever=self.base, lang=detect_lang(query), parallel=self.parallel)
        cfg = dataclasses.replace(self.config, k=self.node_k or k)
        tree = grow_tree(ctx, query, scratch, cfg, self.gate)
        ranked, scores = rank_union(tree), fused_scores(tree)
        calls = [c for n in scratch.walk() for c in n.calls]
        for c in calls:
            c.purpose = f"contre.{c.purpose}"
        node.calls.extend(calls)
        node.data["contre"] = outline(scratch)
        return [
            dataclasses.replace(p, score=scores[p.id], rank=i, source=self.name)
            for i, p in enumerate(ranked[:k], 1)
        ]

    def describe(self) -> dict:
        d = dataclasses.asdict(self.config)
        d["k"] = self.node_k  # None: each search's k
        return {"name": self.name, "base": self.base.describe(), **d}


def outline(n: Node) -> dict[str, Any]:
    """A node tree as JSON without its LLM calls (those are moved to the calling node)."""
    return {
        "question": n.question,
        "query": n.query,
        "level": n.level,
        "status": n.status,
        "error": n.error,
        "passage_ids": list(n.passage_ids),
        "relevance": dict(n.relevance),
        "data": dict(n.data),
        "calls": len(n.calls),
        "children": [outline(c) for c in n.children],
    }


@RETRIEVERS.register("contre", help="ConTRe: verified passages of a ConTReGen facet tree (uses the LLM)",
                     options={"base": str, "max_subquestions": int, "max_depth": int, "node_k": int,
                              "context_budget": int, "passage_chars": int, "topic_gate": float})
def make_contre(
    index: Any,
    get_llm: Callable[[], LLMBackend] | None = None,
    base: str = "hybrid",
    max_subquestions: int = 5,
    max_depth: int = 2,
    node_k: int | None = None,
    context_budget: int = 3000,
    passage_chars: int = 1000,
    topic_gate: float = 0.0,
    **_: Any,
) -> ConTReRetriever:
    """Registry factory: ConTRe over `index.retriever(base)`. Each tree node retrieves `node_k` passages
    (default: the k asked for, as in the paper, where one top-k serves retrieval and generation)."""
    if base == "contre":
        raise ConfigError("the ConTRe retriever's base cannot be contre itself")
    cfg = TreeConfig(max_subquestions, max_depth, node_k or 5, context_budget, passage_chars)
    gate = make_gate(topic_gate)
    return ConTReRetriever(index.retriever(base), get_llm, cfg, node_k=node_k, gate=gate)
