"""Tidying a small model's long-form answer for the reader: citation marks out, repeated sentences out.

`strip_citations` removes "[1]", "[1, 2]" and runs of them ("[1], [2], [3]") together with the lead-in
phrase the marks belonged to ("[1]에 따르면, ", "According to [2] and [3], "), so no orphaned ",,에 따르면"
is left where the marks were. `drop_repeated_sentences` removes a sentence that repeats an earlier one
(case, spaces and punctuation ignored) and a cut-off last fragment that only restarts an earlier sentence:
a 1.5B model in a length-capped JSON field sometimes loops until the cap.
"""
from __future__ import annotations

import re

from gaji.text.sentences import sentence_spans

_MARK = r"\[\d+(?:\s*,\s*\d+)*\]"
_RUN = rf"{_MARK}(?:\s*(?:,|및|와|과|and)?\s*{_MARK})*"
_LEAD_KO = re.compile(rf"{_RUN}\s*(?:의\s*내용)?에\s*(?:따르면|의하면)\s*,?\s*")
_LEAD_EN = re.compile(rf"\b(?:according to|as stated in|based on|as shown in)\s+(?:documents?\s+)?{_RUN}\s*,?\s*",
                      re.IGNORECASE)
_MARKS = re.compile(rf"\s*{_RUN}")


def _lead_in(m: re.Match) -> str:
    """An English lead-in goes; one that opened a sentence leaves a mark so its next word is capitalised."""
    before = m.string[:m.start()].rstrip()
    return "\x00" if not before or before[-1] in ".!?。" else ""


def strip_citations(text: str) -> str:
    """`text` without [n] citation marks and their lead-in phrases, spacing tidied."""
    t = _LEAD_EN.sub(_lead_in, _LEAD_KO.sub("", text))
    t = re.sub(r"\x00\s*(\w?)", lambda m: m.group(1).upper(), t)
    t = _MARKS.sub("", t)
    t = re.sub(r"\s+([,.!?])", r"\1", t)
    t = re.sub(r"([,.!?])(?:\s*,)+", r"\1", t)  # "., ," left where a run of marks was
    return re.sub(r"[ \t]{2,}", " ", t).strip()


def _key(sentence: str) -> str:
    return re.sub(r"[\W_]+", "", sentence.lower())


def drop_repeated_sentences(text: str) -> str:
    """`text` with every sentence kept once, in first-seen order, each with the spacing or line break that
    followed it; a cut-off last fragment that restarts an earlier sentence is dropped too."""
    spans = sentence_spans(text)
    out: list[str] = []
    seen: list[str] = []
    for i, (start, end) in enumerate(spans):
        sentence = text[start:end]
        k = _key(sentence)
        if not k or k in seen:
            continue
        last_unfinished = i == len(spans) - 1 and not re.search(r"[.!?。！？…]$", sentence)
        if last_unfinished and any(s.startswith(k) for s in seen):
            continue
        gap = text[end:spans[i + 1][0]] if i + 1 < len(spans) else ""
        out.append(sentence + gap)
        seen.append(k)
    return "".join(out).strip()


def tidy_long_answer(text: str) -> str:
    """Both of the above: what a long-form answer shows the reader and the metrics."""
    return drop_repeated_sentences(strip_citations(text))
