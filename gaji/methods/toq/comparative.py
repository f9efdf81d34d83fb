"""Which end of an order a comparison question asks for, read from its comparative words.

A comparison node whose items are put in order by code (gaji.methods.toq.order) can be answered by code too,
once the question says which end it wants: "Who was born first, A or B?" wants the earliest date, "Which city
has more people, A or B?" the largest number. `direction(question, kind, lang)` gives "min" (the earliest
date, the smallest number), "max" (the latest, the largest) or None, and None whenever the reading is not
plain, so that the model answers as before:

- no comparative word of the kind, or words of both directions ("Whose first album came out later?");
- a filter or a yes/no comparison rather than a choice: "than" / "보다" ("Which film has more than one
  director?", "Was A born earlier than B?"), "at least", "이상", "미만", a date bound ("before 1900",
  "1900년 이전에");
- a question that asks for a value, not an item ("When was the older one founded?", "How many years
  apart…", "언제", "몇");
- a yes/no question ("Is A older …", "Did A come before B?");
- for numbers, a rank ("ranked higher" means the smaller number).

The words are those of the question's language (`lang`): an English title inside a Korean question ("The
Last Samurai") is no comparative. English words match whole (hyphens included: "first" is not in
"firstborn" or "first-born"); Korean adjectives match with a degree word before them ("더 많은", "가장
작은", not "가장 작품이 많은"), since Korean stems begin other words (작품, 적합).

    >>> direction("Who was born first, Am Rong or Ava DuVernay?", "date", "en")
    'min'
    >>> direction("인천과 부산 중 인구가 더 많은 도시는?", "number", "ko")
    'max'
    >>> direction("Was Am Rong born earlier than Ava DuVernay?", "date", "en") is None
    True
"""
from __future__ import annotations

import re
from typing import Literal

Direction = Literal["min", "max"]

# English comparatives by the kind of the sub-answers: "min" = earliest / smallest, "max" = latest / largest.
# "older" of a birth or founding date is the earlier date, of an age the larger number.
_EN_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "date": {
        "min": ("first", "earlier", "earliest", "before", "older", "oldest", "elder", "eldest", "sooner",
                "soonest"),
        "max": ("later", "latest", "last", "more recent", "more recently", "most recent", "most recently",
                "younger", "youngest", "newer", "newest"),
    },
    "number": {
        "min": ("fewer", "fewest", "less", "least", "smaller", "smallest", "lower", "lowest", "shorter",
                "shortest", "younger", "youngest", "narrower", "narrowest", "lighter", "lightest"),
        "max": ("more", "most", "larger", "largest", "bigger", "biggest", "higher", "highest", "greater",
                "greatest", "taller", "tallest", "longer", "longest", "older", "oldest", "elder", "eldest",
                "wider", "widest", "deeper", "deepest", "heavier", "heaviest"),
    },
}
_DEGREE = r"(?:더|가장|제일)\s*"  # the degree word a Korean comparative adjective must follow
_AGE = r"나이가\s*(?:더\s*|가장\s*|제일\s*)?"
# Korean comparatives as patterns (particles and endings attach to the word, so no word boundaries)
_KO_PATTERNS: dict[str, dict[str, tuple[str, ...]]] = {
    "date": {
        "min": ("먼저", "일찍", "이전에", "앞서", _DEGREE + "이른", _DEGREE + "오래(?:된|되|됐)", _AGE + "많"),
        "max": ("나중에", "늦게", _DEGREE + "늦은", _DEGREE + "최근", "최근에", _DEGREE + "젊",
                _AGE + "(?:어린|어려|적)"),
    },
    "number": {
        "min": (_DEGREE + "적(?:은|어|게|다|었|고|지)", "적게", _DEGREE + "작(?:은|아|게|다|았|고|지)",
                _DEGREE + "낮(?:은|아|게|다|았|고|지)", _DEGREE + "짧(?:은|아|게|다|았|고|지)",
                _DEGREE + "좁(?:은|아|게|다|았|고|지)", _DEGREE + "가벼", _DEGREE + "젊", _AGE + "(?:어린|어려|적)"),
        "max": (_DEGREE + "많", "많이", _DEGREE + "(?:큰|커|크게|크다|컸)", _DEGREE + "높",
                _DEGREE + "(?:긴|길어|길게|길다|길었)", _DEGREE + "넓", _DEGREE + "오래", _DEGREE + "무거",
                _AGE + "많"),
    },
}

# phrases that hold a comparative word without comparing (taken out before the words are read)
_EN_IDIOMS = re.compile(r"(?<![\w-])(?:(?:first|last)\s+names?|no\s+longer|any\s+longer|once\s+more|at\s+last"
                        r"|more\s+or\s+less)(?![\w-])", re.I)
# a filter or a yes/no comparison, a value asked for, a yes/no question: not a choice between the items
_EN_REFUSE = re.compile(
    r"(?<![\w-])(?:than|at\s+(?:least|most)|(?:before|after|since|until|by)\s+(?:the\s+)?(?:year\s+)?\d+"
    r"|when|how|what\s+(?:year|date|age|day|month)|which\s+(?:year|date|day|month)|in\s+what)(?![\w-])"
    r"|^\W*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)(?![\w-])", re.I)
_KO_REFUSE = re.compile(r"보다|이상|이하|초과|미만|언제|몇|얼마|며칠|연도|날짜|어느\s*해|차이"
                        r"|\d\s*(?:년|월|일)?\s*(?:이전|이후|전에|후에|까지|부터)")
# a rank: "higher" is the smaller number
_RANK = re.compile(r"(?<![\w-])(?:rank\w*|place[ds]?|position|seed(?:ed)?)(?![\w-])|순위|등수", re.I)


def _en_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    alts = sorted((w.replace(" ", r"\s+") for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])", re.I)


_PATTERNS: dict[tuple[str, str], dict[str, re.Pattern[str]]] = {
    **{("en", kind): {d: _en_pattern(ws) for d, ws in by_dir.items()} for kind, by_dir in _EN_WORDS.items()},
    **{("ko", kind): {d: re.compile("|".join(ps)) for d, ps in by_dir.items()} for kind, by_dir in _KO_PATTERNS.items()},
}


def direction(question: str, kind: str, lang: str) -> Direction | None:
    """"min" when `question` asks for the earliest date / smallest number of its items, "max" for the latest /
    largest, None when it says neither plainly (see the module doc); `kind` is "date" or "number", `lang`
    the question's language ("ko", else English)."""
    lang = "ko" if lang == "ko" else "en"
    patterns = _PATTERNS.get((lang, kind))
    if patterns is None:
        return None
    text = question
    if lang == "en":
        text = _EN_IDIOMS.sub(" ", text)
        if _EN_REFUSE.search(text):
            return None
    elif _KO_REFUSE.search(text):
        return None
    if kind == "number" and _RANK.search(text):
        return None
    lo, hi = patterns["min"].search(text), patterns["max"].search(text)
    if bool(lo) == bool(hi):
        return None  # no comparative, or words of both directions
    return "min" if lo else "max"
