"""A passage's sentences most relevant to a question, within a character budget.

Relevance is the number of content-word keys a sentence shares with the query: Latin words (lower case, not
stop words), numbers, and Hangul words cut to their first two syllables (a stem matches across particles:
감독은 / 감독이). Used to fit a prompt into the context (gaji.llm.fit) and, when a method asks for it, to
trim every passage to its relevant sentences before it reaches a prompt (gaji.methods.common.format_passages).

    >>> relevant_sentences("Seoul is big. Busan has a port. Seoul is the capital.", keys("capital of Seoul?"), 40)
    ('Seoul is big. … Seoul is the capital.', False)
"""
from __future__ import annotations

import re

from gaji.text.sentences import split_sentences

_WORD = re.compile(r"[A-Za-z]{3,}|\d+|[가-힣]{2,}")
_ELLIPSIS = " … "
_STOP = frozenset(
    "the and for are was were who what when where which how did does with from that this into its his her "
    "their there been have has had than then also not but question answer documents passages given only "
    "words other following data search engine they them never follow instructions".split()
)


def keys(text: str) -> set[str]:
    """Content-word keys of `text` (see the module's doc)."""
    out = set()
    for w in _WORD.findall(text):
        if w.isascii():
            w = w.lower()
            if w not in _STOP:
                out.add(w)
        else:
            out.add(w[:2])
    return out


def relevant_sentences(text: str, query: set[str], room_chars: int) -> tuple[str, bool]:
    """The passage's most relevant sentences (by keys shared with `query`; earlier first on ties) that fit in
    `room_chars`, in their original order, with "…" where sentences were left out. (text, truncated): when not
    even the best sentence fits, it is cut to the room."""
    if len(text) <= room_chars:
        return text, False
    sents = split_sentences(text)
    ranked = sorted(range(len(sents)), key=lambda i: (-len(keys(sents[i]) & query), i))
    if not sents or len(sents[ranked[0]]) + len(_ELLIPSIS) > room_chars:  # the best alone is over: cut it
        best = sents[ranked[0]] if sents else text
        return best[: max(0, room_chars - 2)].rstrip() + " …", True
    keep: list[int] = []
    used = 0
    for i in ranked:  # the best first, then the room is filled with the next best (earlier on ties)
        extra = len(sents[i]) + len(_ELLIPSIS)
        if used + extra <= room_chars:
            keep.append(i)
            used += extra
    keep.sort()
    pieces = []
    for n, i in enumerate(keep):
        if n == 0 and i > 0 or n > 0 and i != keep[n - 1] + 1:
            pieces.append("…")
        pieces.append(sents[i])
    if keep[-1] != len(sents) - 1:
        pieces.append("…")
    return " ".join(pieces), False
