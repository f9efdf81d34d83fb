"""A passage's sentences most relevant to a question, within a character budget.

The query is a set of content-word keys: Latin words (lower case, not stop words), numbers, and Hangul words cut
to their first two syllables (a stem matches across particles: 감독은 / 감독이), question words left out. A
sentence holds a Latin or number key as one of its words, a Hangul key anywhere in its text (나무 in
고페르나무). Its relevance is the sum over the keys it holds of 1 / (how many of the passage's sentences hold
that key): the topic's words, in every sentence of an article about it, count for little; the words only the
answer's sentence shares with the question count for much. Used to fit a prompt into the context
(gaji.llm.fit) and, when a method asks for it, to trim every passage to its relevant sentences before it
reaches a prompt (gaji.methods.common.format_passages).

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
# Hangul keys of question words and of endings that say nothing about the answer's sentence
_STOP_KO = frozenset("무엇 어떤 어떠 어느 누구 누가 언제 어디 얼마 무슨 몇년 것은 것이 대해 인가 입니 있는 하는 했는 되었 이다".split())


def keys(text: str) -> set[str]:
    """Content-word keys of `text` (see the module's doc)."""
    out = set()
    for w in _WORD.findall(text):
        if w.isascii():
            w = w.lower()
            if w not in _STOP:
                out.add(w)
        elif w[:2] not in _STOP_KO:
            out.add(w[:2])
    return out


def _held(sentence: str, query: set[str]) -> set[str]:
    """The query keys `sentence` holds: Latin and number keys as its words, Hangul keys anywhere in it."""
    words = keys(sentence)
    return {k for k in query if k in words or not k.isascii() and k in sentence}


def ranked_sentences(sents: list[str], query: set[str]) -> list[int]:
    """Indexes of `sents`, most relevant first (earlier first on ties); see the module's doc."""
    held = [_held(s, query) for s in sents]
    df: dict[str, int] = {}
    for h in held:
        for k in h:
            df[k] = df.get(k, 0) + 1
    score = [sum(1 / df[k] for k in h) for h in held]
    return sorted(range(len(sents)), key=lambda i: (-score[i], i))


def relevant_sentences(text: str, query: set[str], room_chars: int) -> tuple[str, bool]:
    """The passage's most relevant sentences (`ranked_sentences`; earlier first on ties) that fit in
    `room_chars`, in their original order, with "…" where sentences were left out. (text, truncated): when not
    even the best sentence fits, it is cut to the room."""
    if len(text) <= room_chars:
        return text, False
    sents = split_sentences(text)
    ranked = ranked_sentences(sents, query)
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
