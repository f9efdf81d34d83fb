"""IRCoT: interleaving retrieval with chain-of-thought reasoning (Trivedi et al., 2023; review §3).

    collected <- retrieve(question, K)
    repeat until a sentence says "answer is:" / "정답은:", max_steps, or a sentence is empty, repeated or a
    question (the model asking instead of reasoning):
        (i)  reason:   next CoT sentence from question + collected paragraphs + CoT so far
                       (few-shot prompt; only the first generated sentence is kept)
        (ii) retrieve: K paragraphs with that sentence as the query, added to collected
                       (duplicates merged, at most max_paragraphs, oldest kept)
    answer with the QA reader over the collected paragraphs (CoT or direct prompt, §3.2)

The prompt is the paper's template: "Wikipedia Title: <title>\\n<text>" blocks, then "Q:" and "A:"
with the CoT so far; demonstrations show gold + M distractor paragraphs, as many as fit the context.
Collected paragraphs keep retrieval order, so each step's prompt extends the previous one (the
backend's prompt cache reuses the shared prefix).

Trace: the root holds the question's retrieval, the reader call and data["reasoning"]; each step is a
child Node (kind "step") with its sentence (answer), its query and the passages it added
(passage_ids; data["retrieved_ids"] has everything the retriever returned).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gaji.errors import ConfigError
from gaji.methods.base import Method, RunContext, node_failure
from gaji.methods.describe import Facts
from gaji.methods.fewshot import (
    Demo,
    FewShotOptions,
    TokenCounter,
    context_budget,
    first_sentence,
    fit_prompt,
    generate_sentence,
    has_answer_marker,
    load_demos,
    paragraph_blocks,
)
from gaji.methods.prompts import cot as cot_prompts
from gaji.methods.reader import READERS, demo_blocks, read
from gaji.registry import METHODS
from gaji.types import Fact, Node, Passage, Trace


def _words(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


def recited_from(sentence: str, paragraphs: list[Passage]) -> str | None:
    """The id of the first paragraph that holds the step's sentence word for word (case, spacing and punctuation
    aside), for a sentence of four words or more; None when it says something of its own."""
    s = _words(sentence)
    if len(s.split()) < 4:
        return None
    return next((p.id for p in paragraphs if s in _words(p.text)), None)


def restates_question(sentence: str, question: str) -> bool:
    """Is the step's sentence a question (it ends with "?"), or the question itself in other spacing or case?"""
    s = " ".join(sentence.split()).rstrip()
    return s.endswith(("?", "？")) or (bool(_words(s)) and _words(s) == _words(question))


class Collection:
    """IRCoT's collected paragraphs: retrieval order, duplicates merged, at most `cap` (oldest kept)."""

    def __init__(self, cap: int):
        self.cap = cap
        self.items: list[Passage] = []
        self._seen: set[object] = set()

    @property
    def full(self) -> bool:
        return len(self.items) >= self.cap

    def add(self, passages: list[Passage]) -> list[Passage]:
        """Add what is new (by id, or by identical title and text) while there is room; return it."""
        added = []
        for p in passages:
            keys = (("id", p.id), ("content", p.title.strip().lower(), " ".join(p.text.split())))
            if any(k in self._seen for k in keys):
                continue
            if self.full:
                break
            self._seen.update(keys)
            self.items.append(p)
            added.append(p)
        return added


