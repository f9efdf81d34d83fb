"""Self-Ask with a search engine (Press et al., 2023; the ToQ paper's Self-Ask baseline, §4.3).

    Question: <question>
    Are follow up questions needed here: Yes.
    Follow up: <sub-question>           <- the model writes this, generation stops at "Intermediate answer:"
    Intermediate answer: <answer>       <- gaji retrieves K passages for the follow-up and a short reader
    ...                                    call answers it from them; the answer is inserted here
    So the final answer is: <answer>    <- the model writes this when it needs no more follow-ups

The model continues the few-shot prompt until it gives the final answer or asks `max_followups`
follow-ups; then "So the final answer is:" is appended and it must answer. Korean prompts use the
Korean markers (추가 질문: / 중간 답변: / 따라서 최종 정답은:); both languages' markers are parsed.

style "long" (ConTReGen §4.2's Self-Ask for long-form questions): the chain runs as above (its final short answer
is kept in data["short_answer"]; a forced one is not asked for), then the long-form writer (long_answer.py) writes a
cited paragraph from the follow-ups' passages, taken rank by rank across follow-ups up to `long_passages`, with the
follow-up questions and their intermediate answers as notes. A chain that asked no follow-up retrieves once with
the question (data["question_retrieval"]), so the paragraph is never written closed-book.

Trace: each follow-up is a child Node (kind "followup") with its question, query, passages and
intermediate answer; the root holds the chain calls and data["reasoning"] (the whole chain).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gaji.errors import ConfigError
from gaji.methods.base import Method, RunContext, node_failure
from gaji.methods.common import cited_ids, clean_answer, format_passages, interleave_ranked
from gaji.methods.fewshot import (
    Demo,
    FewShotOptions,
    TokenCounter,
    context_budget,
    fit_prompt,
    load_demos,
)
from gaji.methods.describe import Facts, word
from gaji.methods.long_answer import write_long
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts import self_ask as self_ask_prompts
from gaji.registry import METHODS
from gaji.types import Fact, Node, Passage, Trace

_FOLLOW_UP = re.compile(r"^[ \t]*(?:Follow[ -]?up|추가 질문)[ \t]*:[ \t]*(.*)$", re.I | re.M)
_FINAL = re.compile(r"(?:So the final answer is|최종 정답은|최종 답은)[ \t]*:[ \t]*(.*)", re.I)
_READER_ANSWER = re.compile(r"^\s*(?:answer|답)\s*[:：]\s*(.+)$", re.I | re.M)
_READER_SOURCES = re.compile(r"^\s*(?:sources?|근거)\s*[:：]\s*(.+)$", re.I | re.M)


@dataclass
class Move:
    """What one continuation of the chain says: a final answer, or a follow-up question (or neither)."""

    kept: str  # the generated text kept in the chain (up to and including the follow-up line)
    follow_up: str | None = None
    final: str | None = None


def parse_move(out: str) -> Move:
    """Read a continuation: whichever comes first, "Follow up: …" or "So the final answer is: …"."""
    fu, fin = _FOLLOW_UP.search(out), _FINAL.search(out)
    if fin and (not fu or fin.start() < fu.start()):
        return Move(kept=out[: fin.end()], final=clean_answer(fin.group(1)))
    if fu and fu.group(1).strip():
        return Move(kept=out[: fu.end()].rstrip() + "\n", follow_up=fu.group(1).strip())
    return Move(kept="")


def demo_block(d: Demo, lang: str) -> str:
    p = self_ask_prompts.PROMPTS[lang]
    lines = [f"{p.question} {d.question}"]
    if d.followups:
        lines.append(f"{p.needed} {p.yes}")
        for f in d.followups:
            lines += [f"{p.follow_up} {f.question}", f"{p.intermediate} {f.answer}"]
    else:
        lines.append(f"{p.needed} {p.no}")
    lines.append(f"{p.final} {d.answer}")
    return "\n".join(lines)


@METHODS.register("self_ask", help="ask and answer follow-up questions with retrieval, then answer (Self-Ask)")
class SelfAsk(Method):
    name = "self_ask"

    @dataclass
    class Options(FewShotOptions):
        k: int = 5  # passages retrieved per follow-up question
        max_followups: int = 5
        step_tokens: int = 96  # generation budget of one continuation (a follow-up or the final answer)
        answer_tokens: int = 48  # generation budget of the follow-up reader and of a forced final answer
        style: str = "short"  # short: the chain's final answer; long: a cited paragraph after the chain
        words: int = 250  # length of a "long" answer
        long_passages: int = 8  # passages the long answer reads, taken rank by rank across the follow-ups

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.style not in ("short", "long"):
                raise ConfigError(f"self_ask option style must be short or long, not {self.style!r}")

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        d, f = node.data, Facts(lang)
        f.note("final answer", "최종 답", d.get("forced_final"),
               word(lang, "asked for: the chain gave none", "체인이 답하지 않아 따로 요청함"))
        f.note("retrieval", "검색", d.get("question_retrieval"),
               word(lang, "no follow-up: searched with the question", "추가 질문 없음: 질문으로 검색함"))
        return f.lines

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        o, lang, root, q = self.opts, ctx.lang, trace.root, trace.question
        p = self_ask_prompts.PROMPTS[lang]
        demos = load_demos(ctx.lang, o.demos)
        blocks = [demo_block(d, lang) for d in demos]
        count = TokenCounter(ctx.llm.count_tokens)
        start = f"{p.question} {q}\n{p.needed}"
        chain = ""  # what follows `start`: the model's moves and the inserted intermediate answers
        final: str | None = None
        citations: list[str] = []

        def prompt(suffix: str, reserve: int) -> str:
            fitted = fit_prompt(count, context_budget(ctx.llm, o), p.header, blocks,
                                lambda _n: start + suffix, 0, reserve=reserve, max_demos=o.max_demos)
            root.data["demos"] = fitted.demos
            return fitted.text

        stop = [p.intermediate, f"\n{p.question}", "\n\n"]
        for i in range(o.max_followups + 1):
            out = ctx.llm.complete(root, "followup", prompt(chain, o.step_tokens), stop=stop, max_tokens=o.step_tokens)
            move = parse_move(out)
            if move.final is not None:
                chain += move.kept
                final = move.final
                break
            if move.follow_up is None or i == o.max_followups:
                break  # no usable move, or follow-ups used up: ask for the final answer below
            node = root.add(Node(question=move.follow_up, kind="followup"))
            with node_failure(node):
                answer, cited = self.answer_followup(ctx, node, move.follow_up)
            citations += [c for c in cited if c not in citations]
            chain += f"{move.kept}{p.intermediate} {answer}\n"
            ctx.emit(node)

        if o.style == "long":
            root.data["short_answer"] = final
            root.data["reasoning"] = (start + chain).strip()
            self.write_long_answer(trace, ctx)
            return
        if final is None:
            if not chain.strip():  # no usable follow-up at all: answer as the no-follow-up demonstrations do
                chain = f" {p.no}\n"
            elif not chain.endswith("\n"):
                chain += "\n"
            chain += p.final
            out = ctx.llm.complete(root, "answer", prompt(chain, o.answer_tokens), stop=["\n"],
                                   max_tokens=o.answer_tokens)
            final = clean_answer(out)
            chain += f" {final}"
            root.data["forced_final"] = True
        trace.answer = root.answer = final
        trace.citations = citations
        root.data["reasoning"] = (start + chain).strip()

    def write_long_answer(self, trace: Trace, ctx: RunContext) -> None:
        """The cited paragraph from the follow-ups' passages (rank by rank), with their answers as notes."""
        followups = [n for n in trace.root.children if n.kind == "followup"]
        notes = [(n.question, n.answer) for n in followups
                 if n.status == "ok" and n.answer and n.answer != self_ask_prompts.PROMPTS[ctx.lang].unknown]
        ranked = [[trace.passages[i] for i in n.passage_ids] for n in followups]
        if not any(ranked):  # the chain asked nothing: retrieve once with the question, as RetGen does
            ranked = [ctx.retrieve(trace.root, trace.question, self.opts.k)]
            trace.root.data["question_retrieval"] = True
        passages = interleave_ranked(ranked, self.opts.long_passages)
        long = write_long(ctx, trace.root, trace.question, passages, words=self.opts.words,
                          passage_chars=self.opts.passage_chars, notes=notes)
        trace.answer = trace.root.answer = long.text
        trace.citations = long.citations
        trace.root.data["raw_output"] = long.raw

    def answer_followup(self, ctx: RunContext, node: Node, question: str) -> tuple[str, list[str]]:
        """Retrieve K passages for the follow-up and answer it with one short reader call."""
        lang = ctx.lang
        passages = ctx.retrieve(node, question, self.opts.k)
        messages = self_ask_prompts.PROMPTS[lang].reader.messages(
            data_note=common_prompts.PROMPTS[lang].data_note,
            passages=format_passages(passages, max_chars=self.opts.passage_chars),
            question=question,
        )
        out = ctx.llm.chat(node, "intermediate_answer", messages, max_tokens=self.opts.answer_tokens)
        answer, cited = parse_reader(out, passages)
        node.answer = answer or self_ask_prompts.PROMPTS[lang].unknown
        node.data["cited_ids"] = cited
        return node.answer, cited or [p.id for p in passages]


def parse_reader(text: str, passages: Sequence[Passage]) -> tuple[str, list[str]]:
    """("Answer: X\\nSources: [1], [3]") -> ("X", [ids of passages 1 and 3]); falls back to the first line."""
    m = _READER_ANSWER.search(text)
    answer = clean_answer(m.group(1)) if m else clean_answer(text)
    s = _READER_SOURCES.search(text)
    sources = s.group(1) if s else ""
    if sources and "[" not in sources:  # "Sources: 1, 3"
        sources = "[" + ", ".join(re.findall(r"\d+", sources)) + "]"
    return answer, cited_ids(sources, list(passages))
