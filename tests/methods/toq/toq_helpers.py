"""Test doubles for the ToQ tests: a word-overlap retriever and a ScriptedLLM that routes each request
to a per-component handler (decompose / query / integrate / rewrite / answer / evaluate)."""
from __future__ import annotations

import json
import re
from typing import Callable

from gaji.llm.base import Request
from gaji.llm.prompts import fill
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.prompts import direct
from gaji.methods.toq.prompts import PROMPTS
from gaji.types import Passage, Retriever

_WORD = re.compile(r"\w+", re.U)


def _terms(text: str) -> set[str]:
    """Words, plus character bigrams of each word (so Korean words match without their particles)."""
    out: set[str] = set()
    for w in _WORD.findall(text.lower()):
        out.add(w)
        out.update(w[i : i + 2] for i in range(len(w) - 1))
    return out


class OverlapRetriever(Retriever):
    """Ranks an in-memory list of passages by term overlap with the query; records the queries."""

    name = "overlap"

    def __init__(self, docs: list[tuple[str, str, str]]):
        self.docs = [Passage(id=i, doc_id=i, title=t, text=x) for i, t, x in docs]
        self.queries: list[str] = []

    def search(self, query: str, k: int = 5) -> list[Passage]:
        self.queries.append(query)
        q = _terms(query)
        scored = sorted(
            ((len(q & _terms(p.title + " " + p.text)), -n, p) for n, p in enumerate(self.docs)),
            key=lambda t: (t[0], t[1]),
            reverse=True,
        )
        return [
            Passage(id=p.id, doc_id=p.doc_id, title=p.title, text=p.text, score=float(s), rank=r, source=self.name)
            for r, (s, _, p) in enumerate(scored[:k], 1)
        ]


# component -> the field of its prompt in ToQPrompts
_SYSTEMS = {
    "decompose": "decompose",
    "chain": "chain",
    "compare": "compare",
    "intersect": "intersect",
    "query": "query",
    "integrate_batch": "integrate_batch",
    "integrate": "integrate",
    "rewrite": "rewrite",
    "answer": "respond",
    "evaluate": "evaluate",
}


def component(req: Request) -> tuple[str, str]:
    """(component, lang) of a ToQ request, from its system prompt ("answer_plain": the respond=plain prompt)."""
    system = req.messages[0]["content"]
    for lang, p in direct.PROMPTS.items():
        if system[:40] == p.plain.system[:40]:
            return "answer_plain", lang
    for lang, p in PROMPTS.items():
        for comp, name in _SYSTEMS.items():
            if system[:60] == fill(getattr(p, name).system, max_children=4)[:60]:
                return comp, lang
    raise AssertionError(f"not a ToQ prompt: {system[:80]!r}")


Handler = Callable[[str], object]  # last user message -> reply (str, dict, or an Exception to raise)


def routed_llm(handlers: dict[str, Handler]) -> ScriptedLLM:
    """A ScriptedLLM whose replies come from `handlers[component](last user message)`."""

    def reply(req: Request) -> str:
        comp, _ = component(req)
        if comp == "answer_plain" and comp not in handlers:  # the plain responder gives the json one's answer
            out = handlers["answer"](req.messages[-1]["content"])
            if isinstance(out, dict):
                out = str(out.get("answer", ""))
        else:
            out = handlers[comp](req.messages[-1]["content"])
        if isinstance(out, Exception):
            raise out
        return out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)

    return ScriptedLLM(default=reply)


def question_of(user: str) -> str:
    """The 'Question: …' / '질문: …' line of a user message."""
    m = re.search(r"^(?:Question|질문): (.*)$", user, re.M)
    return m.group(1) if m else ""


def make_ctx(llm: ScriptedLLM, retriever: Retriever | None = None, parallel: bool = True) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=retriever, parallel=parallel)


def relevant(span: str) -> dict:
    return {"relevance": "relevant", "answer_span": span}


IRRELEVANT = {"relevance": "irrelevant", "answer_span": "None"}


def scores(valid: bool, coherence: int = 8, answerability: int | None = None) -> dict:
    a = answerability if answerability is not None else (90 if valid else 20)
    return {"asks_for": "the answer", "response_gives": "an answer" if valid else "something else",
            "semantic_coherence": coherence, "answerability": a, "response_validity": valid}
