"""A comparison answered by code: look up the one value per item that decides it, then put the values in order.

"Who was born first, Aleksandr Ivanovsky or Arthur Lubin?" names its two items and the order it asks about
(the earliest date). A small model reading both biographies in one prompt picks the wrong name about as often as
the right one, even when both dates are in front of it (HotpotQA dev: 5 of the 8 such questions its one-retrieval
answer got wrong had both passages retrieved). Asked for one item's date at a time, it copies the date out of
the passage well; putting two dates in order is then code's job (the question tree does the same for its
comparison nodes: gaji/methods/toq/order.py, ProbTree's and ToQ's comparison decomposition).

    1. parse: the two items ("A or B", "between A and B", "A와 B 중") and what is compared: a date (first,
       older, 먼저, ...), a number (more, taller, 더 큰, ...) or a lifespan ("Who lived longer", "더 오래 살았나":
       both dates read at once, parse_life), and which end (comparative.direction);
    2. look up: per item, a sub-question in code ("When was Arthur Lubin born?", "박형식은 언제 태어났나?"), a
       small retrieval with it, and one short read that asks only for the value (the two reads run in parallel);
    3. decide: both values parse (order.parse_date / parse_number), differ, and a date is surely before the other
       at the precision both give: the answer is the item at the asked-for end. Otherwise there is no verdict and
       the caller's answer stands.

An item that is a description ("the director of Alien", "《아가씨》에서 히데코 역을 맡은 배우") is first resolved to
the name it stands for, and so is each item of a choice by a person in a role of it ("Which film has the director who
died later, A or B?": the directors' dates decide, the answer is the film). Nothing is decided for a yes/no
comparison ("Are A and B both ...?": gaji/methods/check.py), a filter ("more than 15") or more than two items:
`parse_comparison` returns None.

    >>> c = parse_comparison("Who was born first, Aleksandr Ivanovsky or Arthur Lubin?", "en")
    >>> c.items, c.kind, c.direction, c.sub_questions()
    (('Aleksandr Ivanovsky', 'Arthur Lubin'), 'date', 'min', ['When was Aleksandr Ivanovsky born?', 'When was Arthur Lubin born?'])
    >>> parse_comparison("갤럭시 S8과 갤럭시 S7 엣지 중 배터리 용량이 더 큰 것은?", "ko").sub_questions()
    ['갤럭시 S8의 배터리 용량은 얼마인가?', '갤럭시 S7 엣지의 배터리 용량은 얼마인가?']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from gaji.llm.prompts import fill
from gaji.methods.base import RunContext
from gaji.methods.common import format_passages, plain_answer
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts.compare import PROMPTS
from gaji.methods.span import EN_OPTION, is_unknown
from gaji.methods.toq.comparative import Direction, direction
from gaji.methods.toq.order import Order, dates_in, named_as_items, parse_date, parse_number, surely_before
from gaji.text.ko_phrases import PARTICLES, asks_for_person, ends_in_entity, is_modifier, particle
from gaji.text.normalize import squash
from gaji.types import Fact, Node, Passage

K = 3  # passages per item: the item's own article is nearly always first when the query names it
PASSAGE_CHARS = 400  # each cut to its sentences most relevant to the sub-question
MAX_TOKENS = 24  # a date or a number with its unit
LIFE_MAX_TOKENS = 40  # two full dates ("1755년 11월 2일 – 1793년 10월 16일" is about 26 tokens)

# -- parsing the question ---------------------------------------------------------------------------------
_EN_THE = r"(?-i:the\s+)?"  # only the lower-case article: a capital "The" is part of a title ("The Wild")
# "..., A or B?" / "...: A or B" (the items after the last comma or colon)
# an item may hold a subtitle's colon ("Molokai: The Story Of Father Damien"): span's one option
_EN_TAIL = re.compile(r"[,:]\s*" + _EN_THE + r"(?P<a>" + EN_OPTION + r")\s*,?\s+or\s+" + _EN_THE
                      + r"(?P<b>" + EN_OPTION + r")\s*[?.!]?\s*$", re.I)
# "Who was born first A or B?" (no comma: the items after the comparative word)
_EN_AFTER = re.compile(r"\b(?:first|earlier|later|older|younger|more|fewer|less|larger|smaller|higher|lower|taller|"
                       r"shorter|longer|bigger)\s+" + _EN_THE + r"(?P<a>[^,:;?]+?)\s+or\s+" + _EN_THE
                       + r"(?P<b>[^,:;?]+?)\s*[?.!]?\s*$", re.I)
# "... between A and B?"
_EN_BETWEEN = re.compile(r"\bbetween\s+" + _EN_THE + r"(?P<a>[^,:;?]+?)\s+and\s+" + _EN_THE
                         + r"(?P<b>[^,:;?]+?)\s*[?.!]?\s*$", re.I)
# "A와 B 중 누가 먼저 태어났나?" (a particle glued to the first item, then the second, then 중 / 가운데)
_KO_JOIN = r"(?:와|과|하고|이랑|랑)"
_KO_CHOICE_END = r"\s*(?:중에서|중에|중|가운데)\s+(?P<rest>.+)$"
# a comma after the particle marks the split between two long descriptions ("…맡은 배우와, …배우 중")
# "중" set apart by a space is tried first, so that a name ending in 중 keeps it ("김영삼과 김대중 중")
_KO_CHOICE_END_SPACED = r"\s+(?:중에서|중에|중|가운데)\s+(?P<rest>.+)$"
_KO_CHOICES = tuple(re.compile(r"^\s*(?P<a>.+?)" + _KO_JOIN + between + r"(?P<b>.+?)" + end)
                    for end in (_KO_CHOICE_END_SPACED, _KO_CHOICE_END)
                    for between in (r",\s*", r"\s+(?!함께|같이|마찬가지)"))
_KO_TITLE = re.compile(r"[《「『〈](.+?)[》」』〉]")
_KO_BRACKETED = re.compile(r"[《「『〈][^》」』〉]*[》」』〉]")
# a choice asks which one ("Which film is older, …", "Who was born first …"); "What ended the conflict between A
# and B …" is no choice
_EN_CHOICE_START = re.compile(r"^\W*(?:which|who|whom)\b", re.I)
_YES_NO_EN = re.compile(r"^\W*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would)\b", re.I)
_YES_NO_KO = re.compile(r"같은가|같나|같았|둘 다|모두|인가요?\s*아닌가")

# English: the verb a date sub-question asks with ("When was A founded?")
_EN_BORN = re.compile(r"\b(?:born|older|oldest|younger|youngest|elder|eldest|age)\b", re.I)
# "older" asks a birth date of a person, and another date of anything else ("Which film is older" -> released)
_EN_PERSON = re.compile(r"^\W*(?:who|whom)\b|\b(?:person|people|man|woman|player|musician|director|actor|actress|"
                        r"singer|songwriter|rapper|writer|author|novelist|poet|composer|artist|painter|politician|"
                        r"president|king|queen|footballer|athlete|coach|producer|comedian|journalist|scientist|"
                        r"philosopher|architect|drummer|guitarist|pianist|filmmaker|screenwriter|model)s?\b", re.I)
_EN_THING_VERBS = (("released", r"film|movie|album|song|single|game|record|show|series|documentary|opera|play|ep"),
                   ("formed", r"band|group|duo|trio"),
                   ("founded", r"company|university|college|school|club|organi[sz]ation|team|party|firm|brand|"
                               r"airline|city|town"),
                   ("first published", r"magazine|newspaper|journal|book|novel|comic|manga|publication"),
                   ("built", r"building|bridge|tower|church|stadium|castle|dam"))
# "Who lived longer, A or B?", "… had the shorter life": the span from birth to death, not a date or a length
_EN_LIFESPAN = re.compile(r"\b(?:lived|live|lives)\s+(?P<d>longer|shorter)\b|\b(?P<d2>longer|shorter)\s+"
                          r"(?:life|lifespan|life\s+span)\b", re.I)
_KO_LIFESPAN = re.compile(r"(?:더|가장|제일)\s*(?P<d>오래|짧게)\s*살|(?P<d2>장수)")
_EN_DIED = re.compile(r"\b(?:died|die|dies|death|passed away)\b", re.I)
# "Which film has the director who died later", "Which film whose director is younger": items chosen by a person in
# a role of each (2WikiMultihopQA's bridge-comparisons)
_EN_ROLES = r"director|producer|composer|screenwriter|writer|author|creator|founder|performer|editor|cinematographer"
_EN_VIA = re.compile(r"^\W*which\s+[a-z]+(?:\s+[a-z]+)?\s+(?:(?:has|had)\s+(?:the|a)\s+|whose\s+)(?P<role>"
                     + _EN_ROLES + r")\b", re.I)
_EN_PARTICIPLES = ("published", "founded", "established", "formed", "released", "created", "built", "opened",
                   "launched", "written", "made", "produced", "discovered", "introduced", "completed", "invented",
                   "signed", "elected", "directed", "premiered", "aired", "broadcast", "constructed", "incorporated",
                   "recorded", "issued", "named", "designed", "developed", "started", "begun")
_EN_PARTICIPLE = re.compile(r"\b(" + "|".join(_EN_PARTICIPLES) + r")\b", re.I)
_EN_HAPPENED = re.compile(r"\b(?:occur(?:red)?|happen(?:ed)?|took place|take place|fought|began|begin|start(?:ed)?|came)\b",
                          re.I)
# English: what a number sub-question asks for ("more acts" -> "How many acts does A have?")
_EN_COUNT = re.compile(r"\b(?:more|most|fewer|fewest|less|least)\s+(?P<m>[a-z][a-z' -]*?)\s*"
                       r"(?=[,?:;]|\s+(?:than|in|on|at|of|did|does|do|has|have|had|won|was|were|is|are|for)\b|$)",
                       re.I)
_EN_MEASURES = {"taller": "height", "tallest": "height", "higher": "height", "highest": "height",
                "shorter": "length", "longer": "length", "longest": "length", "larger": "size", "largest": "size",
                "bigger": "size", "biggest": "size", "smaller": "size", "smallest": "size", "heavier": "weight",
                "lighter": "weight", "deeper": "depth", "deepest": "depth", "wider": "width", "widest": "width",
                "lower": "height", "lowest": "height"}
_EN_MEASURE_WORD = re.compile(r"\b(" + "|".join(_EN_MEASURES) + r")\b", re.I)
# Korean: the predicate after "먼저" ("먼저 태어났나?" -> "태어났나"), the measure before "더" ("배터리 용량이 더 큰")
_KO_WHEN = re.compile(r"(?:먼저|일찍|나중에|늦게)\s+(?P<v>.+?)\s*[?？.]?\s*$")
_KO_AGE = re.compile(r"나이가\s*(?:더|가장|제일)?\s*(?:많|적|어린|어려)|(?:더|가장)\s*(?:젊|늙)")
_KO_DIED = re.compile(r"(?:세상을\s*)?(?:떠났|사망|죽었|별세|타계)")
# "설립된 곳은" -> "설립되었나": a modifier ending over a noun becomes the past question ending
_KO_MODIFIER = re.compile(r"^(?P<stem>.*?)(?P<end>된|진|난|한|온|간|든|린|친|은)\s+\S+?[은는이가]?$")
_KO_ENDINGS = {"된": "되었나", "진": "졌나", "난": "났나", "한": "했나", "온": "왔나", "간": "갔나", "든": "들었나",
               "린": "렸나", "친": "쳤나"}
# a described item ends in a noun for a person or a thing it stands for ("…역을 맡은 배우", "…을 작곡한 음악가",
# "다이쇼 천황의 맏아들") and holds a relation or a clause before its last word: a word ending in a particle ("…의
# 맏아들") or a verb's modifier form ("맡은", "나선"), the latter in an item of three or more words, unlike "김현웅
# 전 법무부 장관" or "윤정훈 목사"; an item that ends otherwise ("정도전의 성균시 급제", "유다 왕국의 왕 아몬") is
# asked about as it is


def _describes(item: str) -> bool:
    words = _KO_BRACKETED.sub("《》", item).split()
    if not ends_in_entity(item) or len(words) < 2:
        return False
    before = words[:-1]
    return any(w.strip("'\"‘’“”,").endswith(PARTICLES) or (len(before) >= 2 and len(w) >= 2 and is_modifier(w))
               or _KO_ORDINAL.match(w) for w in before)


# an office by its holder's number ("제64대 법무부 장관", "초대 국무장관"): a description of whoever held it
_KO_ORDINAL = re.compile(r"^(?:제\d+|초)대$")


_KO_MEASURE = re.compile(r"^(?:누가\s+|어느\s+\S+[이가]\s+)?(?P<m>[^?？]+?)[이가]\s*(?:더|가장|제일)\s")


@dataclass(frozen=True)
class Comparison:
    """A question that picks one of two named items by a value of each."""

    question: str
    lang: str
    items: tuple[str, str]  # as the question names them (a title's brackets and a leading "the" dropped)
    kind: str  # "date" | "number" | "lifespan" (how long each lived: birth and death read together)
    direction: Direction  # "min": the earliest / smallest; "max": the latest / largest
    verb: str = ""  # the date sub-question's verb ("born", "published"; Korean: "태어났나")
    measure: str = ""  # the number sub-question's measure ("acts", "height"; Korean: "배터리 용량")
    count: bool = False  # English: "How many {measure} does A have?" rather than "What is the {measure} of A?"
    # an item that is a description ("the director of Alien", "《아가씨》에서 히데코 역을 맡은 배우") is first
    # resolved to the name it describes, whose value is then looked up; the answer is that name
    described: tuple[bool, bool] = (False, False)
    person: bool = False  # the items are people ("who", "누가"): a description is resolved with who/누구
    # the items are chosen by a person in a role of each ("Which film has the director who died later, A or B?"):
    # each item is resolved to that person, whose value is looked up; the answer is the item, not the person
    via: str = ""

    def sub_questions(self) -> list[str]:
        return [self.sub_question(item) for item in self.items]

    def sub_question(self, item: str) -> str:
        p = PROMPTS[self.lang]
        if self.kind == "lifespan":
            return fill(p.life_dates, item=item + particle(item, "은") if self.lang == "ko" else item)
        if self.lang == "ko":
            if self.kind == "date":
                if self.verb:
                    return fill(p.date_verb, item=item + particle(item, "은"), verb=self.verb)
                return fill(p.date_any, item=item, question=self.question)
            if self.measure:
                return fill(p.number_measure, item=item, measure=self.measure + particle(self.measure, "은"))
            return fill(p.number_any, item=item, question=self.question)
        if self.kind == "date":
            if self.verb == "die":
                return fill(p.date_event, item=item, verb="die")
            if self.verb == "take place":
                return fill(p.date_event, item=item, verb="take place")
            if self.verb:
                return fill(p.date_verb, item=item, verb=self.verb)
            return fill(p.date_any, item=item, question=self.question)
        if self.measure:
            return fill(p.number_count if self.count else p.number_measure, item=item, measure=self.measure)
        return fill(p.number_any, item=item, question=self.question)

    def resolve_question(self, item: str) -> str:
        p = PROMPTS[self.lang]
        if self.via:
            role = self.via + (particle(self.via, "은") if self.lang == "ko" else "")
            return fill(p.resolve_role, item=item, role=role)
        if self.lang == "ko":
            return fill(p.resolve_who if self.person else p.resolve_what, item=item + particle(item, "은"))
        return fill(p.resolve_who if self.person else p.resolve_what, item=item)

    def to_dict(self) -> dict[str, Any]:
        return {"items": list(self.items), "kind": self.kind, "direction": self.direction,
                "described": list(self.described), **({"via": self.via} if self.via else {})}


# a Korean pronoun word ("그를", "그의", "그녀가"): in a described item it points back at the other, named item
# ("알렉산더 헤이그와, 그를 사성 장군으로 진급시킨 대통령 중 …")
_KO_PRONOUN = re.compile(r"^(?:그녀|그)(?P<p>를|의|가|와|에게|는|보다|도)$")


def with_antecedent(items: tuple[str, str], described: tuple[bool, bool]) -> tuple[str, str]:
    """`items` with a described item's pronoun replaced by the other item's name when that item is named, so the
    description can be read on its own ("그를 … 진급시킨 대통령" -> "알렉산더 헤이그를 … 진급시킨 대통령")."""
    out = list(items)
    for i in (0, 1):
        other = items[1 - i]
        if not described[i] or described[1 - i]:
            continue
        words = out[i].split(" ")
        for j, w in enumerate(words):
            m = _KO_PRONOUN.match(w.strip(",'\""))
            if m:
                words[j] = other + particle(other, m.group("p") or "")
        out[i] = " ".join(words)
    return out[0], out[1]


def same_entity(a: str, b: str) -> bool:
    """Do two names name one thing: one holds the other's letters, or every word of the shorter (two or more) is a
    word of the longer ("알렉산더 헤이그", "알렉산더 메이그스 헤이그 2세")?"""
    sa, sb = squash(a), squash(b)
    if not sa or not sb:
        return False
    if sa in sb or sb in sa:
        return True
    wa, wb = ({squash(w) for w in x.split()} - {""} for x in (a, b))
    small, big = sorted((wa, wb), key=len)
    return len(small) >= 2 and small <= big


def parse_comparison(question: str, lang: str) -> Comparison | None:
    """The comparison `question` asks, when code can decide it (see the module doc); None otherwise."""
    q = " ".join(question.split())
    if lang == "ko":
        return _parse_ko(q)
    return _parse_en(q)


def _clean(item: str, lang: str, described: bool = False) -> str:
    """An item as the answer names it; a description is kept whole (it is resolved, never the answer)."""
    item = item.strip(" ,\"'“”‘’")
    if described:
        return item
    if lang == "ko":
        m = _KO_TITLE.search(item)
        if m and len(item.replace(m.group(0), " ").split()) <= 1:  # "영화 《도둑들》": the title is the name
            return m.group(1).strip()
        return re.sub(r"[\"'“”‘’]", "", item).strip()
    # a lower-case "the" is the question's article ("the Battle of Manila"); a capital one inside the sentence is
    # the title's own word ("The Wild", "The Little Shop Of Horrors", another film than "Little Shop of Horrors")
    return re.sub(r"^the\s+", "", item).strip()


def _kind_and_direction(masked: str, lang: str) -> tuple[str, Direction] | None:
    d, n = direction(masked, "date", lang), direction(masked, "number", lang)
    if d is not None:
        return "date", d  # "older" reads both ways: the earlier birth date is asked for
    if n is not None:
        return "number", n
    return None


def _masked(question: str, items: tuple[str, str]) -> str:
    for item in sorted(items, key=len, reverse=True):
        question = re.sub(re.escape(item), " ", question, flags=re.I)
    return question


def _parse_en(q: str) -> Comparison | None:
    if _YES_NO_EN.match(q) or not _EN_CHOICE_START.match(q):
        return None
    m = _EN_TAIL.search(q) or _EN_AFTER.search(q) or _EN_BETWEEN.search(q)
    if not m:
        return None
    raw = (m.group("a").strip(), m.group("b").strip())
    described = tuple(not named_as_items(q, (_clean(r, "en"),), "en") for r in raw)
    # a described item keeps its "the" ("Who is the director of Alien?")
    items = tuple(r.strip(" ,\"'“”‘’") if d else _clean(r, "en") for r, d in zip(raw, described))
    if not all(items) or squash(items[0]) == squash(items[1]):
        return None
    # "older than the other" is a choice between the two, not a filter ("older than 50")
    masked = re.sub(r"\s+than\s+the\s+other\b", "", _masked(q, items), flags=re.I)
    kd = _kind_and_direction(masked, "en")
    if kd is None:
        return None
    kind, d = kd
    person = bool(_EN_PERSON.search(masked))
    if (via := _EN_VIA.match(masked)) and not any(described):
        described, person, via_role = (True, True), True, via.group("role").lower()
    else:
        via_role = ""
    if life := _EN_LIFESPAN.search(masked):
        longer = (life.group("d") or life.group("d2")).lower() == "longer"
        return Comparison(q, "en", items, "lifespan", "max" if longer else "min", described=described, person=True,
                          via=via_role)
    if kind == "date":
        if _EN_DIED.search(masked):
            verb = "die"
        elif p := _EN_PARTICIPLE.search(masked):
            verb = p.group(1).lower()
        elif _EN_BORN.search(masked) and _EN_PERSON.search(masked):
            verb = "born"
        elif t := next((v for v, nouns in _EN_THING_VERBS if re.search(rf"\b(?:{nouns})s?\b", masked, re.I)), ""):
            verb = t
        elif _EN_HAPPENED.search(masked):
            verb = "take place"
        else:
            verb = ""
        return Comparison(q, "en", items, kind, d, verb=verb, described=described, person=person, via=via_role)
    c = _EN_COUNT.search(masked)
    if c and c.group("m").strip() and not c.group("m").strip().endswith("ly"):  # "more frequently": no count
        return Comparison(q, "en", items, kind, d, measure=c.group("m").strip(), count=True, described=described,
                          person=person, via=via_role)
    w = _EN_MEASURE_WORD.search(masked)
    return Comparison(q, "en", items, kind, d, measure=_EN_MEASURES[w.group(1).lower()] if w else "",
                      described=described, person=person, via=via_role)


def _parse_ko(q: str) -> Comparison | None:
    if _YES_NO_KO.search(q):
        return None
    m = next((x for x in (r.match(q) for r in _KO_CHOICES) if x), None)
    if not m:
        return None
    raw = (m.group("a").strip(), m.group("b").strip())
    # a bracketed title is a name whatever its words ("《연애의 온도》" is no description): checked with it blanked
    described = tuple(_describes(r) for r in raw)
    items = with_antecedent(tuple(_clean(r, "ko", described=d) for r, d in zip(raw, described)), described)
    if not all(items) or squash(items[0]) == squash(items[1]):
        return None
    rest = m.group("rest").strip()
    kd = _kind_and_direction(rest, "ko")
    if kd is None:
        return None
    kind, d = kd
    extra = {"described": described, "person": asks_for_person(rest)}
    if life := _KO_LIFESPAN.search(rest):
        return Comparison(q, "ko", items, "lifespan", "min" if life.group("d") == "짧게" else "max", **extra)
    if kind == "date":
        if _KO_AGE.search(rest):
            verb = "태어났나"
        elif _KO_DIED.search(rest):
            verb = "세상을 떠났나"
        elif w := _KO_WHEN.search(rest):
            verb = _ko_question_verb(w.group("v"))
        else:
            verb = ""
        return Comparison(q, "ko", items, kind, d, verb=verb, **extra)
    me = _KO_MEASURE.match(rest)
    return Comparison(q, "ko", items, kind, d, measure=me.group("m").strip() if me else "", **extra)


def _ko_question_verb(v: str) -> str:
    """The predicate after "먼저" as the ending of a when-question: "태어났나" stays, "설립된 곳은" ->
    "설립되었나", "만들어진 것은" -> "만들어졌나"; "" when it reads as neither."""
    v = v.strip().rstrip("?？.")
    if re.search(r"(?:나|가|까|냐|니|는가|었나|았나|였나)$", v):
        return v
    m = _KO_MODIFIER.match(v)
    if m and m.group("end") in _KO_ENDINGS:
        return m.group("stem") + _KO_ENDINGS[m.group("end")]
    return ""


# -- looking the values up and deciding ------------------------------------------------------------------
@dataclass
class Lookup:
    """One item's value: the sub-question, the reader's reply, and the value read from it (None: none)."""

    item: str
    question: str
    answer: str = ""
    value: Any = None
    node_id: str = ""
    passage_ids: list[str] = field(default_factory=list)

    @property
    def json_value(self) -> Any:
        """The value as the trace's JSON holds it: a date as [year, month, day], a number as it is."""
        return list(self.value) if isinstance(self.value, tuple) else self.value

    def to_dict(self) -> dict[str, Any]:
        return {"item": self.item, "question": self.question, "answer": self.answer,
                "value": self.json_value, "node": self.node_id}


