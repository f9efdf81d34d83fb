"""Iter-RetGen: iterative retrieval-generation synergy (Shao et al., 2023; ConTReGen §4.2 baseline).

    y_0 <- ""
    for t = 1 .. T:
        D_t <- retrieve(y_{t-1} || question, K)      (generation-augmented retrieval)
        y_t <- generate(D_t, question)               (retrieval-augmented generation, few-shot CoT)
    answer <- the answer in y_T ("So the answer is: X")

Each iteration reads only its own paragraphs; the previous generation steers the retrieval.

style "long" (ConTReGen §4.2's IterRetGen for long-form questions): each y_t is a cited paragraph written by the
long-form writer (long_answer.py) from D_t; the next retrieval uses y_t without its [n] citations. The answer is y_T.
Trace: each iteration is a child Node (kind "iteration") with its query, passages, generation
(data["generation"]) and answer; the root holds data["reasoning"] (the last generation).
"""
from __future__ import annotations

from dataclasses import dataclass

from gaji.errors import ConfigError
from gaji.methods.base import Method, RunContext, node_failure
from gaji.methods.describe import Facts
from gaji.methods.fewshot import FewShotOptions, TokenCounter, load_demos
from gaji.methods.long_answer import write_long
from gaji.methods.reader import read
from gaji.registry import METHODS
from gaji.text.longform import strip_citations
from gaji.types import Fact, Node, Passage, Trace


@METHODS.register("iter_retgen", help="T rounds: retrieve with last generation + question, regenerate (Iter-RetGen)")
class IterRetGen(Method):
    name = "iter_retgen"

    @dataclass
    class Options(FewShotOptions):
        k: int = 5  # paragraphs per iteration
        iterations: int = 3  # T
        max_tokens: int = 256  # per generation (style "cot"; "long" uses 2 tokens per word)
        style: str = "cot"  # cot: few-shot CoT reader, short answer; long: a cited paragraph each iteration
        words: int = 250  # length of a "long" generation

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.style not in ("cot", "long"):
                raise ConfigError(f"iter_retgen option style must be cot or long, not {self.style!r}")

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        t = node.data.get("iteration")
        return Facts(lang).tag("iteration", "반복", t, f"#{t}").lines

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        o, root, q = self.opts, trace.root, trace.question
        demos = load_demos(ctx.lang, o.demos)
        count = TokenCounter(ctx.llm.count_tokens)
        previous = ""
        for t in range(1, o.iterations + 1):
            node = root.add(Node(question=q, kind="iteration"))
            node.data["iteration"] = t
            with node_failure(node):
                query = f"{previous} {q}".strip() if previous else q
                paragraphs = ctx.retrieve(node, query, o.k)
                if o.style == "long":
                    previous = self.long_iteration(trace, ctx, node, paragraphs)
                    continue
                r = read(ctx, node, q, paragraphs, demos, o, max_tokens=o.max_tokens, purpose="generate",
                         counter=count)
            node.answer = r.answer
            node.data.update(generation=r.text, demos=r.demos)
            # the best answer so far survives a failure in a later iteration
            trace.answer = root.answer = r.answer
            trace.citations = [p.id for p in paragraphs[: r.paragraphs]]
            root.data["reasoning"] = r.text
            ctx.emit(node)
            previous = r.text

    def long_iteration(self, trace: Trace, ctx: RunContext, node: Node, paragraphs: list[Passage]) -> str:
        """y_t as a cited paragraph from this iteration's paragraphs; returns the next query's prefix."""
        long = write_long(ctx, node, trace.question, paragraphs, words=self.opts.words,
                          passage_chars=self.opts.passage_chars, purpose="generate")
        node.answer = long.text
        node.data["generation"] = long.text
        trace.answer = trace.root.answer = long.text
        trace.citations = long.citations
        trace.root.data["reasoning"] = long.text
        ctx.emit(node)
        return strip_citations(long.text)
