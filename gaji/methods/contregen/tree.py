"""The facet tree and its top-down construction (paper §2.1, "Top-down Planning and Retrieval").

    root = retrieve(Q)
    frontier = [root]
    repeat max_depth times:
        plans      = plan(node, its passages)           for node in frontier      (in parallel)
        candidates = new sub-questions, minus repeats
                     (minus off-topic ones when the topic gate is on: our extension, see topic_gate.py)
        verified   = verify(candidate)                  for each candidate        (in parallel)
                     (i) needed? -> rewrite as query;  retrieve(query);  (ii) keep passages relevant to Q
        frontier   = verified nodes with relevant passages
    stop early when no node proposes a further plan

Every proposed sub-question becomes a trace Node under its parent; a rejected one stays visible with
status "skipped" and the reason in `data`, one whose LLM calls failed has status "failed". Only the
verified ones join the `FacetNode` tree that synthesis (and the ConTRe retriever) works on.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from gaji.errors import LLMError
from gaji.methods.base import RunContext
from gaji.methods.contregen import planner, verifier
from gaji.methods.contregen.topic_gate import TopicGate
from gaji.types import Node, Passage

RRF_K = 60  # reciprocal-rank-fusion constant for ranking the union of verified passages


@dataclass
class TreeConfig:
    """Hyperparameters of the top-down stage (the paper's defaults: S=5, depth 2)."""

    max_subquestions: int = 5  # S: sub-questions per plan
    max_depth: int = 2  # levels below the root (root = depth 0)
    k: int = 5  # passages retrieved per node
    context_budget: int = 3000  # max prompt tokens of any call
    passage_chars: int = 1000  # each passage is cut to this many characters in prompts


@dataclass
class FacetNode:
    """A verified node: its trace Node, the passages it contributes and its verified children.

    Root passages are the ones retrieved for the question; below the root, only the passages judged
    relevant to the original question (verification step ii)."""

    node: Node
    passages: list[Passage]
    parent: FacetNode | None = None
    children: list[FacetNode] = field(default_factory=list)
    summary: str = ""  # filled by bottom-up synthesis

    @property
    def question(self) -> str:
        return self.node.filled_question or self.node.question

    @property
    def depth(self) -> int:
        return self.node.level

    def walk(self) -> Iterator[FacetNode]:
        """Breadth-first: the root, then each level left to right."""
        queue: deque[FacetNode] = deque([self])
        while queue:
            f = queue.popleft()
            yield f
            queue.extend(f.children)


@dataclass
class _Candidate:
    """A proposed sub-question waiting for verification."""

    parent: FacetNode
    node: Node


def grow_tree(ctx: RunContext, question: str, root: Node, cfg: TreeConfig, gate: TopicGate | None = None) -> FacetNode:
    """Build the verified facet tree for `question`, recording all work under `root`. `gate` (our
    extension, off by default) skips off-topic sub-questions before verification."""
    tree = FacetNode(root, ctx.retrieve(root, question, cfg.k))
    seen = {planner.normalise(question)}
    frontier = [tree]
    for _ in range(cfg.max_depth):
        plans = ctx.map(lambda f: _plan(ctx, f, question, cfg), frontier)
        candidates = [c for f, subqs in zip(frontier, plans) for c in _propose(ctx, f, subqs, seen)]
        if gate is not None:
            candidates = _on_topic(ctx, candidates, question, gate)
        verified = ctx.map(lambda c: _verify(ctx, c, question, cfg), candidates)
        frontier = []
        for cand, fnode in zip(candidates, verified):
            if fnode is not None:
                cand.parent.children.append(fnode)
                frontier.append(fnode)
                seen.add(planner.normalise(fnode.question))  # the rewritten query, too, is now explored
        if not frontier:
            break
    return tree


def _plan(ctx: RunContext, f: FacetNode, main: str, cfg: TreeConfig) -> list[str]:
    """The planning agent on one node; a failed call marks the node failed (it stays a leaf)."""
    try:
        subqs = planner.propose_subquestions(
            ctx, f.node, f.question, f.passages, main, cfg.max_subquestions, cfg.context_budget, cfg.passage_chars
        )
    except LLMError as e:
        _fail(ctx, f.node, e)
        return []
    f.node.data["plan"] = subqs
    ctx.emit(f.node)
    return subqs


def _propose(ctx: RunContext, parent: FacetNode, subqs: list[str], seen: set[str]) -> list[_Candidate]:
    """Attach the proposed sub-questions to the parent's trace node; repeats are skipped without a call."""
    out = []
    for sub in subqs:
        node = parent.node.add(Node(question=sub, kind="sub"))
        key = planner.normalise(sub)
        if key in seen:
            node.status = "skipped"
            node.data.update(verdict="duplicate", reason="repeats a question already in the tree")
            ctx.emit(node)
            continue
        seen.add(key)
        out.append(_Candidate(parent, node))
    return out


def _on_topic(ctx: RunContext, candidates: list[_Candidate], main: str, gate: TopicGate) -> list[_Candidate]:
    """The topic gate: candidates far from the main question in embedding space are skipped unverified."""
    verdicts = gate.check(main, [c.node.question for c in candidates])
    kept = []
    for c, v in zip(candidates, verdicts):
        c.node.data["topic_cos"] = v.cosine
        if v.keep:
            kept.append(c)
            continue
        c.node.status = "skipped"
        c.node.data.update(verdict="off-topic",
                           reason=f"embedding cosine {v.cosine:.3f} to the main question is below the topic gate "
                                  f"{gate.threshold}")
        ctx.emit(c.node)
    return kept


def _verify(ctx: RunContext, c: _Candidate, main: str, cfg: TreeConfig) -> FacetNode | None:
    """Two-step verification of one candidate; a FacetNode when it passes both steps."""
    node, t0 = c.node, time.perf_counter()
    try:
        titles = list(dict.fromkeys(p.title for p in c.parent.passages if p.title))[:8]
        verdict = verifier.judge_need(ctx, node, main, c.parent.question, node.question, titles)
        node.data.update(verdict="needed" if verdict.needed else "not needed",
                         reason=verdict.reason or ("" if verdict.needed else "judged not needed for the main question"))
        if not verdict.needed:
            node.status = "skipped"
            return None
        node.filled_question = verdict.query
        passages = ctx.retrieve(node, verdict.query, cfg.k)
        kept = verifier.keep_relevant(ctx, node, main, verdict.query, passages, cfg.context_budget, cfg.passage_chars)
        if not kept:
            node.status = "skipped"
            node.data["reason"] = "no retrieved passage is relevant to the main question"
            return None
        return FacetNode(node, kept, parent=c.parent)
    except LLMError as e:
        _fail(ctx, node, e)
        return None
    finally:
        node.wall_ms = (time.perf_counter() - t0) * 1000
        ctx.emit(node)


def _fail(ctx: RunContext, node: Node, err: Exception) -> None:
    node.status = "failed"
    node.error = str(err)
    ctx.emit(node)


def rank_union(tree: FacetNode) -> list[Passage]:
    """The union of the tree's passages, best first: reciprocal-rank fusion over every node's list
    (a passage found by several facets, or ranked high, comes first); ties keep breadth-first order."""
    first: dict[str, Passage] = {}
    for f in tree.walk():
        for p in f.passages:
            first.setdefault(p.id, p)
    score = fused_scores(tree)
    order = {pid: i for i, pid in enumerate(first)}
    return [first[pid] for pid in sorted(first, key=lambda pid: (-score[pid], order[pid]))]


def fused_scores(tree: FacetNode) -> dict[str, float]:
    """Per passage id: the sum over the nodes that hold it of 1 / (RRF_K + its retrieval rank there)."""
    score: dict[str, float] = {}
    for f in tree.walk():
        for pos, p in enumerate(f.passages, 1):
            score[p.id] = score.get(p.id, 0.0) + 1.0 / (RRF_K + (p.rank or pos))
    return score