@dataclass
class Verdict:
    """What the look-up decided: the answer (None: no verdict, and why), the order line, the look-ups."""

    comparison: Comparison
    lookups: list[Lookup]
    answer: str | None
    why: str  # "decided", or what stopped it: "no value", "tie", "same year", ...
    hint: str = ""

    @property
    def citations(self) -> list[str]:
        out: list[str] = []
        for lk in self.lookups:
            out.extend(i for i in lk.passage_ids[:1] if i not in out)
        return out

    def worded(self, answer: str) -> str:
        """The answer to give when `answer` agrees: the picked item, so that a sentence around the item ("강완구
        판사는 1945년 …에서 태어났습니다") gives the item, unless the item starts with the answer: a name without the
        title the question adds ("윤정훈" for "윤정훈 목사") stays as it is, but a title's tail is not the title ("The
        Story Of Father Damien" for "Molokai: The Story Of Father Damien")."""
        mine = self.answer or answer
        return answer if squash(answer) and squash(mine).startswith(squash(answer)) else mine

    def agrees_with(self, answer: str) -> bool:
        """Does `answer` name the item the verdict picked (and not the other)?"""
        if self.answer is None:
            return False
        a = squash(answer)
        mine, other = squash(self.answer), [squash(x) for x in self.comparison.items if x != self.answer]
        if not a or not mine:
            return False
        names_mine = mine in a or a in mine
        return names_mine and not any(o and (o in a) for o in other)

    def names_an_item(self, answer: str) -> bool:
        """Does `answer` name one of the looked-up items (as resolved) and not the other?"""
        return len(named_in(answer, [lk.item for lk in self.lookups])) == 1

    def to_dict(self) -> dict[str, Any]:
        return {**self.comparison.to_dict(), "answer": self.answer, "why": self.why, "hint": self.hint,
                "lookups": [lk.to_dict() for lk in self.lookups]}


