"""Order hints for comparison nodes: the sub-answers put in order by code, not by the model.

A comparison node ("Which magazine was published first, Mirabella or Home Monthly?") is answered from its
children's answers ("1989", "1896"). Small models get the order of dates and numbers wrong even when every
sub-answer is right: on five such HotpotQA questions, Qwen2.5-1.5B picked the wrong item in 2-3 of 5 whether
the dates came as sub-answer lines or inline in the question, and the right one in 5 of 5 when one more line
named the items in order ("In time order, earliest first: Home Monthly (1896), Mirabella (1989)").

This module builds that line when every child's answer reads as a date (or every one as a number) and each
child's question names an item of the parent question; otherwise it returns "" and nothing changes.

    >>> order_hint("Which was published first, Mirabella or Home Monthly?",
    ...            [("When was Mirabella published?", "1989"), ("When was Home Monthly published?", "1896")], "en")
    'In time order, earliest first: Home Monthly (1896), Mirabella (1989).'
"""
from __future__ import annotations

import re
from typing import Sequence

MONTHS = {
    m: i + 1
    for i, names in enumerate([
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
        ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
        ("november", "nov"), ("december", "dec"),
    ])
    for m in names
}
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")
_BC = re.compile(r"\b(?:BC|BCE|B\.C\.)\b|기원전")
_MONTH_WORD = re.compile(r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?", re.I)
_KO_DATE = re.compile(r"(\d{3,4})\s*년(?:\s*(\d{1,2})\s*월)?(?:\s*(\d{1,2})\s*일)?")
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_DAY = re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th)?(?!\d)")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?!\d|st\b|nd\b|rd\b|th\b)\s*"
                     r"(thousand|million|billion|trillion|천|만|억|조)?", re.I)
_CENTURY = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)\s+century\b|\d{1,2}\s*세기", re.I)
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "천": 1e3, "만": 1e4, "억": 1e8, "조": 1e12}

TEXT = {
    "en": {"date": "In time order, earliest first: {items}.", "number": "In order of size, smallest first: {items}."},
    "ko": {"date": "시간 순서(이른 것부터): {items}.", "number": "크기 순서(작은 것부터): {items}."},
}


def parse_date(text: str) -> tuple[int, int, int] | None:
    """(year, month, day) of the first date in `text` (month/day 0 when not given); None without a year.
    Reads "1896", "8 October 1985", "August 24, 1972", "21 July – 10 August 1944" (the first day and month
    with the range's year), "1985-10-08" and "1985년 10월 8일"; BC years are left out (None)."""
    if _BC.search(text):
        return None
    m = _KO_DATE.search(text)
    if m:
        return int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)
    m = _ISO.search(text)
    if m:
        return int(m.group(1)), int(m.group(2)), int(m.group(3))
    y = _YEAR.search(text)
    if not y:
        return None
    year, month, day = int(y.group(1)), 0, 0
    mw = _MONTH_WORD.search(text)
    if mw:
        month = MONTHS[mw.group(1).lower()]
        before = text[: mw.start()]
        after = text[mw.end(): mw.end() + 4]
        d = _DAY.search(before[-4:]) or _DAY.match(after.lstrip())
        if d and 1 <= int(d.group(1)) <= 31 and int(d.group(1)) != year:
            day = int(d.group(1))
    return year, month, day


def parse_number(text: str) -> float | None:
    """The quantity an answer states: its first number with a scale word ("2,000" -> 2000, "1.5 million" ->
    1.5e6, "3만" -> 30000); None unless the answer is short (at most 5 words) and the number comes within its
    first three words, so a title that holds a number ("The 7 Habits of Highly Effective People") is no quantity."""
    m = _NUMBER.search(text)
    if not m or len(text.split()) > 5 or len(text[: m.start()].split()) > 2:
        return None
    value = float(m.group(1).replace(",", ""))
    scale = (m.group(2) or "").lower()
    return value * SCALES.get(scale, 1.0)


_EDGE = " ,.?!'\"“”()"  # stripped from both ends of an item name


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def item_label(own: str, parent: str, siblings: Sequence[str]) -> str:
    """The item a child question is about: the longest run of characters shared by the child question and the
    parent question that no sibling question contains (e.g. "Mirabella" in "When was Mirabella published?"
    under "… Mirabella or Home Monthly?"); "" when there is none of at least two letters."""
    own_l, parent_l = own.lower(), parent.lower()
    sib_l = [s.lower() for s in siblings]
    best = ""
    for i in range(len(own_l)):
        for j in range(len(own_l), i + len(best), -1):
            sub = own_l[i:j]
            if sub in parent_l and not any(sub in s for s in sib_l):
                best = sub
                break
    best = best.strip(_EDGE)
    start = own_l.find(best)
    label = own[start: start + len(best)]
    # trim a partial Latin word cut at either end ("s Mirabella" out of "was Mirabella"); a Korean particle glued
    # to the name in the child question ("미라벨라는") is not in the parent, so the shared run stops before it
    end = start + len(best)
    if label and start > 0 and _latin(own[start - 1]) and _latin(label[0]):
        label = label.split(" ", 1)[1] if " " in label else ""
    if label and end < len(own) and _latin(own[end]) and _latin(label[-1]):
        label = label.rsplit(" ", 1)[0] if " " in label else ""
    label = label.strip(_EDGE)
    return label if len(re.sub(r"\W", "", label)) >= 2 else ""


def order_hint(parent: str, children: Sequence[tuple[str, str]], lang: str) -> str:
    """One line that lists the children's items in order of their answers (dates, else numbers); ""
    unless there are at least two children, every answer parses the same way and every item is named."""
    if len(children) < 2:
        return ""
    questions = [q for q, _ in children]
    labels = [item_label(q, parent, questions[:i] + questions[i + 1:]) for i, q in enumerate(questions)]
    if not all(labels) or len({lab.lower() for lab in labels}) < len(labels):
        return ""
    dates = [parse_date(a) for _, a in children]
    if all(dates):
        keys, kind = dates, "date"
    elif any(dates) or any(_CENTURY.search(a) for _, a in children):
        return ""  # some answers are dates and others are not: nothing to order
    else:
        keys, kind = [parse_number(a) for _, a in children], "number"
        if any(k is None for k in keys):
            return ""  # not all quantities
    if len(set(keys)) < len(keys):
        return ""  # a tie: nothing to order
    keyed = sorted(zip(keys, labels, [a for _, a in children]), key=lambda t: t[0])
    items = ", ".join(f"{label} ({answer.strip().rstrip('.')})" for _, label, answer in keyed)
    return TEXT.get(lang, TEXT["en"])[kind].format(items=items)
