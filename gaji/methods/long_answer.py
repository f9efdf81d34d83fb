"""The long-form writer shared by the baselines' `style: long` (ConTReGen §4.2: RetGen, IterRetGen and Self-Ask
answer long-form questions with a cited paragraph): one chat call over numbered passages that writes a paragraph of
about `words` words, covering every reading of the question and citing the passages as [n]. Optional notes (Self-Ask's
follow-up questions and their answers) go with the question."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gaji.methods.base import RunContext
from gaji.llm.prompts import chat_messages, fill
from gaji.methods.common import attribute, cited_ids, format_passages
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts import direct
from gaji.text.answers import normalize_en, normalize_ko
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


# the condition a one-sentence answer opens with: "갑이 … 수행한 경우, …", "… 계속 중일 때, …", "If A did B, …"
_KO_CONDITION = re.compile(r"^(?P<clause>\S.{3,}?(?:경우|때)(?:에는|에도|에)?)\s*,\s*")
_EN_CONDITION = re.compile(r"^(?P<clause>(?:if|when|where|in case)\b[^,]{3,}?)\s*,\s*", re.I)
# a pronoun subject left pointing at the dropped condition ("…수행한 경우, 그는 …")
_KO_PRONOUN = re.compile(r"^(?:그는|그녀는|그가|그녀가|이들은|그들은)\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+(?=\S)")
SAID_SHARE = 0.6  # of the clause's letter pairs (Korean) or words (English) that the question holds


def said_condition(answer: str, question: str, lang: str) -> str | None:
    """The opening clause of a one-sentence `answer` that only says back the condition the question sets ("갑이 세무사
    자격 없이 세무대리 업무를 수행한 경우" for "갑이 세무사 자격 없이 세무대리 업무를 수행한 경우, 그는 어떤 처벌을
    받게 되는가?"), or None. A paragraph keeps its opening: there the condition frames what follows."""
    text = answer.strip()
    if not text or _SENTENCE_END.search(text):
        return None
    m = (_KO_CONDITION if lang == "ko" else _EN_CONDITION).match(text)
    if m is None or not text[m.end():].strip():
        return None
    clause = m.group("clause")
    if lang == "ko":
        said, asked = normalize_ko(clause), normalize_ko(question)
        units = [said[i:i + 2] for i in range(len(said) - 1)]
        held = sum(u in asked for u in units)
    else:
        words = normalize_en(re.sub(r"^(?:if|when|where|in case)\b", "", clause, flags=re.I)).split()
        asked_words = set(normalize_en(question).split())
        units, held = words, sum(w in asked_words for w in words)
    return clause if units and held >= SAID_SHARE * len(units) else None


def without_said_condition(answer: str, question: str, lang: str) -> tuple[str, str | None]:
    """`answer` without the condition it only says back (see said_condition), and that clause (None: kept whole)."""
    clause = said_condition(answer, question, lang)
    if clause is None:
        return answer, None
    rest = answer.strip()[len(clause):].lstrip(" ,")
    rest = _KO_PRONOUN.sub("", rest) if lang == "ko" else rest[:1].upper() + rest[1:]
    return rest, clause