def look_up(ctx: RunContext, parent: Node, comparison: Comparison, resolve: Resolver | None = None) -> Verdict:
    """Resolve the described items to names (with `resolve`: one short read unless the caller gives more), then ask
    each item's value (one child node of `parent` per step and item; the items of a step run in parallel) and
    decide by code."""
    names, failed = resolve_items(ctx, parent, comparison, resolve)
    if failed is not None:
        return Verdict(comparison, [failed], None, "no name")
    lookups = [Lookup(name, comparison.sub_question(name)) for name in names]
    nodes_v = [parent.add(Node(question=lk.question, kind="compare_item", data={"compare_item": lk.item}))
               for lk in lookups]

    def read(pair: tuple[Lookup, Node]) -> None:
        lk, node = pair
        lk.node_id = node.id
        reply = read_value(ctx, node, comparison.kind, comparison.lang)
        lk.passage_ids = list(node.passage_ids)
        lk.answer = reply
        if reply and not _unknown(reply):
            if comparison.kind == "lifespan":
                life = parse_life(reply)
                lk.value = life[0] if life else None
                node.data["lifespan"] = True
            else:
                lk.value = parse_date(reply) if comparison.kind == "date" else parse_number(reply)
        node.data["value"] = lk.json_value
        ctx.emit(node)

    ctx.map(read, list(zip(lookups, nodes_v)))
    return decide(comparison, lookups)


