"""The long-form writer shared by the baselines' `style: long` (ConTReGen §4.2: RetGen, IterRetGen and Self-Ask
answer long-form questions with a cited paragraph): one chat call over numbered passages that writes a paragraph of
about `words` words, covering every reading of the question and citing the passages as [n]. Optional notes (Self-Ask's
follow-up questions and their answers) go with the question."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gaji.methods.base import RunContext
from gaji.methods.common import DATA_NOTE, attribute, cited_ids, format_passages
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
    system = direct.ONER_LONG_SYSTEM[lang].format(
        words=words, data_note=DATA_NOTE[lang], passages=format_passages(passages, max_chars=passage_chars))
    user = direct.ONER_PLAIN_USER[lang].format(question=question)
    if notes:
        lines = "\n".join(direct.LONG_NOTE_LINE[lang].format(question=q, answer=a) for q, a in notes)
        user = direct.LONG_NOTES[lang].format(notes=lines) + user
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    out = ctx.llm.chat(node, purpose, messages, max_tokens=max_tokens or long_tokens(words))
    text = out.strip()
    return LongAnswer(text=text, citations=cited_ids(out, passages) or attribute(text, passages), raw=out)
