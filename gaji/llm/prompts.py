"""Prompts in one pattern: a typed prompt set per language, looked up by language, filled by one function.

Every module that holds prompt text (`gaji/methods/prompts/*.py`, `gaji/methods/toq/prompts.py`,
`gaji/methods/contregen/prompts.py`, `gaji/expand/prompts.py`, `gaji/expand/judge_prompts.py`,
`gaji/conversation/prompts.py`, `gaji/eval/judge_prompts.py`) follows it:

    @dataclass(frozen=True)
    class NorPrompts:                 # one frozen dataclass: the prompt set's fields
        answer: Prompt                # a whole chat prompt: system + worked examples + user turn
        unknown: str                  # a piece of text a caller puts in place

    PROMPTS = ByLang(en=NorPrompts(...), ko=NorPrompts(...))

    p = PROMPTS[lang]                             # Korean for "ko", English for anything else
    messages = p.answer.messages(question=q)      # system, shots, user turn; each template filled
    line = fill(p.unknown)                        # a piece filled the same way

Every string of a prompt set is a template for `fill` (str.format: `{name}` is a field, a literal brace is
doubled); a `Prompt`'s worked examples (`shots`) are literal turns, never filled. Both languages are instances
of the same dataclass, so neither can lack a field; tests/llm/test_prompts.py checks that they ask for the same
fields. The text is what recorded runs and the LLM cache were made with: tests/test_prompt_snapshot.py renders
every prompt and compares it byte for byte.
"""
from __future__ import annotations

import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P")

Shot = tuple[str, str]  # a worked example: (user turn, assistant turn)
Messages = list[dict]


def fill(template: str, **fields: object) -> str:
    """`template` with its `{name}` fields replaced (fields it does not name are ignored); a field it names and
    `fields` lacks is a ValueError that names the field and the template."""
    try:
        return template.format(**fields)
    except KeyError as e:
        head = " ".join(template.split())[:80]
        raise ValueError(f"prompt template needs field {e.args[0]!r}, not given: {head!r}…") from None


def template_fields(template: str) -> frozenset[str]:
    """The field names a template asks for. A ValueError for a brace that opens no field: a single "}", or "{"
    before something that is not a name (a literal brace, as in JSON, must be doubled)."""
    names = set()
    for _, name, _, _ in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier():
            raise ValueError(f"{{{name}…}} is no field: a literal brace must be doubled")
        names.add(name)
    return frozenset(names)


def chat_messages(system: str, user: str, shots: Sequence[Shot] = ()) -> Messages:
    """Chat messages: the fixed system turn and the worked examples first, the variable user turn last, so every
    call of one prompt shares its long prefix in the backend's prompt cache."""
    msgs = [{"role": "system", "content": system}]
    for u, a in shots:
        msgs.append({"role": "user", "content": u})
        msgs.append({"role": "assistant", "content": a})
    msgs.append({"role": "user", "content": user})
    return msgs


@dataclass(frozen=True)
class Prompt:
    """One chat prompt: a system template, a user template and worked examples (literal turns)."""

    system: str
    user: str
    shots: tuple[Shot, ...] = ()

    def messages(self, **fields: object) -> Messages:
        """The chat messages, both templates filled from `fields`."""
        return chat_messages(fill(self.system, **fields), fill(self.user, **fields), self.shots)


class ByLang(Generic[P]):
    """A prompt set in each language gaji speaks: `[lang]` gives Korean for "ko", English for anything else (the
    language follows the question, gaji.text.lang.detect_lang, which answers "ko" or "en")."""

    def __init__(self, *, en: P, ko: P) -> None:
        if type(en) is not type(ko):
            raise TypeError(f"both languages must be one prompt set type, not {type(en).__name__} and "
                            f"{type(ko).__name__}")
        self.en, self.ko = en, ko

    def __getitem__(self, lang: str) -> P:
        return self.ko if lang == "ko" else self.en

    def items(self) -> Iterator[tuple[str, P]]:
        yield "en", self.en
        yield "ko", self.ko
