"""NoR: no retrieval. The model answers from what it knows (the closed-book baseline of IRCoT §4)."""
from __future__ import annotations

from dataclasses import dataclass

from gaji.methods.base import Method, RunContext
from gaji.methods.common import clean_answer
from gaji.methods.prompts import direct
from gaji.registry import METHODS
from gaji.types import Trace


@METHODS.register("nor", help="no retrieval: answer closed-book")
class NoR(Method):
    name = "nor"
    needs_retriever = False

    @dataclass
    class Options:
        max_tokens: int = 64

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        lang, root = ctx.lang, trace.root
        messages = direct.PROMPTS[lang].nor.messages(question=trace.question)
        out = ctx.llm.chat(root, "answer", messages, max_tokens=self.opts.max_tokens)
        trace.answer = clean_answer(out)
        root.answer = trace.answer