Resolver = Callable[[RunContext, Node, str], str]


def resolve_items(ctx: RunContext, parent: Node, question: Any, resolve: Resolver | None = None
                  ) -> tuple[list[str], Lookup | None]:
    """The names `question`'s items stand for: a named item as it is, a described one resolved by `resolve` (one
    short read unless the caller gives another; one child node of `parent` each, run in parallel). `question` is a
    Comparison or anything with its `question`, `lang`, `items`, `described` and `resolve_question`. On a
    description that resolves to no name (none read, or the description echoed back): the names so far and that
    item's look-up."""
    lang = question.lang
    names = list(question.items)
    described = [i for i, d in enumerate(question.described) if d]
    if not described:
        return names, None
    nodes = {i: parent.add(Node(question=question.resolve_question(question.items[i]), kind="compare_item",
                                data={"compare_item": question.items[i], "resolve": True}))
             for i in described}
    read = resolve or read_name
    replies = dict(zip(described, ctx.map(lambda i: read(ctx, nodes[i], lang), described)))
    # the description echoed back is no name, and neither is the other, named item: two items of a comparison are
    # two things ("알렉산더 헤이그와, 그를 진급시킨 대통령" read as Haig again)
    named = tuple(x for x, d in zip(question.items, question.described) if not d)
    for i, reply in replies.items():
        name = reply if name_of(reply, question.question) and not any(same_entity(reply, x) for x in named) else ""
        nodes[i].data["value"] = name or None
        ctx.emit(nodes[i])
        if not name:
            return names, Lookup(question.items[i], nodes[i].question, reply, None, nodes[i].id)
        names[i] = name
    return names, None


