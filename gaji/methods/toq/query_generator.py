"""Query generator f_QG (the paper's §3.3 and Prompt B.3; Algorithm 1, line 7).

Few-shot question → query pairs, then the (slot-filled) node question: one keyword-style search
query, which suits BM25 and the hybrid retriever. An empty or unusable output falls back to the
question itself, so retrieval always has something to search for.
"""
from __future__ import annotations

import re

from gaji.llm.tracked import TrackedLLM
from gaji.methods.toq.prompts import PROMPTS
from gaji.methods.toq.tree import strip_slots
from gaji.types import Node

_PREFIX = re.compile(r"^\s*(?:query|search query|검색어|쿼리)\s*[:：]\s*", re.I)


def clean_query(text: str, question: str, max_chars: int = 200) -> str:
    """First line of the output, without a 'Query:' prefix, quotes or slots; the question if empty."""
    line = next((ln for ln in text.strip().splitlines() if ln.strip()), "")
    q = _PREFIX.sub("", line).strip().strip("\"'“”`").strip()
    q = strip_slots(q)
    if len(q) < 2:
        q = strip_slots(question)
    return q[:max_chars]


class QueryGenerator:
    def __init__(self, llm: TrackedLLM, max_tokens: int = 48):
        self.llm = llm
        self.max_tokens = max_tokens

    def messages(self, question: str, lang: str) -> list[dict]:
        return PROMPTS[lang].query.messages(question=question)

    def generate(self, node: Node, question: str, lang: str) -> str:
        """Q = f_QG(q): one search query for `question` (the call is recorded on `node`)."""
        out = self.llm.chat(node, "query", self.messages(question, lang), max_tokens=self.max_tokens, stop=["\n"])
        return clean_query(out, question)
