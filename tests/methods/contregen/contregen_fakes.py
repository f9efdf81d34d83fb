"""Test doubles for the ConTReGen tests: a word-overlap retriever over a few passages, and a scripted
"brain" that answers each ConTReGen prompt (plan / verify / relevance / synthesis) from small tables."""
from __future__ import annotations

import json
import re

from gaji.llm.base import Request
from gaji.llm.scripted import ScriptedLLM, request_text
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.types import Node, Passage, Retriever

_WORD = re.compile(r"\w+", re.UNICODE)

CORPUS = [
    ("festival", "Aurora Festival", "The Aurora Festival is held in Norvik each winter with music and lanterns."),
    ("music", "Festival Music", "Music at the Aurora Festival features choirs and drums in Norvik."),
    ("food", "Festival Food", "Food stalls at the Aurora Festival sell smoked fish and honey cakes."),
    ("drums", "Drum Makers", "Drum makers in Norvik craft the drums played for the festival choirs."),
    ("harbour", "Norvik Harbour", "Norvik harbour ships timber and smoked fish to the south."),
    ("history", "Festival History", "The Aurora Festival began in 1820 after a harsh winter in Norvik."),
]
QUESTION = "What is the Aurora Festival in Norvik like?"


class WordRetriever(Retriever):
    """Ranks passages by how many query words they share (ties keep list order); records its queries."""

    name = "words"

    def __init__(self, rows: list[tuple[str, str, str]] = CORPUS):
        self.passages = [Passage(id=i, doc_id=i, title=t, text=x) for i, t, x in rows]
        self.queries: list[str] = []

    def search(self, query: str, k: int = 5) -> list[Passage]:
        self.queries.append(query)
        q = {w.lower() for w in _WORD.findall(query)}
        scored = sorted(
            enumerate(self.passages),
            key=lambda ip: (-len(q & {w.lower() for w in _WORD.findall(ip[1].title + " " + ip[1].text)}), ip[0]),
        )
        return [
            Passage(id=p.id, doc_id=p.doc_id, title=p.title, text=p.text, rank=r, source=self.name)
            for r, (_, p) in enumerate(scored[:k], 1)
        ]


class Brain:
    """Answers ConTReGen prompts from tables (English or Korean prompts).

    plans:      question shown to the planner -> sub-questions (default: none)
    verdicts:   proposed sub-question -> rewritten query, or None for "not needed" (default: needed, same words)
    irrelevant: passage titles the relevance judge rejects
    fail:       substrings; a prompt containing one raises (the LLM call fails)
    """

    def __init__(self, plans=None, verdicts=None, irrelevant=(), fail=()):
        self.plans = plans or {}
        self.verdicts = verdicts or {}
        self.irrelevant = set(irrelevant)
        self.fail = tuple(fail)

    def __call__(self, req: Request) -> str:
        text = request_text(req)
        for f in self.fail:
            if f in text:
                raise RuntimeError(f"scripted failure on {f!r}")
        task = (req.json_schema or {}).get("title")
        if task == "contregen_plan":
            q = re.findall(r"^(?:Question|질문): (.+)$", text, re.MULTILINE)[-1]
            return json.dumps({"subquestions": self.plans.get(q, [])})
        if task == "contregen_verify":
            sub = re.findall(r"(?:Proposed sub-question|제안된 하위 질문): (.+)", text)[-1]  # after the worked examples
            query = self.verdicts.get(sub, sub)
            return json.dumps({"main_topic": "m", "sub_topic": "scripted", "needed": query is not None, "query": query or ""})
        if task == "contregen_relevance":
            docs = re.findall(r"^\[(\d+)\] \((.+?)\)", text, re.MULTILINE)
            return json.dumps({"relevant": [int(n) for n, t in docs if t not in self.irrelevant]})
        nums = re.findall(r"^\[(\d+)\]", text, re.MULTILINE)
        cite = f" [{nums[0]}]" if nums else ""
        notes = len(re.findall(r"^- (?:Q|질문): ", text, re.MULTILINE))
        if re.search(r"^(?:Answer|답):$", text, re.MULTILINE):
            return f"FINAL from {notes} notes and {len(nums)} documents{cite}"
        q = re.findall(r"^(?:Sub-question|하위 질문): (.+)$", text, re.MULTILINE)[-1]
        return f"{'MERGE' if notes else 'SUMMARY'} of {q}{cite}"


def make_ctx(brain, retriever: Retriever | None = None, parallel: bool = True, lang: str = "auto", **llm_kw):
    """A RunContext over a ScriptedLLM driven by `brain` (no retry backoff)."""
    llm = ScriptedLLM(default=brain, **llm_kw)
    ctx = RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=retriever or WordRetriever(), lang=lang,
                     parallel=parallel)
    return ctx, llm


def by_question(root: Node) -> dict[str, Node]:
    return {n.question: n for n in root.walk()}


def shape(node: Node) -> dict:
    """The run-independent content of a node tree (ids and timings left out)."""
    return {
        "q": node.question, "query": node.query, "status": node.status, "passages": node.passage_ids,
        "relevance": node.relevance, "answer": node.answer, "purposes": sorted(c.purpose for c in node.calls),
        "children": [shape(c) for c in node.children],
    }