def read_name(ctx: RunContext, node: Node, lang: str) -> str:
    """The name a described item stands for: one short read on `node` (the default resolver of `resolve_items`)."""
    return read_value(ctx, node, "name", lang)


def read_value(ctx: RunContext, node: Node, what: str, lang: str) -> str:
    """One short read on `node`: a small retrieval with its question, then only the asked-for thing ("date",
    "number", "name", "yesno" or a short "value")."""
    ctx.emit(node)
    passages: list[Passage] = ctx.retrieve(node, node.question, K)
    item = str(node.data.get("compare_item") or "")
    if item and not node.data.get("resolve"):
        kept = without_namesakes(passages, item)
        if len(kept) < len(passages):
            node.data["namesakes_dropped"] = [x.title for x in passages if x not in kept]
            node.passage_ids = [x.id for x in kept]
            passages = kept
    p = PROMPTS[lang]
    prompt = {"date": p.date, "number": p.number, "name": p.name, "yesno": p.yes_no, "value": p.value,
              "lifespan": p.life}[what]
    messages = prompt.messages(data_note=common_prompts.PROMPTS[lang].data_note,
                               passages=format_passages(passages, max_chars=PASSAGE_CHARS, query=node.question),
                               question=node.question)
    reply = plain_answer(ctx.llm.chat(node, "compare", messages,
                                      max_tokens=LIFE_MAX_TOKENS if what == "lifespan" else MAX_TOKENS))
    node.answer = reply
    return reply


