"""The long-form writer shared by the baselines' `style: long` (ConTReGen §4.2: RetGen, IterRetGen and Self-Ask
answer long-form questions with a cited paragraph): one chat call over numbered passages that writes a paragraph of
about `words` words, covering every reading of the question and citing the passages as [n]. Optional notes (Self-Ask's
follow-up questions and their answers) go with the question."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gaji.methods.base import RunContext
from gaji.llm.prompts import chat_messages, fill
from gaji.methods.common import attribute, cited_ids, format_passages
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts import direct
from gaji.types import Node, Passage


@dataclass
class LongAnswer:
    text: str  # the paragraph, citations kept
    citations: list[str]  # ids of the passages it cites (or that support it, when it cites none)
    raw: str  # the model's output as given


def long_tokens(words: int, floor: int = 0) -> int:
    """The generation budget of a paragraph of `words` words: ~1.3 tokens per word, with room."""
    return max(floor, 2 * words)


def write_long(
    ctx: RunContext,
    node: Node,
    question: str,
    passages: Sequence[Passage],
    *,
    words: int = 250,
    passage_chars: int = 1200,
    notes: Sequence[tuple[str, str]] = (),
    max_tokens: int | None = None,
    purpose: str = "answer",
) -> LongAnswer:
    """Write the cited paragraph for `question` from `passages`; the call is recorded on `node`."""
    lang = ctx.lang
    passages = list(passages)
    p = direct.PROMPTS[lang]
    system = fill(p.long.system, words=words, data_note=common_prompts.PROMPTS[lang].data_note,
                  passages=format_passages(passages, max_chars=passage_chars))
    user = fill(p.long.user, question=question)
    if notes:
        lines = "\n".join(fill(p.long_note_line, question=q, answer=a) for q, a in notes)
        user = fill(p.long_notes, notes=lines) + user
    messages = chat_messages(system, user)
    out = ctx.llm.chat(node, purpose, messages, max_tokens=max_tokens or long_tokens(words))
    text = out.strip()
    return LongAnswer(text=text, citations=cited_ids(out, passages) or attribute(text, passages), raw=out)
