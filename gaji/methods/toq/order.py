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
from dataclasses import dataclass
from typing import Any, Sequence

from gaji.llm.prompts import fill
from gaji.methods.toq.comparative import Direction, direction
from gaji.methods.toq.prompts import PROMPTS

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


_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
# one whole date among several in a text: Korean, ISO, "8 October 1885", "October 8, 1885", "October 1885", "1885"
_ONE_DATE = re.compile(_KO_DATE.pattern + r"|" + _ISO.pattern + r"|\b\d{1,2}\s+" + _MONTH + r",?\s+\d{3,4}\b|\b"
                       + _MONTH + r"\s+\d{1,2},?\s+\d{3,4}\b|\b" + _MONTH + r"\s+\d{3,4}\b|(?<![\d-])\d{4}(?![\d-])",
                       re.I)


def dates_in(text: str) -> list[tuple[int, int, int]]:
    """Every date `text` gives, in order, each read by parse_date ("8 October 1885 – 12 May 1960" -> two dates);
    parse_date alone reads only the first."""
    found = (parse_date(m.group(0)) for m in _ONE_DATE.finditer(text))
    return [d for d in found if d is not None]


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


@dataclass(frozen=True)
class Order:
    """A comparison node's items in order of their answers: dates earliest first, numbers smallest first."""

    kind: str  # "date" | "number"
    items: tuple[tuple[str, str], ...]  # (item label, the child's answer), in order
    keys: tuple[Any, ...]  # what was compared: (year, month, day) or a quantity, item by item

    def hint(self, lang: str) -> str:
        """The order as one context line in `lang` ("In time order, earliest first: …")."""
        items = ", ".join(f"{label} ({answer.strip().rstrip('.')})" for label, answer in self.items)
        p = PROMPTS[lang]
        return fill(p.order_date if self.kind == "date" else p.order_number, items=items)


def ordered(parent: str, children: Sequence[tuple[str, str]]) -> Order | None:
    """The children's items in order of their answers (dates, else numbers); None unless there are at least
    two children, every answer parses the same way, every item is named and no two answers tie."""
    if len(children) < 2:
        return None
    questions = [q for q, _ in children]
    labels = [item_label(q, parent, questions[:i] + questions[i + 1:]) for i, q in enumerate(questions)]
    if not all(labels) or len({lab.lower() for lab in labels}) < len(labels):
        return None
    dates = [parse_date(a) for _, a in children]
    keys: list[Any]
    if all(dates):
        keys, kind = dates, "date"
    elif any(dates) or any(_CENTURY.search(a) for _, a in children):
        return None  # some answers are dates and others are not: nothing to order
    else:
        keys, kind = [parse_number(a) for _, a in children], "number"
        if any(k is None for k in keys):
            return None  # not all quantities
    if len(set(keys)) < len(keys):
        return None  # a tie: nothing to order
    keyed = sorted(zip(keys, labels, [a for _, a in children]), key=lambda t: t[0])
    return Order(kind, tuple((label, answer) for _, label, answer in keyed), tuple(k for k, _, _ in keyed))


def order_hint(parent: str, children: Sequence[tuple[str, str]], lang: str) -> str:
    """One line that lists the children's items in order of their answers (dates, else numbers); ""
    unless there are at least two children, every answer parses the same way and every item is named."""
    order = ordered(parent, children)
    return order.hint(lang) if order else ""


@dataclass(frozen=True)
class Decision:
    """A comparison answered by code: the item at the asked-for end of the order."""

    answer: str  # the item's label, as the child question names it
    hint: str  # the order line (the explanation)
    kind: str  # "date" | "number"
    direction: Direction  # "min": earliest / smallest; "max": latest / largest

    def to_dict(self) -> dict[str, str]:
        return {"answer": self.answer, "kind": self.kind, "direction": self.direction, "hint": self.hint}


def decide(parent: str, children: Sequence[tuple[str, str]], lang: str) -> Decision | None:
    """The answer of a comparison question from its children's (question, answer) pairs, when code can
    give it: the items are in a defined order (`ordered`), the parent question names each item as one of
    its alternatives (`named_as_items`), its comparative words (read with the items' names taken out, so
    that "The Last Samurai" says nothing) ask for one end (`direction`), and that end is ahead of every
    other item (a date that gives only the year is not before another date of the same year). None
    otherwise: the model answers."""
    order = ordered(parent, children)
    if order is None:
        return None
    labels = [label for label, _ in order.items]
    if not named_as_items(parent, labels, lang):
        return None
    masked = parent
    for label in sorted(labels, key=len, reverse=True):
        masked = re.sub(re.escape(label), " ", masked, flags=re.I)
    d = direction(masked, order.kind, lang)
    if d is None:
        return None
    pick = 0 if d == "min" else len(labels) - 1
    if order.kind == "date" and not all(
            surely_before(*((order.keys[pick], k) if d == "min" else (k, order.keys[pick])))
            for i, k in enumerate(order.keys) if i != pick):
        return None
    return Decision(labels[pick], order.hint(lang), order.kind, d)