_SMALL_WORDS = {"the", "and", "for", "from", "with", "von", "van", "der", "des", "del", "les", "los", "las"}


def _title_name(title: str) -> str:
    """A passage title as a name: its disambiguation dropped ("Little Shop of Horrors (film)", "김민희_(1982년)")."""
    return squash(re.sub(r"[\s_]*\([^)]*\)\s*$", "", title or ""))


def without_namesakes(passages: list[Passage], item: str) -> list[Passage]:
    """`passages` less the pages of namesakes when the item's own page is among them: "Jorge Salvador Lara" and
    "Jonathan Salvador" beside "Salvador J. Lara" (the reader took the first one's dates). A namesake's page is
    titled with another name sharing a word of the item's (a relative's too: "Sharda Bhargava" beside "Mukat Behari
    Lal Bhargava", with her own dates; another item of the same kind: "Battle of Manila" beside "Battle of Guam",
    whose read asks only Guam's date); pages titled otherwise are kept, and so is everything when the item has no
    page of its own."""
    own = squash(item)
    if not own or not any(_title_name(x.title) == own for x in passages):
        return passages

    def words(name: str) -> set[str]:
        name = re.sub(r"[\s_]*\([^)]*\)\s*$", "", name or "").lower()
        return set(re.findall(r"\w{3,}", name)) - _SMALL_WORDS

    mine = words(item)

    def namesake(x: Passage) -> bool:
        return _title_name(x.title) != own and bool(mine & words(x.title))

    return [x for x in passages if not namesake(x)]


