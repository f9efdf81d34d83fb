"""Sentence splitting for Korean and English, as character spans into the original text.

    >>> [ "가나다라 했다. 그리고 갔어요! Really?"[s:e] for s, e in sentence_spans("가나다라 했다. 그리고 갔어요! Really?") ]
    ['가나다라 했다.', '그리고 갔어요!', 'Really?']

Rules (deliberately simple and predictable, no model):
- a sentence ends after a run of terminators (``. ! ? 。 ！ ？ …``), optionally followed by closing
  quotes/brackets, when whitespace or the end of the text follows. This covers Korean endings
  (``다.``, ``요.``, ``까?``) and English alike;
- a Korean final ending (``다. 요. 죠. 까?``) ends a sentence even with no space after it;
- a newline always ends a sentence (paragraphs, lists, headings, hard-wrapped lines);
- a period is *not* a boundary after a common English abbreviation (``Mr.``, ``e.g.``, ``U.S.``),
  a single capital initial (``Stephen R. Covey``), or when the next word starts in lower case.

Spans never include surrounding whitespace, and cover every non-space character of the text.
"""
from __future__ import annotations

import re

__all__ = ["sentence_spans", "split_sentences"]

# a terminator run, then optional closers, then whitespace/end (the boundary is after the closers)
_END_RE = re.compile(
    r"[.!?。！？…]+[\"'”’)\]」』》〉]*(?=\s|$)"
    r"|(?<=[다요죠까])[.?!](?=[가-힣\"'“‘(])"  # Korean ending glued to the next sentence: "했다.그리고"
    r"|\n"
)
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof st jr sr vs etc e.g i.e no nos inc ltd co corp jan feb mar apr jun jul aug
    sep sept oct nov dec gen col lt sgt capt rev gov sen rep mt ft fig approx dept est vol pp ed eds
    u.s u.k u.n a.m p.m d.c ph.d b.c a.d""".split()
)
_NEXT_CHAR_RE = re.compile(r"\s*(\S)")
_ACRONYM_RE = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


_MAX_WORD = 64  # longer than any abbreviation, initial or dotted acronym the rules look for


def _word_before(text: str, pos: int) -> str:
    """The non-space run that ends at `pos` (exclusive), without leading punctuation; at most its last
    `_MAX_WORD` characters (so a long text without spaces is not walked back over once per period)."""
    i, stop = pos, max(0, pos - _MAX_WORD)
    while i > stop and not text[i - 1].isspace():
        i -= 1
    return text[i:pos].lstrip("\"'“‘([")


def _is_false_period(text: str, start: int, end: int) -> bool:
    """Whether a '.'-run at text[start:end] is an abbreviation/initial rather than a sentence end."""
    run = text[start:end]
    if not run.startswith(".") or len(run.rstrip("\"'”’)]」』》〉")) != 1:
        return False  # '?', '!', '...' and friends always end a sentence
    word = _word_before(text, start)
    if not word:
        return False
    low = word.lower()
    if low in _ABBREVIATIONS:
        return True
    if len(word) == 1 and word.isalpha() and word.isupper() and word.isascii():
        return True  # an initial: "Stephen R. Covey"
    if _ACRONYM_RE.fullmatch(word):
        return True  # dotted acronym whose last period is this one: "U.S", "e.g"
    # the next word starts in lower case (Latin): "approx. ten", "no. of". Matched in place: a slice of the
    # rest of the text per period would make splitting a long document quadratic.
    nxt = _NEXT_CHAR_RE.match(text, end)
    if nxt and nxt.group(1).isascii() and nxt.group(1).islower():
        return True
    return False


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`, in order, trimmed of whitespace."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _END_RE.finditer(text):
        if m.group() != "\n" and _is_false_period(text, m.start(), m.end()):
            continue
        cut = m.end() if m.group() != "\n" else m.start()
        _add_trimmed(text, pos, cut, spans)
        pos = m.end()
    _add_trimmed(text, pos, len(text), spans)
    return spans


def _add_trimmed(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append((start, end))


def split_sentences(text: str) -> list[str]:
    """The sentences of `text` as strings (see `sentence_spans`)."""
    return [text[s:e] for s, e in sentence_spans(text)]