def surely_before(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Date `a` is before date `b` at a precision both give (month and day 0 = not given)."""
    for x, y in zip(a, b):
        if x == 0 or y == 0:
            return False
        if x != y:
            return x < y
    return False


# how an item named as one of the question's alternatives ends ("A or B?", "A와 B 중") or is led to ("…, A", "or B",
# "which of A and B")
_EN_ITEM_END = re.compile(r"""["'”’)]*\s*(?:$|[,?;:!.(]|(?:or|and|vs|versus)(?![\w-]))""", re.I)
_EN_ITEM_START = re.compile(r"""(?:(?<![\w-])(?:or|and|vs\.?|versus|between|either)|[,:])\s*["'“‘(]*$""", re.I)
_KO_ITEM_END = re.compile(r"""["'”’)」』]*\s*(?:$|[,?？;:!.、(]|와|과|하고|이랑|랑|및|중|둘|가운데|또는|혹은|아니면"""
                          r"""|이나|나\s|은\s|는\s)""")
# "A's director", "Jaws' director" (a closing quote before "or" is no possessive: "'Jaws' or 'Alien'")
_EN_POSSESSIVE = re.compile(r"""['’](?:s(?![\w-])|\s+(?!(?:or|and|vs|versus)(?![\w-]))[a-z])""")
# a name right after these words is part of a description ("the director of A"), not an item
_EN_RELATION = ("of", "by", "in", "from", "for", "with", "at", "on", "about", "to", "into", "featuring", "starring",
                "whose")
_EN_CHOOSING = {"which", "who", "whom", "what", "one", "each", "either", "both", "neither"}  # "which of A and B"
_EN_RELATIVE = {"who", "that", "whose"}  # "the man who directed A"
# a label that is itself a description: "the director of Alien" (a lower-case word before a relation word;
# title-case names such as "The Lord of the Rings" pass), "Alien's director" (a possessive before a lower-case
# word; "Schindler's List" passes), "에일리언의 감독" (a word ending in a case particle before another word)
_EN_DESCRIPTION = re.compile(r"(?<![\w-])[a-z][\w'-]*\s+(?:" + "|".join(_EN_RELATION + ("who", "that", "which"))
                             + r")(?![\w-])|\w['’]s?\s+[a-z]")
_KO_DESCRIPTION = re.compile(r"\S(?:의|을|를|에|에서|에게|한테|이|가|은|는|로|으로)\s+\S")


def named_as_items(parent: str, labels: Sequence[str], lang: str) -> bool:
    """Every label names one of the things `parent` compares ("Who was born first, A or B?"), not a part of a
    description of one ("Who was born first, the director of A or the director of B?", "A의 감독과 B의 감독
    중 …"), where the answer is someone the label is not."""
    description = _KO_DESCRIPTION if lang == "ko" else _EN_DESCRIPTION
    return all(not description.search(label)
               and any(_is_item_at(parent, m.start(), m.end(), lang) for m in re.finditer(re.escape(label), parent, re.I))
               for label in labels)


def _is_item_at(parent: str, start: int, end: int, lang: str) -> bool:
    """The name at parent[start:end] stands as an alternative: it ends as one does (Korean: the relation comes
    after a name, "A의 감독", so its ending decides) or, in English, is led to as one, and no relation word,
    possessive or relative clause makes it part of a description."""
    if lang == "ko":
        return bool(_KO_ITEM_END.match(parent, end))
    if _EN_POSSESSIVE.match(parent, end):
        return False
    if not (_EN_ITEM_END.match(parent, end) or _EN_ITEM_START.search(parent[:start])):
        return False
    before = list(re.finditer(r"[\w'’-]+", parent[:start]))
    if not before:
        return True
    last = before[-1].group().lower()
    prev = before[-2].group().lower() if len(before) > 1 else ""
    if last in _EN_RELATION and not (last == "of" and prev in _EN_CHOOSING):
        return False
    # a relative clause that ends at the name ("the man who directed A"), unless punctuation closes it first
    return not (prev in _EN_RELATIVE and not re.search(r"[,;:]", parent[before[-2].end():start]))