def _unknown(reply: str) -> bool:
    return is_unknown(reply) or reply.strip().strip(".").lower() in ("unknown", "모름", "없음")


def name_of(reply: str, question: str) -> bool:
    """Is `reply` a name a description resolved to: short (at most six words), not "unknown", not a bare date or
    number, and not the question's own words echoed?"""
    r = reply.strip()
    if not r or _unknown(r) or len(r.split()) > 6 or parse_number(r) is not None and not re.search(r"[^\d\s.,]", r):
        return False
    return squash(r) not in squash(question)


def decide(comparison: Comparison, lookups: list[Lookup]) -> Verdict:
    """The item at the asked-for end when both values are known and surely differ; else no verdict."""
    if any(lk.value is None for lk in lookups):
        return Verdict(comparison, lookups, None, "no value")
    if comparison.kind == "lifespan":
        return _decide_lifespan(comparison, lookups)
    keys = [lk.value for lk in lookups]
    if keys[0] == keys[1]:
        return Verdict(comparison, lookups, None, "tie")
    order = sorted(range(len(lookups)), key=lambda i: keys[i])
    pick = order[0] if comparison.direction == "min" else order[-1]
    other = order[-1] if comparison.direction == "min" else order[0]
    if comparison.kind == "date":
        first, last = (keys[pick], keys[other]) if comparison.direction == "min" else (keys[other], keys[pick])
        if not surely_before(first, last):
            return Verdict(comparison, lookups, None, "same year")
    hint = Order(comparison.kind, tuple((lookups[i].item, lookups[i].answer) for i in order),
                 tuple(keys[i] for i in order)).hint(comparison.lang)
    # chosen by a person in a role of each item: the answer is the item whose person it is
    answer = comparison.items[pick] if comparison.via else lookups[pick].item
    return Verdict(comparison, lookups, answer, "decided", hint)


def _decide_lifespan(comparison: Comparison, lookups: list[Lookup]) -> Verdict:
    """The one who lived longer (or shorter) when the two spans surely differ: by more than the days the dates
    leave open (a year when a month is missing, a month when a day is)."""
    lives = [parse_life(lk.answer) for lk in lookups]
    if any(life is None for life in lives):
        return Verdict(comparison, lookups, None, "no value")
    (a, slack_a), (b, slack_b) = lives  # type: ignore[misc]
    if abs(a - b) <= slack_a + slack_b:
        return Verdict(comparison, lookups, None, "too close")
    order = [0, 1] if a < b else [1, 0]
    pick = order[-1] if comparison.direction == "max" else order[0]
    ko = comparison.lang == "ko"
    spans = ", ".join(f"{lookups[i].item} ({lookups[i].answer.strip().rstrip('.')}: "
                      + (f"{lives[i][0]:.0f}년" if ko else f"{lives[i][0]:.0f} years") + ")"  # type: ignore[index]
                      for i in order)
    hint = f"산 기간, 짧은 순: {spans}" if ko else f"Lifespans, shortest first: {spans}"
    answer = comparison.items[pick] if comparison.via else lookups[pick].item
    return Verdict(comparison, lookups, answer, "decided", hint)


def parse_life(reply: str) -> tuple[float, float] | None:
    """(years lived, the years its dates leave open) from a reply that gives a birth and a death date, in that
    order ("8 October 1885 – 12 May 1960" -> (74.6, 0); "1885–1960" -> (75, 2)); None unless it gives exactly two
    dates, the second after the first."""
    dates = dates_in(reply)
    if len(dates) != 2:
        return None
    (y1, m1, d1), (y2, m2, d2) = dates
    if not m1 or not m2:
        years, slack = float(y2 - y1), 2.0  # each year leaves up to a year open
    else:
        years = (y2 - y1) + (m2 - m1) / 12 + ((d2 - d1) / 365.25 if d1 and d2 else 0.0)
        slack = 0.0 if d1 and d2 else 2 / 12
    if years <= 0:
        return None
    return round(years, 2), slack


