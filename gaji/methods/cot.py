"""CoT: single-time retrieval with the question, then a few-shot chain of thought that ends
"So the answer is: X" (the ToQ paper's Chain-of-Thought baseline, §4.3; IRCoT's OneR retriever
with its CoT reader, §3.2).

With `no_retrieval` the same demonstrations are shown without paragraphs and the model reasons
closed-book (IRCoT's NoR with a CoT reader). `cot_nr` is that variant under its own name; a `cot`
instance built with no_retrieval=true also needs no retriever.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gaji.methods.base import Method, RunContext
from gaji.methods.fewshot import FewShotOptions, load_demos
from gaji.methods.reader import read
from gaji.registry import METHODS
from gaji.types import Trace


@METHODS.register("cot", help="retrieve K passages with the question once, answer with a few-shot chain of thought")
class CoT(Method):
    name = "cot"

    @dataclass
    class Options(FewShotOptions):
        k: int = 5  # paragraphs retrieved with the question
        no_retrieval: bool = False  # closed-book chain of thought (no retriever needed)
        max_tokens: int = 256  # for the chain of thought

    def __init__(self, options: Any = None, **overrides: Any):
        super().__init__(options, **overrides)
        # the instance decides: a closed-book CoT runs without an index
        self.needs_retriever = not self.opts.no_retrieval  # type: ignore[misc]

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        o, root = self.opts, trace.root
        demos = load_demos(ctx.lang, o.demos)
        paragraphs = [] if o.no_retrieval else ctx.retrieve(root, trace.question, o.k)
        r = read(ctx, root, trace.question, paragraphs, demos, o, closed_book=o.no_retrieval, max_tokens=o.max_tokens)
        shown = paragraphs[: r.paragraphs]
        trace.answer = root.answer = r.answer
        trace.citations = [p.id for p in shown]
        root.data.update(reasoning=r.text, demos=r.demos, paragraphs_shown=len(shown))


@METHODS.register("cot_nr", help="closed-book chain of thought (no retrieval), few-shot")
class CoTNoRetrieval(CoT):
    name = "cot_nr"
    needs_retriever = False

    @dataclass
    class Options(CoT.Options):
        no_retrieval: bool = True
