"""Answer integrator (the paper's §3.2 and Prompt B.1; Algorithm 1, line 6).

Two jobs:

1. judge retrieved documents: per document, JSON {"relevance": "relevant|irrelevant",
   "answer_span": ...} — the span of the document that matches the question's intent;
2. fill a dependent node: put the answers of the sub-questions it refers to into its `[ANS_N]`
   slots, and modify (rewrite) the question when a filled-in answer is too long to search with.

Judging documents. The paper's prompt judges ONE document per call, and so do we by default
(`mode="per_doc"`): the calls are independent, so they run on the LLM's parallel slots
(`map_fn=ctx.map`), and each shares the instruction + exemplar prefix, so the prompt cache leaves
only the question and the document to process. On a 2-core CPU with 2 slots this costs about the
same prompt tokens as one call over all documents, decodes the short outputs in a batch, and keeps
each judgement independent of the others (small models lose track of which document is which in a
long list). Each judgement is checked against its document (see `_judgement`). `mode="batch"` (one call, a JSON array with one judgement per document) is there for
backends without parallel slots. A per-document call that still fails after its retries leaves that
document unjudged (not relevant, error recorded); only when every call fails is it an LLMError.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from gaji.errors import ConfigError, LLMError
from gaji.llm.tracked import TrackedLLM
from gaji.methods.common import trim_passage
from gaji.methods.toq.prompts import PROMPTS
from gaji.methods.toq.tree import fill_slots
from gaji.types import Node, Passage

SPAN_CHARS = 100

MapFn = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


def serial_map(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """The MapFn that runs the items one after another (parallel off, or no parallel slots)."""
    return [fn(x) for x in items]


JUDGEMENT_SCHEMA = {
    "type": "object",
    "properties": {
        "relevance": {"type": "string", "enum": ["relevant", "irrelevant"]},
        # bounded, so the grammar closes the string: a model copying the question into the span
        # (seen on KoBLEX's long scenarios) would otherwise hit max_tokens and return broken JSON
        "answer_span": {"type": "string", "maxLength": SPAN_CHARS},
    },
    "required": ["relevance", "answer_span"],
}


def batch_schema(n: int) -> dict:
    item = {
        "type": "object",
        "properties": {"doc": {"type": "integer"}, **JUDGEMENT_SCHEMA["properties"]},
        "required": ["doc", "relevance", "answer_span"],
    }
    return {
        "type": "object",
        "properties": {"judgements": {"type": "array", "items": item, "minItems": n, "maxItems": n}},
        "required": ["judgements"],
    }


@dataclass
class Judgement:
    relevant: bool
    span: str = ""
    error: str | None = None

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"relevant": self.relevant, "span": self.span}
        if self.error:
            d["error"] = self.error
        return d


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _judgement(obj: dict, passage: Passage | None = None, question: str = "") -> Judgement:
    """A judgement from the model's JSON, checked against the document. Small models err both ways:
    a span that occurs verbatim in the document counts as relevant even when the label says
    "irrelevant" (they extract the right span, then mislabel it: seen with the 0.5B model); a span
    copied from the question instead of the document is dropped, but the label kept (seen with the
    1.5B model on KoBLEX's long scenarios, where those documents were relevant, with long answers)."""
    label = str(obj.get("relevance", "")).strip().lower() == "relevant"
    span = str(obj.get("answer_span", "") or "").strip().rstrip("…").strip()
    if span.lower() in ("none", "null", "n/a", "-"):
        span = ""
    grounded = bool(passage) and len(span) >= 2 and _norm(span) in _norm(passage.title + " " + passage.text)
    copied = bool(passage) and len(span) >= 10 and not grounded and _norm(span) in _norm(question)
    relevant = label or grounded
    return Judgement(relevant=relevant, span=span if relevant and not copied else "")


def document_json(p: Passage, max_chars: int) -> str:
    """A passage as the paper shows documents: a JSON object with its title and (cut) text."""
    return json.dumps({"title": p.title, "text": trim_passage(p.text, max_chars)}, ensure_ascii=False)


# how documents are judged: one call each (the paper), one call for all, or not at all (the caller then reads every
# retrieved document; only the [ANS_N] filling below is used)
MODES = ("per_doc", "batch", "none")

class AnswerIntegrator:
    def __init__(
        self,
        llm: TrackedLLM,
        mode: str = "per_doc",
        doc_chars: int = 800,
        map_fn: MapFn | None = None,
        rewrite_over: int = 80,
        max_tokens: int = 160,
    ):
        if mode not in MODES:
            raise ConfigError(f"option integrate of method 'toq' must be one of {', '.join(MODES)}, not {mode!r}")
        self.llm = llm
        self.mode = mode
        self.doc_chars = doc_chars
        self.map = map_fn or serial_map
        self.rewrite_over = rewrite_over
        self.max_tokens = max_tokens

    # -- 1. documents -------------------------------------------------------------------------
    def judge(self, node: Node, question: str, passages: list[Passage], lang: str) -> list[Judgement]:
        """One judgement per passage, in order (calls recorded on `node`)."""
        if not passages or self.mode == "none":
            return []
        if self.mode == "batch":
            return self._judge_batch(node, question, passages, lang)
        out: list[Judgement] = self.map(lambda p: self._judge_one_safe(node, question, p, lang), passages)
        if all(j.error for j in out):
            raise LLMError(f"answer integrator failed on every document: {out[0].error}")
        return out

    def judge_one(self, node: Node, question: str, passage: Passage, lang: str) -> Judgement:
        msgs = PROMPTS[lang].integrate.messages(question=question, document=document_json(passage, self.doc_chars))
        obj = self.llm.json(node, "integrate", msgs,
                            schema=JUDGEMENT_SCHEMA, max_tokens=self.max_tokens)
        return _judgement(obj, passage, question)

    def _judge_one_safe(self, node: Node, question: str, passage: Passage, lang: str) -> Judgement:
        try:
            return self.judge_one(node, question, passage, lang)
        except LLMError as e:
            return Judgement(relevant=False, error=str(e))

    def _judge_batch(self, node: Node, question: str, passages: list[Passage], lang: str) -> list[Judgement]:
        docs = "\n".join(f"[{i}] {document_json(ps, self.doc_chars)}" for i, ps in enumerate(passages, 1))
        msgs = PROMPTS[lang].integrate_batch.messages(question=question, documents=docs)
        obj = self.llm.json(node, "integrate", msgs,
                            schema=batch_schema(len(passages)), max_tokens=self.max_tokens * len(passages))
        out = [Judgement(relevant=False, error="not judged") for _ in passages]
        items = obj.get("judgements", [])
        for pos, it in enumerate(items):
            i = it.get("doc", pos + 1) - 1 if isinstance(it.get("doc"), int) else pos
            if not 0 <= i < len(passages) or out[i].error != "not judged":
                i = pos  # a bad or repeated number: trust the position
            if 0 <= i < len(passages):
                out[i] = _judgement(it, passages[i], question)
        return out

    # -- 2. dependent nodes -------------------------------------------------------------------
    def fill(self, node: Node, question: str, answers: Mapping[int, str], lang: str, rewrite: bool = True) -> str:
        """The node question with its [ANS_N] slots filled from `answers` (1-based N → answer).

        When a filled-in answer is longer than `rewrite_over` characters (a sentence rather than a
        span), the question is modified by the LLM into a short self-contained question
        (Algorithm 1, line 6: "modify Root or Node if needed"). A failed rewrite keeps the plain fill."""
        filled = fill_slots(question, answers)
        if not rewrite or all(len(a) <= self.rewrite_over for a in answers.values()):
            return filled
        listing = "\n".join(f"[ANS_{n}] = {a}" for n, a in sorted(answers.items()))
        msgs = PROMPTS[lang].rewrite.messages(question=question, answers=listing)
        try:
            out = self.llm.chat(node, "rewrite", msgs,
                                max_tokens=64, stop=["\n"])
        except LLMError as e:
            node.data["rewrite_error"] = str(e)
            return filled
        out = out.strip().strip("\"'“”")
        if len(out) < 4 or "[ANS" in out.upper():
            return filled
        node.data["rewritten"] = True
        return out