def named_in(text: str, names: list[str]) -> list[str]:
    """The `names` that `text` names: one holds the other's letters, spaces and case aside."""
    t = squash(text)
    return [n for n in names if t and squash(n) and (squash(n) in t or t in squash(n))]


CHOOSE_PASSAGES = 2  # per item: its sub-question's best passages, which the value was read from


def choose(ctx: RunContext, parent: Node, verdict: Verdict) -> Verdict:
    """A choice the values left open ("tie", "no value", "same year") with both items named: one short read over
    both items' passages, the question and the two names; the answer is the one name the reply gives (why
    "chosen"). The verdict as it was when the reply names neither or both, or when an item has no name."""
    names = [lk.item for lk in verdict.lookups]
    if verdict.answer is not None or len(names) != 2 or verdict.why == "no name" or verdict.comparison.via:
        return verdict
    lang = verdict.comparison.lang
    p = PROMPTS[lang]
    question = fill(p.choose, question=verdict.comparison.question, a=names[0], b=names[1])
    node = parent.add(Node(question=question, kind="compare_item",
                           data={"compare_item": " / ".join(names), "choose": True}))
    ctx.emit(node)
    store = ctx.trace.passages if ctx.trace is not None else {}
    ids = list(dict.fromkeys(i for lk in verdict.lookups for i in lk.passage_ids[:CHOOSE_PASSAGES]))
    reply = read_choice(ctx, node, [store[i] for i in ids if i in store], lang, query=question)
    hits = named_in(reply, names)
    node.data["value"] = hits[0] if len(hits) == 1 else None
    ctx.emit(node)
    if len(hits) != 1:
        return verdict
    hint = verdict.hint or "; ".join(f"{lk.item}: {lk.answer}" for lk in verdict.lookups)
    return type(verdict)(verdict.comparison, verdict.lookups, hits[0], "chosen", hint)


def read_choice(ctx: RunContext, node: Node, passages: list[Passage], lang: str, query: str,
                purpose: str = "compare") -> str:
    """One short name read of `node`'s question (a choice that lists its options) over `passages` already
    retrieved, cut to the sentences most relevant to `query`: the reply, also set as the node's answer."""
    node.passage_ids = [x.id for x in passages]
    messages = PROMPTS[lang].name.messages(data_note=common_prompts.PROMPTS[lang].data_note,
                                           passages=format_passages(passages, max_chars=PASSAGE_CHARS, query=query),
                                           question=node.question)
    node.answer = plain_answer(ctx.llm.chat(node, purpose, messages, max_tokens=MAX_TOKENS))
    return node.answer


# -- the trace --------------------------------------------------------------------------------------------
def describe(node: Node, lang: str) -> list[Fact]:
    """An item's look-up node: the value read from its answer (a described item's node: the name it resolved to)."""
    value = node.data.get("value")
    ko = lang == "ko"
    if node.data.get("choose"):
        if not value:
            return [Fact("비교 항목" if ko else "item", "둘 중 하나를 고르지 못함" if ko else "picked neither")]
        return [Fact("비교 항목" if ko else "item", f"고른 이름: {value}" if ko else f"picked: {value}")]
    if node.data.get("resolve"):
        if not value:
            return [Fact("비교 항목" if ko else "item", "이름을 찾지 못함" if ko else "no name found")]
        return [Fact("비교 항목" if ko else "item", f"가리키는 이름: {value}" if ko else f"names: {value}")]
    if value is None:
        text = "비교할 값을 읽지 못함" if ko else "no value to compare"
    elif isinstance(value, list):
        text = (f"비교할 날짜: {format_date(value, lang)}" if ko else f"date to compare: {format_date(value, lang)}")
    elif node.data.get("lifespan"):
        text = f"산 기간: {value:g}년" if ko else f"years lived: {value:g}"
    else:
        text = f"비교할 수: {value:g}" if ko else f"number to compare: {value:g}"
    return [Fact("비교 값" if ko else "value", text)] + namesakes_left_out(node, lang)


def namesakes_left_out(node: Node, lang: str) -> list[Fact]:
    """The fact that an item's read left out its namesakes' pages, when it did."""
    dropped = node.data.get("namesakes_dropped")
    if not dropped:
        return []
    ko = lang == "ko"
    return [Fact("뺀 문서" if ko else "left out",
                 ("이름이 비슷한 다른 대상의 문서: " if ko else "namesakes' pages: ") + ", ".join(dropped))]


def format_date(value: list[int] | tuple[int, ...], lang: str) -> str:
    y, m, d = (list(value) + [0, 0, 0])[:3]
    if lang == "ko":
        return f"{y}년" + (f" {m}월" if m else "") + (f" {d}일" if d else "")
    return f"{y}-{m:02d}" + (f"-{d:02d}" if d else "") if m else str(y)
