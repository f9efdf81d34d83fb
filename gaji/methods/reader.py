"""The few-shot QA reader of IRCoT §3.2, shared by `cot`, `ircot` and `iter_retgen`.

Two prompting strategies over one template (prompts/cot.py):
- "cot": the demonstrations show a chain of thought ending "So the answer is: X."; the model writes
  the whole chain for the test question (sentence by sentence, stopping after the answer sentence);
  the answer is parsed after "answer is:", or is the whole generation when the marker is missing.
- "direct": the demonstrations' answer field holds only the answer; the model writes the answer.
With no paragraphs (`closed_book`), the same demonstrations are shown without theirs (NoR + CoT).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gaji.methods.base import RunContext
from gaji.methods.common import clean_answer
from gaji.methods.fewshot import (
    Demo,
    FewShotOptions,
    TokenCounter,
    answer_after_marker,
    context_budget,
    cot_answer,
    fit_prompt,
    generate_chain,
    paragraph_blocks,
)
from gaji.methods.prompts import cot as cot_prompts
from gaji.types import Node, Passage

READERS = ("cot", "direct")


@dataclass
class Reading:
    answer: str
    text: str  # the generation: the chain of thought (cot) or the answer line (direct)
    demos: int  # demonstrations that fit in the prompt
    paragraphs: int  # paragraphs shown (fewer than given only if they alone overflow the context)


def demo_blocks(demos: Sequence[Demo], lang: str, opts: FewShotOptions, style: str, closed_book: bool) -> list[str]:
    """The demonstrations rendered in the template: gold + M distractors, then Q and the CoT/answer."""
    out, title = [], cot_prompts.PROMPTS[lang].title
    for d in demos:
        paras = "" if closed_book else paragraph_blocks(d.paragraphs(opts.m, opts.seed), title)
        out.append(cot_prompts.qa_block(lang, paras, d.question, d.cot_text if style == "cot" else d.answer))
    return out


def read(
    ctx: RunContext,
    node: Node,
    question: str,
    paragraphs: Sequence[Passage],
    demos: Sequence[Demo],
    opts: FewShotOptions,
    *,
    style: str = "cot",
    closed_book: bool = False,
    max_tokens: int = 256,
    purpose: str = "answer",
    counter: TokenCounter | None = None,
) -> Reading:
    """Answer `question` from `paragraphs` with a few-shot CoT or direct prompt; the call is recorded on `node`."""
    lang, p = ctx.lang, cot_prompts.PROMPTS[ctx.lang]
    count = counter or TokenCounter(ctx.llm.count_tokens)
    if closed_book:
        header = p.header_closed
    else:
        header = p.header if style == "cot" else p.header_direct

    def test_block(n: int) -> str:
        paras = "" if closed_book else paragraph_blocks(paragraphs[:n], p.title, opts.passage_chars)
        return cot_prompts.qa_block(lang, paras, question)

    fitted = fit_prompt(
        count,
        context_budget(ctx.llm, opts),
        header,
        demo_blocks(demos, lang, opts, style, closed_book),
        test_block,
        0 if closed_book else len(paragraphs),
        reserve=max_tokens,
        max_demos=opts.max_demos,
    )
    if style == "cot":
        # the chain is one line in the demonstrations; it ends with the answer sentence or the line
        text = generate_chain(ctx.llm, node, purpose, fitted.text, [p.q, p.title], max_tokens)
        answer = cot_answer(text)
    else:
        stop = ["\n", p.title]
        out = ctx.llm.complete(node, purpose, fitted.text, stop=stop, max_tokens=max_tokens)
        text = " ".join(out.split())
        found = answer_after_marker(text)  # a direct answer may still say "answer is: X"
        answer = found if found is not None else clean_answer(text)
    return Reading(answer=answer, text=text, demos=fitted.demos, paragraphs=fitted.paragraphs)