@METHODS.register("ircot", help="interleave retrieval with chain-of-thought sentences, then read (IRCoT)")
class IRCoT(Method):
    name = "ircot"

    @dataclass
    class Options(FewShotOptions):
        k: int = 4  # paragraphs per retrieval (the paper searches K in {2, 4, 6, 8})
        max_steps: int = 8  # reasoning steps (CoT sentences) at most
        max_paragraphs: int = 15  # cap on collected paragraphs (the paper's retrieval budget)
        # "direct" | "cot" (§3.2). The paper reads with Direct prompting for its small models (Flan-T5)
        # and CoT for GPT-3; gaji's local models are small (0.5B/1.5B): direct by default.
        reader: str = "direct"
        step_tokens: int = 64  # generation budget of one reasoning step (one sentence is kept)
        reader_tokens: int = 256  # generation budget of the reader (CoT); direct uses 32
        # choose the demonstrations once, leaving room for max_paragraphs paragraphs: every step (and a
        # CoT reader) then shares one prompt prefix the backend caches; off: refit them at every step
        stable_demos: bool = True
        # end the reasoning when a step only recites the paragraph the step before recited too (two sentences
        # copied from one paragraph in a row): the small model reads along instead of reasoning, and its copied
        # sentences as queries find that paragraph again. Off by default: on five HotpotQA dev questions it cut
        # IRCoT's tokens by 39 % (23,492 -> 14,264 a question) and lost one of four right answers
        # (benchmarks/auto/cascade/NOTES.md); a way to cap cost, not a free saving
        stop_on_recital: bool = False

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.reader not in READERS:
                raise ConfigError(f"ircot: reader must be one of {', '.join(READERS)}, not {self.reader!r}")

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        d = node.data
        f = Facts(lang).tag("step", "단계", d.get("step"), f"#{d.get('step')}")
        f.note("note", "메모", d.get("note"))
        return f.decision("stop", "멈춤", d.get("stop_reason")).lines  # why the reasoning ended

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        o, root, q = self.opts, trace.root, trace.question
        all_demos = demos = load_demos(ctx.lang, o.demos)
        count = TokenCounter(ctx.llm.count_tokens)
        collected = Collection(o.max_paragraphs)

        first = ctx.retrieve(root, q, o.k)
        root.passage_ids = [p.id for p in collected.add(first)]
        if o.stable_demos:
            planned = self.plan_demos(ctx, q, demos, first, count)
            root.data["demos_planned"] = len(planned)
            demos = planned or demos  # none fits a full collection: refit at every step instead
        cot: list[str] = []
        recited: str | None = None  # the paragraph the last step's sentence was copied from
        stop_reason = "max_steps"
        for i in range(1, o.max_steps + 1):
            step = root.add(Node(question=q, kind="step"))
            step.data["step"] = i
            with node_failure(step):
                sentence = self.reason(ctx, step, q, collected.items, cot, demos, count)
            step.answer = sentence
            if not sentence or sentence in cot:  # greedy decoding would repeat itself from here on
                step.status = "skipped"
                step.data["note"] = "empty or repeated sentence: reasoning ends"
                stop_reason = "no_progress"
                ctx.emit(step)
                break
            if restates_question(sentence, q):
                # a question is no reasoning step, and as a query it finds what the first retrieval found
                step.status = "skipped"
                step.data["note"] = "the sentence asks a question instead of reasoning: reasoning ends"
                stop_reason = "no_progress"
                ctx.emit(step)
                break
            source = recited_from(sentence, collected.items) if o.stop_on_recital else None
            if source is not None and source == recited:
                step.status = "skipped"
                step.data["note"] = "the sentence recites the paragraph the last one came from: reasoning ends"
                stop_reason = "no_progress"
                ctx.emit(step)
                break
            recited = source
            cot.append(sentence)
            if has_answer_marker(sentence):
                stop_reason = "answer"
                ctx.emit(step)
                break
            if collected.full:
                step.data["note"] = f"paragraph cap {o.max_paragraphs} reached: no retrieval"
                ctx.emit(step)
                continue
            found = ctx.retrieve(step, sentence, o.k)
            step.passage_ids = [p.id for p in collected.add(found)]
            step.data["retrieved_ids"] = [p.id for p in found]
            ctx.emit(step)

        root.data.update(cot=cot, stop_reason=stop_reason, collected_ids=[p.id for p in collected.items])
        # a CoT reader reuses the steps' demonstrations (and their cached prompt prefix); a direct
        # reader's prompt is another one: as many of its short demonstrations as fit
        if o.reader == "cot":
            r = read(ctx, root, q, collected.items, demos, o, style="cot", max_tokens=o.reader_tokens, counter=count)
        else:
            r = read(ctx, root, q, collected.items, all_demos, o, style="direct", max_tokens=32, counter=count)
        trace.answer = root.answer = r.answer
        trace.citations = [p.id for p in collected.items[: r.paragraphs]]
        root.data.update(reasoning=r.text if o.reader == "cot" else " ".join(cot), reader_output=r.text,
                         reader_demos=r.demos)

    def plan_demos(
        self, ctx: RunContext, question: str, demos: list[Demo], first: list[Passage], count: TokenCounter
    ) -> list[Demo]:
        """The demonstrations that fit next to a full collection: max_paragraphs paragraphs of the size of
        the question's own, plus a CoT of max_steps sentences (~25 tokens each)."""
        o, lang, p = self.opts, ctx.lang, cot_prompts.PROMPTS[ctx.lang]
        per_para = (
            sum(count(paragraph_blocks([ps], p.title, o.passage_chars)) for ps in first) / len(first)
            if first else 0.0
        )
        test = cot_prompts.qa_block(lang, "", question)
        grown = count(test) + int(per_para * o.max_paragraphs) + 25 * o.max_steps
        fitted = fit_prompt(count, context_budget(ctx.llm, o), p.header,
                            demo_blocks(demos, lang, o, "cot", closed_book=False), lambda _n: test, 0,
                            reserve=max(o.step_tokens, o.reader_tokens if o.reader == "cot" else 32),
                            max_demos=o.max_demos, test_reserve=grown)
        return [demos[i] for i in fitted.chosen]

    def reason(
        self, ctx: RunContext, step: Node, question: str, paragraphs: list[Passage], cot: list[str],
        demos: list[Demo], count: TokenCounter,
    ) -> str:
        """(i) The next CoT sentence: the model continues "A: <CoT so far>"; its first sentence is kept."""
        o, lang, p = self.opts, ctx.lang, cot_prompts.PROMPTS[ctx.lang]

        def test_block(n: int) -> str:
            paras = paragraph_blocks(paragraphs[:n], p.title, o.passage_chars)
            return cot_prompts.qa_block(lang, paras, question, " ".join(cot))

        fitted = fit_prompt(
            count,
            context_budget(ctx.llm, o),
            p.header,
            demo_blocks(demos, lang, o, "cot", closed_book=False),
            test_block,
            len(paragraphs),
            reserve=o.step_tokens,
            max_demos=o.max_demos,
        )
        step.data.update(demos=fitted.demos, paragraphs_shown=fitted.paragraphs)
        out, _ = generate_sentence(ctx.llm, step, "reason", fitted.text, [p.q, p.title], o.step_tokens)
        step.data["generation"] = out
        return first_sentence(out)

