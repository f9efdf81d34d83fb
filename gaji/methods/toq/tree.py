"""Tree-of-Question helpers that need no LLM: answer slots, dependency order, list answers.

A decomposed question's sub-questions refer to earlier answers with slots, `[ANS_N]` (N = 1-based index
of the sub-question whose answer fills it). The paper writes both `[ANS_N]` (Prompt B.2) and
`[Q1_ANS]` (Table 1); both are read here.

    >>> slot_refs("Electric cars in the [ANS_1] price range")
    [1]
    >>> fill_slots("Electric cars in the [ANS_1] price range", {1: "120 million won"})
    'Electric cars in the 120 million won price range'
    >>> dependency_waves([[], [1], []])
    [[0, 2], [1]]
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence

SLOT = re.compile(r"\[\s*(?:ANS[\s_-]*(\d+)|Q\s*(\d+)[\s_-]*ANS)\s*\]", re.I)
_ANY_SLOT = re.compile(r"\[\s*(?:ANS[\s_-]*(?:\d+|N)|Q\s*(?:\d+|N)[\s_-]*ANS)\s*\]", re.I)


class DependencyError(ValueError):
    """A decomposition whose [ANS_N] references cannot be ordered (out of range, self, cycle)."""


def slot_refs(text: str) -> list[int]:
    """The 1-based sub-question numbers a text's slots refer to, in order of first use."""
    out: list[int] = []
    for m in SLOT.finditer(text):
        n = int(m.group(1) or m.group(2))
        if n not in out:
            out.append(n)
    return out


def has_slots(text: str) -> bool:
    """True when the text still holds any slot (also an unnumbered `[ANS_N]`)."""
    return bool(_ANY_SLOT.search(text))


def fill_slots(text: str, answers: Mapping[int, str]) -> str:
    """Replace each `[ANS_N]` whose N is in `answers`; slots without an answer are left as they are."""

    def sub(m: re.Match) -> str:
        n = int(m.group(1) or m.group(2))
        return answers[n].strip() if n in answers else m.group(0)

    return SLOT.sub(sub, text)


def strip_slots(text: str) -> str:
    """Remove every slot (for a search query that must not contain placeholders)."""
    return re.sub(r"\s{2,}", " ", _ANY_SLOT.sub(" ", text)).strip()


def dependencies(questions: Sequence[str]) -> list[list[int]]:
    """Per sub-question, the 0-based indices of the sub-questions it depends on; checked.

    Raises DependencyError for a reference outside 1..len(questions) or to itself."""
    n = len(questions)
    deps: list[list[int]] = []
    for i, q in enumerate(questions):
        refs = slot_refs(q)
        for r in refs:
            if not 1 <= r <= n:
                raise DependencyError(f"sub-question {i + 1} refers to [ANS_{r}], but there are only {n}")
            if r == i + 1:
                raise DependencyError(f"sub-question {i + 1} refers to its own answer [ANS_{r}]")
        deps.append([r - 1 for r in refs])
    return deps


def dependency_waves(deps: Sequence[Sequence[int]]) -> list[list[int]]:
    """Group sub-questions into waves: each wave depends only on earlier waves, so the members of a
    wave are independent siblings that may run in parallel. Raises DependencyError on a cycle."""
    done: set[int] = set()
    left = list(range(len(deps)))
    waves: list[list[int]] = []
    while left:
        wave = [i for i in left if all(d in done for d in deps[i])]
        if not wave:
            cycle = ", ".join(str(i + 1) for i in left)
            raise DependencyError(f"sub-questions {cycle} depend on each other in a cycle")
        waves.append(wave)
        done.update(wave)
        left = [i for i in left if i not in done]
    return waves


_LIST_SEP = re.compile(r"\s*(?:[;\n、·]|,(?!\d)|(?<!\d),)\s*")  # not the comma inside 120,000
_LIST_WORD = re.compile(r"\s+(?:and|or|및|그리고|또는)\s+", re.I)
_LEAD_WORD = re.compile(r"^(?:and|or|및|그리고|또는)\s+", re.I)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_TAIL = re.compile(r"^(.*?)(\s*)(\d+|[IVX]+)$")


def split_list_answer(text: str, max_items: int = 10) -> list[str]:
    """Items of a list answer ("A, B and C", one per line, "A 및 B"); [] when it is not a list.

    Bare numbers after a numbered first item inherit its stem, as in the paper's Table 1 answer
    "Pirates of the Caribbean 1, 2, 3" -> ["Pirates of the Caribbean 1", "… 2", "… 3"]."""
    t = re.sub(r"[ \t]+", " ", text).strip().strip(".")
    parts = _LIST_SEP.split(t) if _LIST_SEP.search(t) else _LIST_WORD.split(t)
    items = [_LEAD_WORD.sub("", _BULLET.sub("", p)).strip(" \"'“”.") for p in parts]
    items = [p for p in items if p]
    if len(items) >= 2 and _LIST_WORD.search(items[-1]) and not any(_LIST_WORD.search(i) for i in items[:-1]):
        # "A, B and C" (but not a list of titles that all contain "and")
        items[-1:] = [_LEAD_WORD.sub("", p).strip() for p in _LIST_WORD.split(items[-1])]
    if len(items) < 2:
        return []
    m = _TAIL.match(items[0])
    if m and m.group(1):
        stem = m.group(1) + m.group(2)
        items = [stem + it if re.fullmatch(r"\d+|[IVX]+", it) else it for it in items]
    out: list[str] = []
    for it in items:
        if it.lower() not in (o.lower() for o in out):
            out.append(it)
    return out[:max_items]
