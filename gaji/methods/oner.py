"""OneR: retrieve K passages with the question once, answer from them with citations
(IRCoT §4's one-step retrieval baseline; the ToQ paper's Direct Generation over retrieved documents)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from gaji.methods.base import Method, RunContext
from gaji.methods.common import DATA_NOTE, cited_ids, clean_answer, format_passages
from gaji.methods.prompts import direct
from gaji.registry import METHODS
from gaji.types import Trace

_ANSWER = re.compile(r"^\s*(?:answer|답)\s*[:：]\s*(.+)$", re.I | re.M)
_SOURCES = re.compile(r"^\s*(?:sources?|근거)\s*[:：]\s*(.+)$", re.I | re.M)


@METHODS.register("oner", help="retrieve K passages with the question once, answer from them")
class OneR(Method):
    name = "oner"

    @dataclass
    class Options:
        k: int = 5
        max_tokens: int = 96
        passage_chars: int = 1200  # each passage is cut to this many characters in the prompt

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        lang, root = ctx.lang, trace.root
        passages = ctx.retrieve(root, trace.question, self.opts.k)
        user = direct.ONER_USER[lang].format(
            data_note=DATA_NOTE[lang],
            passages=format_passages(passages, max_chars=self.opts.passage_chars),
            question=trace.question,
        )
        messages = [{"role": "system", "content": direct.SYSTEM[lang]}, {"role": "user", "content": user}]
        out = ctx.llm.chat(root, "answer", messages, max_tokens=self.opts.max_tokens)
        answer, sources = parse_answer_sources(out)
        trace.answer = answer
        trace.citations = cited_ids(sources, passages) or cited_ids(out, passages)
        root.answer = answer
        root.data["raw_output"] = out


def parse_answer_sources(text: str) -> tuple[str, str]:
    """('Answer: X\\nSources: [1], [3]') -> ('X', '[1], [3]'); falls back to the first line."""
    m = _ANSWER.search(text)
    answer = clean_answer(m.group(1)) if m else clean_answer(text)
    s = _SOURCES.search(text)
    sources = s.group(1) if s else ""
    if sources and "[" not in sources:  # "Sources: 1, 3" -> "[1, 3]"
        nums = re.findall(r"\d+", sources)
        sources = "[" + ", ".join(nums) + "]" if nums else ""
    return answer, sources
