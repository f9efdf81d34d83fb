"""CoRAG-style retrieval chains with early stopping (paper 003: §3, Algorithm 1).

    i <- 1; H <- {}
    while i <= L and the call budget C allows a step:
        Q_i <- LLM(Q, H)                      (eq. 1)  sub-question from the question and the chain so far
        if stop_on_repeat and Q_i was asked before: break   (ours, off by default: no new evidence)
        D_i <- Retriever(Q_i, k)
        A_i <- LLM(Q_i, D_i)                  (eq. 2)  sub-answer (closed book when there is no retriever)
        H   <- H + (Q_i, A_i)
        O_i <- f(Q, H)                                  stop policy: none | classifier | evaluator
        if O_i = [Sufficient]: break
        i <- i + 1
    D <- Retriever(Q, k);  Â <- LLM(Q, H, D)  (eq. 3)

Stop policies (`stop` option): "none" runs L steps (CoRAG's greedy decoding); "classifier" asks the
trained sufficiency classifier (`gaji classifier train`, loaded from the `classifier` option) after
each step; "evaluator" asks the ToQ query evaluator (a zero-shot LLM judge of the chain so far).
`stop_on_repeat` (not in the paper) ends the chain when the LLM asks a sub-question it has already asked
(same words; case, spacing and end punctuation aside): greedy decoding would retrieve and answer it the same
way, so the step adds nothing. It combines with any stop policy.

Trace: every step is a child Node (kind "step") with Q_i (question/query), D_i (passage_ids), A_i
(answer), Node.stop (the policy's verdict, a Stop) and data{"step", "repeat_of"}; the root holds the final
retrieval with Q, the final-answer call and data{"chain", "stop_reason", "steps", "closed_book"}
(stop_reason: max_length | max_calls | repeat | <policy>_sufficient; `gaji classifier table4` reads it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gaji.errors import ConfigError
from gaji.llm.prompts import fill
from gaji.methods.base import Method, RunContext, node_failure
from gaji.methods.chain_stop import check_stop_policy, make_stop_policy
from gaji.methods.common import clean_answer, format_passages
from gaji.methods.prompts import chain as chain_prompts
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts.chain import History, format_history
from gaji.methods.describe import Facts, stop_facts, word
from gaji.methods.span import shape_answer
from gaji.registry import METHODS
from gaji.types import Fact, Node, Passage, Trace

# labels stripped from a model's one-line output (either language)
SUBQ_PREFIXES = ("sub-question", "subquestion", "next sub-question", "question", "하위 질문", "다음 하위 질문", "질문")
ANSWER_PREFIXES = ("short answer", "final answer", "answer", "짧은 답", "최종 답", "답")


def same_question_key(text: str) -> str:
    """A sub-question compared for repeats: case-folded, spaces collapsed, end punctuation dropped."""
    return " ".join(text.casefold().split()).rstrip(" ?？.。!！")


def repeat_of(question: str, history: History) -> int | None:
    """The step number (1-based) of the earlier sub-question `question` repeats, or None."""
    key = same_question_key(question)
    for n, (earlier, _) in enumerate(history, 1):
        if same_question_key(earlier) == key:
            return n
    return None


def first_line(text: str, prefixes: tuple[str, ...]) -> str:
    """The first non-empty line of a model output without a leading label ("Sub-question:", "1.", "-")."""
    for line in text.strip().splitlines():
        line = line.strip().strip("*").strip()
        if not line:
            continue
        line = re.sub(r"^(?:\d+[.)]|[-•])\s*", "", line)
        low = line.lower()
        for p in sorted(prefixes, key=len, reverse=True):
            if low.startswith(p):
                rest = line[len(p):].lstrip()
                if rest.startswith((":", "：")):
                    line = rest[1:].strip().strip("*").strip()
                    break
        if line:
            return line
    return ""


@METHODS.register("chain", help="CoRAG-style chain of sub-questions with retrieval; early stop by a classifier (paper 003)")
class Chain(Method):
    name = "chain"
    needs_retriever = False  # closed-book sub-answers when no index is given (Bamboogle has no corpus)
    optional_retriever = True  # ... but use the index when there is one (gaji.api.Gaji.ask passes it)

    @dataclass
    class Options:
        k: int = 5  # passages per retrieval (the paper: 5, BM25)
        max_length: int = 6  # L, the maximum chain length
        max_calls: int = 0  # C, LLM calls allowed per question including the final answer (0 = no limit)
        stop: str = "none"  # none | classifier | evaluator
        classifier: str = ""  # directory of a trained sufficiency classifier (stop=classifier)
        threshold: float = 0.5  # classifier: stop when P(sufficient) >= threshold
        stop_on_repeat: bool = False  # end the chain when a sub-question repeats an earlier one (not in the paper)
        closed_book: bool = False  # answer sub-questions without retrieval even when an index is given
        passage_chars: int = 600  # each passage is cut to this many characters in prompts
        subq_tokens: int = 48  # generation budget of a sub-question
        answer_tokens: int = 32  # generation budget of a sub-answer and of the final answer
        temperature: float = 0.0  # sub-question sampling (0 = greedy, as the paper's evaluation)
        seed: int = 0

        def __post_init__(self) -> None:
            if self.max_length < 1:
                raise ConfigError("chain: max_length must be at least 1")
            check_stop_policy(self.stop, self.classifier)

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        d, n = node.data, node.data.get("repeat_of")
        f = Facts(lang).tag("step", "단계", d.get("step"), f"#{d.get('step')}")
        f.note("retrieval", "검색", d.get("closed_book"), word(lang, "closed book", "검색 없이 답함"))
        f.decision("stop", "멈춤", n, word(lang, f"repeats step {n}", f"{n}단계 질문의 반복"))
        f.decision("stop", "멈춤", d.get("stop_reason"))  # why the chain ended (max_length, repeat, ...)
        return f.lines + stop_facts(node, lang)

    def wants_retriever(self) -> bool:
        return not self.opts.closed_book

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        o, root, q = self.opts, trace.root, trace.question
        policy = make_stop_policy(o.stop, classifier=o.classifier, threshold=o.threshold)
        closed = o.closed_book or ctx.retriever is None
        root.data["closed_book"] = closed
        history: History = []
        stop_reason = "max_length"
        for i in range(1, o.max_length + 1):
            need = 2 + policy.llm_calls
            if o.max_calls and trace.usage().calls + need + 1 > o.max_calls:
                stop_reason = "max_calls"
                break
            step = root.add(Node(kind="step"))
            step.data["step"] = i
            with node_failure(step):
                qi = self.sub_question(ctx, step, q, history, seed=o.seed + i)
                step.question = step.filled_question = qi
                repeat = repeat_of(qi, history) if o.stop_on_repeat else None
                if repeat is not None:
                    step.data["repeat_of"] = repeat
                    stop_reason = "repeat"
                    ctx.emit(step)
                    break
                ai = self.sub_answer(ctx, step, qi, closed)
            history.append((qi, ai))
            with node_failure(step):
                verdict = policy.decide(ctx, step, q, history)
            step.stop = verdict
            ctx.emit(step)
            if verdict.stop:
                stop_reason = f"{o.stop}_sufficient"
                break

        passages = [] if closed else ctx.retrieve(root, q, o.k)
        trace.answer = root.answer = self.final_answer(ctx, root, q, history, passages)
        trace.citations = [p.id for p in passages]
        root.data.update(
            chain=[{"question": a, "answer": b} for a, b in history],
            steps=len(history),
            stop_reason=stop_reason,
        )

    # -- the three LLM calls (also used by `gaji classifier make-data`) ---------------------------
    def sub_question(self, ctx: RunContext, node: Node, question: str, history: History, seed: int = 0) -> str:
        """(1) Q_i = LLM(Q, Q_<i, A_<i)."""
        lang, o = ctx.lang, self.opts
        messages = chain_prompts.PROMPTS[lang].sub_question.messages(question=question,
                                                                     history=format_history(history, lang))
        out = ctx.llm.chat(node, "sub_question", messages, max_tokens=o.subq_tokens,
                           temperature=o.temperature, seed=seed)
        qi = first_line(out, SUBQ_PREFIXES)
        return qi or question  # nothing usable: search with the question itself

    def sub_answer(self, ctx: RunContext, node: Node, sub_question: str, closed_book: bool) -> str:
        """(2) A_i = LLM(Q_i, D_i): k passages retrieved with Q_i, or closed book."""
        lang, o, p = ctx.lang, self.opts, chain_prompts.PROMPTS[ctx.lang]
        if closed_book:
            messages = p.sub_answer_closed.messages(question=sub_question)
        else:
            passages = ctx.retrieve(node, sub_question, o.k)
            messages = p.sub_answer.messages(
                data_note=common_prompts.PROMPTS[lang].data_note,
                passages=format_passages(passages, max_chars=o.passage_chars),
                question=sub_question,
            )
        out = ctx.llm.chat(node, "sub_answer", messages, max_tokens=o.answer_tokens)
        # a span, even when the model wrote a sentence: the history shows the next sub-question short answers
        reply = clean_answer(first_line(out, ANSWER_PREFIXES))
        node.answer = shape_answer(reply, sub_question, [], lang).answer or p.not_found
        return node.answer

    def final_messages(self, lang: str, question: str, history: History, passages: list[Passage]) -> list[dict]:
        """(3) the prompt of Â = LLM(Q, Q_1:i, A_1:i, D); also the context of eq. 4's log P(A | Q, C)."""
        p = chain_prompts.PROMPTS[lang]
        evidence = ""
        if passages:
            evidence = fill(p.evidence, data_note=common_prompts.PROMPTS[lang].data_note,
                            passages=format_passages(passages, max_chars=self.opts.passage_chars))
        return p.final.messages(evidence=evidence, history=format_history(history, lang), question=question)

    def final_answer(self, ctx: RunContext, node: Node, question: str, history: History,
                     passages: list[Passage], purpose: str = "answer") -> str:
        out = ctx.llm.chat(node, purpose, self.final_messages(ctx.lang, question, history, passages),
                           max_tokens=self.opts.answer_tokens)
        return clean_answer(first_line(out, ANSWER_PREFIXES))


__all__ = ["Chain", "History", "first_line", "format_history"]
