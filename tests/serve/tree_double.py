"""The server tests' tree method double (`test_tree`), in its own module so that it is registered once per process
however many conftests import it (the lab's server tests load tests/serve/conftest.py too)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from gaji.methods.base import Method, RunContext
from gaji.methods.common import cited_ids, format_passages
from gaji.methods.prompts import common as common_prompts
from gaji.methods.contregen.method import ConTReGen
from gaji.registry import METHODS
from gaji.types import Fact, Node, Passage, Trace


@METHODS.register("test_tree", help="test double: two sub-questions, then an answer citing their passages")
class TreeDouble(Method):
    """Decompose into sub-questions (one LLM call), answer each from its passages, then combine."""

    name = "test_tree"

    @dataclass
    class Options:
        k: int = 2
        subs: int = 2

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        return ConTReGen.describe(node, lang)  # its sub-questions carry ConTReGen's verification facts

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        root = trace.root
        plan = ctx.llm.chat(root, "decompose", [{"role": "user", "content": f"DECOMPOSE: {trace.question}"}])
        questions = [s.strip() for s in plan.split("|") if s.strip()][: self.opts.subs]
        ctx.emit(root)

        def answer(i: int, q: str, prev: str) -> tuple[Node, list[Passage]]:
            node = root.add(Node(question=q.replace("#1", "[ANS_1]"), kind="sub"))
            node.filled_question = q.replace("#1", prev)
            q = node.filled_question
            ctx.emit(root)
            passages = ctx.retrieve(node, q, self.opts.k)
            prompt = f"{common_prompts.PROMPTS[ctx.lang].data_note}\n{format_passages(passages)}\nSUBQ: {q}"
            node.answer = ctx.llm.chat(node, "answer", [{"role": "user", "content": prompt}])
            if passages:
                top = passages[0]
                span = node.answer if node.answer in top.text else ""
                node.relevance = {top.id: {"relevant": True, "span": span}}
            node.scores = {"answerability": 80 + i, "semantic_coherence": 8}
            node.data.update(verdict="needed", reason="scripted check", topic_cos=0.91)  # as ConTReGen records them
            ctx.emit(node)
            return node, passages

        results: list[tuple[Node, list[Passage]]] = []
        for i, q in enumerate(questions):  # sequential: a later sub-question may use an earlier answer
            results.append(answer(i, q, results[-1][0].answer if results else ""))
        seen: list[Passage] = []
        for _, ps in results:
            seen.extend(p for p in ps if p.id not in {s.id for s in seen})
        notes = "\n".join(f"{n.filled_question} -> {n.answer}" for n, _ in results)
        out = ctx.llm.chat(root, "combine", [{"role": "user", "content": f"COMBINE: {trace.question}\n{notes}"}])
        trace.answer = re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", out).strip()
        trace.citations = cited_ids(out, seen)
        root.answer = trace.answer
        root.scores = {"confidence": 0.9}
