"""Response generator f_RG(q, Q, D) (the paper's §2; Algorithm 1, line 8).

Answers a node from its question q, its search query Q and its documents D (the ones the answer
integrator judged relevant), citing them as [n]. Sub-questions get a short answer (the words that
fill a later `[ANS_N]`); the root gets a one-sentence answer plus an explanation. A node that was
decomposed is answered the same way with its children's answers given as context ("modify the Root
with the answers of the created nodes", §3.1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gaji.llm.prompts import chat_messages, fill
from gaji.llm.tracked import TrackedLLM
from gaji.methods.common import attribute, cited_ids, clean_answer, format_passages, plain_answer
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts import direct
from gaji.methods.reask import ask_plain
from gaji.methods.span import shape_answer
from gaji.methods.toq.prompts import PROMPTS, is_unknown
from gaji.types import Node, Passage

RESPONSE_SCHEMA = {
    "type": "object",
    "properties": {"explanation": {"type": "string", "maxLength": 500}, "answer": {"type": "string", "maxLength": 200}},
    "required": ["explanation", "answer"],
}


@dataclass
class Response:
    answer: str
    explanation: str
    cited: list[str] = field(default_factory=list)  # passage ids cited as [n]

    @property
    def unknown(self) -> bool:
        return is_unknown(self.answer)

    def summary(self) -> str:
        """What the query evaluator reads: the explanation, then the answer."""
        if not self.explanation or self.answer in self.explanation:
            return self.explanation or self.answer
        return f"{self.explanation} → {self.answer}"


class ResponseGenerator:
    """`style` "json" (default): explanation + answer as JSON, few-shot (the exemplars above). "plain": OneR's plain
    prompt (documents in the system message, only the answer asked for), with the sub-answers as context lines."""

    def __init__(self, llm: TrackedLLM, doc_chars: int = 800, max_tokens: int = 480, total_chars: int = 3500,
                 style: str = "json", trim: str = "head", reask: bool = False, logprobs: int = 0):
        self.llm = llm
        self.logprobs = logprobs  # style plain: > 0 records how sure the reader was (LLMCall.confidence)
        self.reask = reask  # style plain: an answer of the wrong shape is asked about once more (gaji.methods.reask)
        self.trim = trim  # "head" | "relevant": how a document over its share is cut (common.trim_passage)
        self.style = style
        self.doc_chars = doc_chars  # each document is cut to this …
        self.total_chars = total_chars  # … and all of them share this (≈2,500 Korean tokens: fits a 4k slot)
        self.max_tokens = max_tokens

    def documents(self, passages: list[Passage], about: str = "") -> str:
        """The fenced documents, each cut to its share of the character budget: its head, or (trim "relevant")
        its sentences most relevant to `about` (the node's question, query and sub-answers)."""
        return format_passages(passages, max_chars=min(self.doc_chars, self.total_chars // max(1, len(passages))),
                               query=about if self.trim == "relevant" else None)

    @staticmethod
    def about(question: str, query: str, sub_answers: list[tuple[str, str]]) -> str:
        """What a node's documents are trimmed toward: its question, its search query and its children's answers."""
        return " ".join([question, query, *(a for _, a in sub_answers)])

    @staticmethod
    def context(lang: str, sub_answers: list[tuple[str, str]], hint: str = "") -> str:
        """The children's answers as lines before the question ("" for a node without children), then the
        order hint of a comparison node (gaji.methods.toq.order), if any."""
        if not sub_answers:
            return ""
        lines = "".join(f"- {q} -> {a}\n" for q, a in sub_answers)
        return fill(PROMPTS[lang].subanswers_header) + lines + (hint + "\n" if hint else "") + "\n"

    def messages(self, question: str, query: str, passages: list[Passage], lang: str,
                 sub_answers: list[tuple[str, str]], short: bool, hint: str = "") -> list[dict]:
        return PROMPTS[lang].respond.messages(
            context=self.context(lang, sub_answers, hint),
            question=question,
            query=query or question,
            documents=self.documents(passages, self.about(question, query, sub_answers)),
            style="short" if short else "full",
        )

    def respond(
        self,
        node: Node,
        question: str,
        query: str,
        passages: list[Passage],
        lang: str,
        sub_answers: list[tuple[str, str]] | None = None,
        short: bool = True,
        hint: str = "",
    ) -> Response:
        """R = f_RG(q, Q, D); `sub_answers` are (sub-question, answer) pairs of the node's children, `hint` a
        line shown after them (a comparison node's order hint)."""
        if self.style == "plain":
            return self.respond_plain(node, question, passages, lang, list(sub_answers or []), hint, query)
        msgs = self.messages(question, query, passages, lang, list(sub_answers or []), short, hint)
        obj = self.llm.json(node, "answer", msgs, schema=RESPONSE_SCHEMA, max_tokens=self.max_tokens)
        explanation = str(obj.get("explanation", "")).strip()
        raw = str(obj.get("answer", "")).strip()
        answer = clean_answer(raw) if short else raw
        if short:  # a sentence where a span belongs (it would fill an [ANS_N] slot): cut the span out
            shaped = shape_answer(answer, question, passages, lang)
            answer, explanation = shaped.answer, explanation or shaped.explanation
        if is_unknown(answer):
            answer = PROMPTS[lang].unknown
        return Response(answer=answer, explanation=explanation, cited=cited_ids(f"{explanation} {raw}", passages))

    def respond_plain(self, node: Node, question: str, passages: list[Passage], lang: str,
                      sub_answers: list[tuple[str, str]], hint: str = "", query: str = "") -> Response:
        docs = self.documents(passages, self.about(question, query, sub_answers))
        plain = direct.PROMPTS[lang].plain
        system = fill(plain.system, data_note=common_prompts.PROMPTS[lang].data_note, passages=docs)
        user = self.context(lang, sub_answers, hint) + fill(plain.user, question=question)
        messages = chat_messages(system, user)
        out = ask_plain(self.llm, node, messages, question, passages, lang, 64, self.reask, logprobs=self.logprobs)
        shaped = shape_answer(plain_answer(out), question, passages, lang)  # a span, even when the model wrote a sentence
        answer = shaped.answer
        if is_unknown(answer) or not answer:
            return Response(answer=PROMPTS[lang].unknown, explanation="", cited=cited_ids(out, passages))
        return Response(answer=answer, explanation=shaped.explanation,
                        cited=cited_ids(out, passages) or attribute(answer, passages))
