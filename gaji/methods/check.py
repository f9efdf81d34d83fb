"""A yes/no or which-one question about two items, decided item by item.

"Are both Cynthia Mort and George Archainbaud American?", "Are David O. Russell and Tony Gatlif from the same
country?", "Which author is an economist, Czesław Miłosz or Bhabananda Deka?", "김현웅 전 법무부 장관과 김이수
헌법재판관은 둘 다 전라도 출신인가?", "…대통령과, …정치인은 같은 대학교를 나왔나?". Reading both items' passages in one
prompt, the 1.5B model says "yes" to most yes/no questions and picks either name of a which-one question. Asked of
one item at a time, with that item's own passages, it reads the one fact it is asked for well; code then combines
the reads, as compare.py does for a choice by a date or a number (ToQ's and ProbTree's per-item decomposition):

    both   ("둘 다", "모두", "both"): a yes/no read per item of the question asked of it alone ("Is Cynthia Mort
           American?"): yes when both say yes, no when one says no or when one says yes and the other item's
           passages say nothing of it ("unknown"), no verdict when neither read finds anything;
    same   ("같은 N", "the same N", "…은 같은가?"): a short read per item of the compared thing ("What is the country
           of Tony Gatlif?", "김희선은 몇 년에 광고로 연예계에 데뷔했나?"). Two dates are the same when their years are,
           two numbers when they are equal, two names when one holds the other's letters; two different names are
           put to the model in one short call ("Do "American" and "United States" name the same country?");
    which  ("Which author is an economist, A or B?", "A와 B 중 경제학자는 누구인가?": a choice with no order to
           compute): a yes/no read per item ("Which author is an economist? Is it Czesław Miłosz?"); the answer is
           the one item that fits, no verdict when both or neither do.

A described item ("2010년 서울시장 선거에서 오세훈에게 진 후보") is first resolved to the name it stands for
(compare.resolve_items). The verdict has compare.Verdict's shape, so auto takes it as it takes a comparison's.

    >>> c = parse_check("Are both Cynthia Mort and George Archainbaud American?", "en")
    >>> c.kind, c.items, c.sub_questions()
    ('both', ('Cynthia Mort', 'George Archainbaud'), ['Is Cynthia Mort American?', 'Is George Archainbaud American?'])
    >>> parse_check("김희선과 김태희는 같은 해에 광고로 연예계에 데뷔했나?", "ko").sub_questions()
    ['김희선은 몇 년에 광고로 연예계에 데뷔했나?', '김태희는 몇 년에 광고로 연예계에 데뷔했나?']
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from gaji.llm.prompts import fill
from gaji.methods import compare
from gaji.methods.base import RunContext
from gaji.methods.common import plain_answer
from gaji.methods.prompts.compare import PROMPTS
from gaji.methods.toq.comparative import direction
from gaji.methods.toq.order import parse_date, parse_number
from gaji.text.ko_phrases import entity_kind, is_modifier, particle
from gaji.text.normalize import squash
from gaji.types import Fact, Node

KINDS = ("both", "same", "which")
ANSWERS = {"en": ("yes", "no"), "ko": ("예", "아니오")}

# -- English ------------------------------------------------------------------------------------------------
_EN_AUX = {"are": "is", "were": "was", "is": "is", "was": "was", "do": "does", "does": "does", "did": "did",
           "have": "has", "has": "has"}
_AUX = r"(?P<aux>are|were|is|was|do|does|did|have|has)"
# "Are both A and B American?"
_EN_BOTH_FIRST = re.compile(r"^\s*" + _AUX + r"\s+both\s+(?P<pair>.+?)\s*\?*\s*$", re.I)
# "Are A and B both native to Asia?"
_EN_BOTH_AFTER = re.compile(r"^\s*" + _AUX + r"\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+both\s+(?P<rest>.+?)\s*\?*\s*$",
                            re.I)
# "Are A and B from the same country?", "Do the operas A and B contain that same number of acts?"
_EN_SAME = re.compile(r"^\s*" + _AUX + r"\s+(?:both\s+)?(?P<head>.+?)\s+(?:the|that)\s+same\s+(?P<what>[^?]+?)"
                      r"\s*\?*\s*$", re.I)
# words that may sit inside a name ("Song of the South", "Ariane et Barbe-bleue")
_EN_INNER = {"of", "the", "de", "del", "la", "le", "les", "du", "des", "von", "van", "der", "den", "da", "di", "et",
             "und", "y", "&", "a", "an", "for", "on", "–", "—", "-"}
_QUOTES = "\"“”'‘’"
_EN_PREPOSITION = re.compile(r"\b(?:by|from|in|of|at|on|to|with|for)$", re.I)
_EN_DATE_WHAT = re.compile(r"^(?:year|decade|date|day|month|century)$", re.I)
_EN_NUMBER_WHAT = re.compile(r"^number\s+of\s+(?P<m>.+)$", re.I)

# -- Korean -------------------------------------------------------------------------------------------------
_KO_AND = r"(?:와|과|하고|이랑|랑)"
_KO_SAME_END = r"(?:서로\s+)?같(?:은가요?|나요?|았나|을까|습니까|은지)\s*[?？]?\s*$"
# "A와 B는 둘 다 전라도 출신인가?"
_KO_BOTH = re.compile(r"^\s*(?P<a>.+?)" + _KO_AND + r",?\s+(?P<b>.+?)(?:은|는|이|가)\s+(?:둘\s*다|모두)\s+"
                      r"(?P<rest>.+?)\s*[?？]?\s*$")
# "A와 B는 같은 대학교를 나왔나?", "A와 B는 같은 해에 광고로 데뷔했나?"
_KO_SAME_VERB = re.compile(r"^\s*(?P<a>.+?)" + _KO_AND + r",?\s+(?P<b>.+?)(?:은|는|이|가)\s+(?:서로\s+)?같은\s+"
                           r"(?P<rest>.+?)\s*[?？]?\s*$")
# "A와 B의 RAM 용량은 같은가?"
_KO_SAME_OF = re.compile(r"^\s*(?P<a>.+?)" + _KO_AND + r",?\s+(?P<b>[^《》]+?)의\s+(?P<what>[^《》]+?)(?:은|는|이|가)\s+"
                         + _KO_SAME_END)
# "A가 …한 해와 B가 …한 해는 같은가?": the items are themselves the compared values
_KO_SAME_ITEMS = re.compile(r"^\s*(?P<a>.+?)" + _KO_AND + r",?\s+(?P<b>.+?)(?:은|는|이|가)\s+" + _KO_SAME_END)
_KO_YEAR = re.compile(r"^(?:해|연도|년도)(?:에|에는)?$")
_KO_WHEN_ITEM = re.compile(r"(?:해|연도|년도|날|날짜|때|시기)$")
_KO_OBJECT = re.compile(r"(?:을|를|에|에서|으로|로)$")


@dataclass(frozen=True)
class Check:
    """A yes/no or which-one question about two items (see the module doc)."""

    question: str
    lang: str
    items: tuple[str, str]  # as the question names or describes them
    kind: str  # both | same | which
    rest: str  # what is asked of one item: the predicate (both), the compared thing's clause (same), the question
    # without its choice (which)
    # how one item's "same" question is built (sub_question): "" the question's own clause ("A는 어느 대학교를
    # 나왔나?") | of ("What is the family of A?", "A의 RAM 용량은 무엇인가?") | verb ("Which company is A produced
    # by?") | when ("When was A released?", "…한 해는 언제인가?") | what ("…은 무엇인가?") | count ("How many acts
    # does A have?")
    form: str = ""
    what: str = ""  # same: the compared thing ("country", "대학교", "RAM 용량")
    value: str = "value"  # same: what one item's read gives: date | number | value (a name or a number)
    aux: str = ""  # English: the verb that opens one item's question ("Is", "Did"; "is"/"was" of the verb form)
    described: tuple[bool, bool] = (False, False)

    def sub_questions(self) -> list[str]:
        return [self.sub_question(item) for item in self.items]

    def sub_question(self, item: str) -> str:
        p = PROMPTS[self.lang]
        if self.kind == "which":
            return fill(p.fits, question=self.rest, item=item)
        if self.lang == "ko":
            t = particle(item, "은")
            if self.form == "of":
                return fill(p.value_of, item=item, what=self.what + particle(self.what, "은"))
            if self.form == "when":
                return fill(p.value_when, item=item + t)
            if self.form == "what":
                return fill(p.value_what, item=item + t)
            return f"{item}{t} {self.rest}?"
        if self.kind == "both":
            return f"{self.aux} {item} {self.rest}?"
        if self.form == "when":
            return fill(p.date_verb, item=item, verb=self.rest)
        if self.form == "count":
            return fill(p.number_count, item=item, measure=self.what)
        if self.form == "verb":
            return f"Which {self.what} {self.aux} {item} {self.rest}?"
        return fill(p.value_of, item=item, what=self.what)

    def resolve_question(self, item: str) -> str:
        p = PROMPTS[self.lang]
        kind = entity_kind(item) if self.lang == "ko" else ""
        template = p.resolve_where if kind == "place" else p.resolve_what if kind == "thing" else p.resolve_who
        return fill(template, item=item + particle(item, "은")) if self.lang == "ko" else fill(template, item=item)

    @property
    def read(self) -> str:
        """What one item's read asks for: "yesno", or the compared value's kind."""
        return "yesno" if self.kind in ("both", "which") else self.value

    def to_dict(self) -> dict[str, Any]:
        return {"items": list(self.items), "kind": self.kind, "what": self.what, "described": list(self.described)}


def parse_check(question: str, lang: str) -> Check | None:
    """The yes/no or which-one question `question` asks, when code can split it (see the module doc)."""
    q = " ".join(question.split())
    return _parse_ko(q) if lang == "ko" else _parse_en(q)


def _lead_name(words: list[str]) -> int:
    """How many of `words` make the name they start with: capitalised words (or a quoted title) and the small
    words between them ("Song of the South"); 0 when they start with no name."""
    if not words:
        return 0
    if words[0][:1] in _QUOTES:
        for i, w in enumerate(words):
            if (i > 0 or len(w) > 1) and w.rstrip("?,.")[-1:] in _QUOTES:
                return i + 1
        return 0
    n = 0
    while n < len(words):
        w = words[n]
        if w[:1].isupper() or w[:1].isdigit() or (n > 0 and w[:1] == "(" and w[1:2].isalnum()) or (
                n > 0 and words[n - 1][:1] == "(" and not words[n - 1].endswith(")")):
            n += 1
        elif w.lower() in _EN_INNER and n > 0 and n + 1 < len(words) and (words[n + 1][:1].isupper()
                                                                           or words[n + 1].lower() in _EN_INNER):
            n += 1
        else:
            break
    while n and words[n - 1].lower() in _EN_INNER:
        n -= 1
    return n


def _name_of_phrase(phrase: str) -> str:
    """An item as the question gives it, less a leading kind ("the flowering plants Ecballium" -> "Ecballium")."""
    words = phrase.strip(" ,").split()
    for i, w in enumerate(words):
        if w[:1].isupper() or w[:1].isdigit() or w[:1] in _QUOTES:
            return _strip_quotes(" ".join(words[i:]))
    return _strip_quotes(" ".join(words))


def _relation(prefix: str, vp: str) -> str:
    """The person the question asks about for each item, when it is not the item itself: "Do both directors of
    films A and B …", "Do both films A and B have the directors that …" -> "director"; "" otherwise."""
    m = _EN_REL_BEFORE.search(prefix) or _EN_REL_AFTER.search(vp)
    return m.group(1).lower() if m else ""


_EN_PEOPLE = r"(director|composer|author|writer|creator|producer|founder|performer|singer|father|mother|spouse)s?"
_EN_REL_BEFORE = re.compile(r"\b" + _EN_PEOPLE + r"\s+of\b", re.I)
_EN_REL_AFTER = re.compile(r"\bhave\s+(?:the\s+)?" + _EN_PEOPLE + r"\b", re.I)


def _with_relation(a: str, b: str, prefix: str, vp: str) -> tuple[tuple[str, str], tuple[bool, bool]]:
    """The items to check: the items themselves, or "the director of A" and "the director of B" (resolved to
    names first) when the question asks about a person of each."""
    rel = _relation(prefix, vp)
    if not rel:
        return (a, b), (False, False)
    return (f"the {rel} of {a}", f"the {rel} of {b}"), (True, True)


# a nationality's adjective, which may follow a name before the predicate's noun ("… Argentinian authors")
_EN_DEMONYM = re.compile(
    r"American|Argentinian|Argentine|Australian|Austrian|Belgian|Brazilian|British|Canadian|Chilean|Chinese|"
    r"Colombian|Danish|Dutch|Egyptian|English|Filipino|Finnish|French|German|Greek|Hungarian|Indian|Iranian|Irish|"
    r"Israeli|Italian|Japanese|Korean|Mexican|Nigerian|Norwegian|Pakistani|Persian|Peruvian|Polish|Portuguese|"
    r"Russian|Scottish|Spanish|Swedish|Swiss|Taiwanese|Thai|Turkish|Ukrainian|Vietnamese|Welsh")


def _strip_quotes(s: str) -> str:
    return s.strip(" ," + _QUOTES)


def _split_pair(pair: str) -> tuple[str, str, str] | None:
    """"Cynthia Mort and George Archainbaud American" -> ("Cynthia Mort", "George Archainbaud", "American"): the
    second name runs while its words are a name's; what follows is the predicate. A name that runs to the end
    leaves its last word as the predicate ("… and Tom Clancy American")."""
    if " and " not in pair:
        return None
    a, tail = pair.split(" and ", 1)
    words = re.sub(r"^the\s+", "", tail.strip(), flags=re.I).split()
    n = _lead_name(words)
    if n == 0:
        return None
    if n == len(words):
        if n < 2:
            return None
        n -= 1
    elif n >= 2 and _EN_DEMONYM.fullmatch(words[n - 1]):
        n -= 1  # "… and James Norman Hall Argentinian authors": the people's word opens the predicate
    return _name_of_phrase(a), _strip_quotes(" ".join(words[:n])), " ".join(words[n:])


def _parse_en(q: str) -> Check | None:
    if m := _EN_SAME.match(q):
        head, what = m.group("head"), m.group("what").strip().rstrip("?. ")
        split = _split_pair(head + " .")  # a sentinel: the verb after the second item may be missing
        if split is None:
            return None
        a, b, vp = split[0], split[1], split[2].rstrip(" .")
        if not (a and b) or squash(a) == squash(b):
            return None
        items, described = _with_relation(a, b, head.split(" and ", 1)[0], vp)
        if num := _EN_NUMBER_WHAT.match(what):
            return Check(q, "en", items, "same", vp, form="count", what=num.group("m"), value="number",
                         described=described)
        if _EN_DATE_WHAT.match(what):
            verb = re.sub(r"\s+(?:in|on|at|during)$", "", vp)
            if verb and compare._EN_PARTICIPLE.fullmatch(verb.split()[0]) and not any(described):
                return Check(q, "en", items, "same", verb.split()[0], form="when", what=what, value="date")
            return Check(q, "en", items, "same", vp, form="of", what=what, value="date", described=described)
        if vp and not any(described) and _EN_PREPOSITION.search(vp):
            # the question's own verb: "Which company was Aladdin produced by?", "Which country is A from?"
            be = "was" if m.group("aux").lower() in ("were", "was", "did") else "is"
            return Check(q, "en", items, "same", vp, form="verb", what=what, value="value", aux=be)
        return Check(q, "en", items, "same", vp, form="of", what=what, value="value", described=described)
    if m := _EN_BOTH_AFTER.match(q):
        a, b, rest = _name_of_phrase(m.group("a")), _strip_quotes(m.group("b")), m.group("rest").strip()
        prefix = m.group("a")
    elif m := _EN_BOTH_FIRST.match(q):
        split = _split_pair(m.group("pair"))
        if split is None:
            return None
        a, b, rest = split
        prefix = m.group("pair").split(" and ", 1)[0]
    else:
        return _parse_en_which(q)
    if not (a and b and rest) or squash(a) == squash(b):
        return None
    aux = _EN_AUX[m.group("aux").lower()]
    items, described = _with_relation(a, b, prefix, rest)
    if any(described):
        rest = _EN_REL_AFTER.sub("", rest).strip()
    return Check(q, "en", items, "both", rest, aux=aux.capitalize(), described=described)


def _parse_en_which(q: str) -> Check | None:
    """"Which author is an economist, A or B?" when no order is asked (compare.parse_comparison takes those)."""
    if compare._YES_NO_EN.match(q) or not compare._EN_CHOICE_START.match(q):
        return None
    if compare.parse_comparison(q, "en") is not None:
        return None
    m = compare._EN_TAIL.search(q)
    if not m:
        return None
    items = (compare._clean(m.group("a"), "en"), compare._clean(m.group("b"), "en"))
    asked = q[:m.start()].strip() + "?"
    if not all(items) or squash(items[0]) == squash(items[1]) or len(asked.split()) < 3 or _ordered(asked, "en"):
        return None
    if not compare.named_as_items(q, items, "en"):
        return None  # an item that is a description ("the director of Alien") is no name to check
    return Check(q, "en", items, "which", asked)


def _parse_ko(q: str) -> Check | None:
    if m := _KO_BOTH.match(q):
        return _ko_pair(q, m, "both", m.group("rest").strip())
    if m := _KO_SAME_VERB.match(q):
        rest = m.group("rest").strip()
        first, _, after = rest.partition(" ")
        if _KO_YEAR.match(first) and after:
            return _ko_pair(q, m, "same", f"몇 년에 {after}", what="해", value="date")
        what = _KO_OBJECT.sub("", first)
        return _ko_pair(q, m, "same", f"어느 {rest}", what=what, value="value")
    if m := _KO_SAME_OF.match(q):
        what = m.group("what").strip()
        if len(what.split()) > 3:
            return None
        return _ko_pair(q, m, "same", "", form="of", what=what, value="value")
    if m := _KO_SAME_ITEMS.match(q):
        a, b = m.group("a").strip(), m.group("b").strip()
        when = bool(_KO_WHEN_ITEM.search(a) and _KO_WHEN_ITEM.search(b))
        return _ko_pair(q, m, "same", "", form="when" if when else "what", value="date" if when else "value",
                        resolve=False)
    return _parse_ko_which(q)


def _ko_pair(q: str, m: re.Match, kind: str, rest: str, form: str = "", what: str = "", value: str = "value",
             resolve: bool = True) -> Check | None:
    if kind != "which" and _KO_WH.search(m.group(0)[m.end("b") - m.start(0):]):
        return None
    raw = (m.group("a").strip(), m.group("b").strip())
    described = tuple(resolve and compare._describes(r) for r in raw)
    items = compare.with_antecedent(tuple(compare._clean(r, "ko", described=d) for r, d in zip(raw, described)),
                                    described)
    if not all(items) or squash(items[0]) == squash(items[1]) or not (rest or form):
        return None
    return Check(q, "ko", items, kind, rest.rstrip("?？ "), form=form, what=what, value=value, described=described)


def _parse_ko_which(q: str) -> Check | None:
    """"A와 B 중 경제학자는 누구인가?" when no order is asked."""
    if compare.parse_comparison(q, "ko") is not None:
        return None
    m = next((x for x in (r.match(q) for r in compare._KO_CHOICES) if x), None)
    if not m:
        return None
    rest = m.group("rest").strip()
    if not re.search(r"누구|무엇|어느|어떤|어디|[은는]\s*[?？]?\s*$", rest) or _ordered(rest, "ko"):
        return None
    items = (m.group("a").strip(), m.group("b").strip())
    # two names ("강완구와 김이수 중"), not the set an intersection filters ("…오세훈과 맞붙은 경쟁자 가운데 …"), and
    # 중 as a word of its own ("김대중 대신" holds none)
    if q[m.end("b"):m.end("b") + 1] != " " or any(
            len(x.split()) > 3 or any(is_modifier(w) for w in x.split()) or re.search(r"(?:에서|에게|으로)(?:\s|$)", x)
            for x in items):
        return None
    return _ko_pair(q, m, "which", rest if rest.endswith(("?", "？")) else rest + "?", resolve=False)


def _ordered(text: str, lang: str) -> bool:
    """Does `text` ask for an order ("more", "더 빠른", "먼저")? A yes/no read of one item cannot answer that."""
    words = _KO_ORDER if lang == "ko" else _EN_ORDER
    return bool(words.search(text)) or any(direction(text, kind, lang) is not None for kind in ("date", "number"))


_KO_ORDER = re.compile(r"(?:^|\s)(?:더|가장|제일|먼저|나중에?)\s")
_EN_ORDER = re.compile(r"\b(?:more|most|less|least|fewer|fewest|first|last|earlier|later|further|farther|closer|"
                       r"closest|nearer|nearest|older|oldest|younger|youngest|taller|shorter|longer|bigger|larger|"
                       r"smaller|higher|lower)\b", re.I)
# a wh-word: the question asks for something, not yes or no ("…이 모두 이긴 나라는 어디인가?")
_KO_WH = re.compile(r"누가|누구|무엇|뭐|뭔|뭘|무슨|어디|어딘|언제|몇|며칠|어느|어떤|어떠|어떻|얼마|왜")
# a Korean question that asks yes or no: no wh-word, and a question ending ("…나왔나?", "…출신인가?", "…같은가요?")
_KO_YES_NO_END = re.compile(r"(?:나|가|까|니|냐|죠|요)\s*[?？]\s*$")


# -- reading and deciding -----------------------------------------------------------------------------------
def polarity(reply: str) -> bool | None:
    """A yes/no reply read: True (yes, 예, 네), False (no, 아니오), None (neither: unknown, or something else, such
    as "네덜란드")."""
    t = reply.strip().lstrip(_QUOTES + " *").lower()
    if re.match(r"(?:yes|yeah|true|correct)\b", t) or re.match(r"(?:예|네|맞(?:습니다|아요|다))(?=$|[\s,.!])", t):
        return True
    if re.match(r"(?:no|false)\b", t) or re.match(r"(?:아니(?:오|요|다|에요)?|아닙니다|아뇨)(?=$|[\s,.!])", t):
        return False
    return None


def asks_yes_no(question: str, lang: str) -> bool:
    """Does `question` ask yes or no ("Are both A and B American?", "A와 B는 같은 대학교를 나왔나?"), not which one
    ("Is A or B closer …?") and not a wh-question?"""
    q = " ".join(question.split())
    if lang == "ko":
        return not _KO_WH.search(q) and bool(_KO_YES_NO_END.search(q))
    return bool(compare._YES_NO_EN.match(q)) and not re.search(r"\bor\b", q, re.I)


def plain_yes_no(question: str, answer: str, lang: str) -> str | None:
    """The yes or no an answer to a yes/no question opens with, as the plain word ("네, 두 사람 모두 사법연수원
    16기입니다" -> "예"); None when the question asks something else or the answer opens with neither."""
    if not asks_yes_no(question, lang):
        return None
    p = polarity(answer)
    if p is None:
        return None
    yes, no = ANSWERS["ko" if lang == "ko" else "en"]
    return yes if p else no


class CheckVerdict(compare.Verdict):
    """compare.Verdict for a check: a yes/no answer agrees by its polarity and is worded as plain yes or no."""

    def agrees_with(self, answer: str) -> bool:
        if self.comparison.kind == "which":
            return super().agrees_with(answer)
        return self.answer is not None and polarity(answer) is not None and polarity(answer) == polarity(self.answer)

    def worded(self, answer: str) -> str:
        if self.comparison.kind == "which":
            return super().worded(answer)
        return self.answer or answer


def look_up(ctx: RunContext, parent: Node, check: Check, resolve: compare.Resolver | None = None) -> CheckVerdict:
    """Resolve the described items, read each item's answer or value (one child node of `parent` per item, run in
    parallel) and decide by code (a "same" question of two different names: one short call more)."""
    names, failed = compare.resolve_items(ctx, parent, check, resolve)
    if failed is not None:
        return CheckVerdict(check, [failed], None, "no name")
    lookups = [compare.Lookup(name, check.sub_question(name)) for name in names]
    nodes = [parent.add(Node(question=lk.question, kind="compare_item",
                             data={"compare_item": lk.item, "check": check.kind})) for lk in lookups]

    def read(pair: tuple[compare.Lookup, Node]) -> None:
        lk, node = pair
        lk.node_id = node.id
        lk.answer = compare.read_value(ctx, node, check.read, check.lang)
        lk.passage_ids = list(node.passage_ids)
        lk.value = _value(check, lk.answer)
        node.data["value"] = lk.json_value
        ctx.emit(node)

    ctx.map(read, list(zip(lookups, nodes)))

    what = check.what or ("것" if check.lang == "ko" else "thing")
    if check.lang == "ko":
        what += particle(what, "을")

    def judge(a: str, b: str) -> bool | None:
        node = parent.add(Node(question=fill(PROMPTS[check.lang].same.user, a=a, b=b, what=what),
                               kind="compare_item", data={"check": "same_judge"}))
        ctx.emit(node)
        messages = PROMPTS[check.lang].same.messages(a=a, b=b, what=what)
        node.answer = plain_answer(ctx.llm.chat(node, "compare", messages, max_tokens=4))
        node.data["value"] = polarity(node.answer)
        ctx.emit(node)
        return node.data["value"]

    return decide(check, lookups, judge)


def _value(check: Check, reply: str) -> Any:
    """What one read gives: True/False for a yes/no read; a date, a number or the words for a value; None when
    the read gives nothing."""
    if not reply or compare._unknown(reply):
        return None
    if check.read == "yesno":
        return polarity(reply)
    if check.read == "date":
        return parse_date(reply)
    if check.read == "number":
        return parse_number(reply)
    return reply.strip().rstrip(".")


def decide(check: Check, lookups: list[compare.Lookup],
           judge: Callable[[str, str], bool | None] | None = None) -> CheckVerdict:
    """The answer the per-item reads give (see the module doc); no verdict when a read gives nothing."""
    yes, no = ANSWERS[check.lang]
    values = [lk.value for lk in lookups]
    shown = "; ".join(f"{lk.item}: {lk.answer}" for lk in lookups)
    if check.kind == "both" and False in values:
        return CheckVerdict(check, lookups, no, "decided", shown)  # one "no" decides, whatever the other read
    if check.kind == "both" and True in values and any(_read_unknown(lk) for lk in lookups):
        # one item's passages say yes; the other item's own passages were read and say nothing of it. "Both" asks
        # for two facts, and only one is there: no. (The 1.5B reader answers yes to nearly every such question
        # when it reads both items at once, so the first answer is no evidence either way.) When neither read
        # finds anything the question's words likely missed the passages, and the verdict stays open.
        silent = next(lk.item for lk in lookups if _read_unknown(lk))
        said = (f"{silent}의 문단에는 그런 내용이 없음" if check.lang == "ko"
                else f"the passages of {silent} do not say so")
        return CheckVerdict(check, lookups, no, "one unconfirmed", f"{shown}; {said}")
    if any(v is None for v in values) and check.kind != "which":
        return CheckVerdict(check, lookups, None, "no value", shown)
    if check.kind == "both":
        return CheckVerdict(check, lookups, yes if all(values) else no, "decided", shown)
    if check.kind == "which":
        # the one item read as fitting: the other read "no", or found nothing that says it fits
        fits = [lk.item for lk in lookups if lk.value is True]
        if len(fits) != 1:
            return CheckVerdict(check, lookups, None, "both fit" if fits else "neither fits", shown)
        return CheckVerdict(check, lookups, fits[0], "decided", shown)
    same = same_value(values[0], values[1], check.what)
    if same is None and judge is not None:
        same = judge(str(values[0]), str(values[1]))
    if same is None:
        return CheckVerdict(check, lookups, None, "unsure", shown)
    return CheckVerdict(check, lookups, yes if same else no, "decided", shown)


def _read_unknown(lk: compare.Lookup) -> bool:
    """Did the item's read run over passages and say it found nothing ("unknown"), as opposed to failing or
    reading no passages at all?"""
    return lk.value is None and bool(lk.passage_ids) and bool(lk.answer) and compare._unknown(lk.answer)


def same_value(a: Any, b: Any, what: str = "") -> bool | None:
    """Are two read values the same: dates by their year, numbers by value (also when read with a unit: "4GB"),
    words when one holds the other's letters, or by the words that name the compared thing when both hold one
    ("부산대학교" and "이명박은 서울대학교를 나왔습니다" for 대학교: no); None for two other words (a judgement for
    the model, which calls those two the same university)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[0] == b[0]
    if isinstance(a, (tuple, int, float)) or isinstance(b, (tuple, int, float)):
        return None if isinstance(a, tuple) != isinstance(b, tuple) else a == b
    na, nb = parse_number(a), parse_number(b)
    if na is not None and nb is not None:
        return na == nb
    sa, sb = squash(a), squash(b)
    if sa and sb and (sa in sb or sb in sa):
        return True
    heads = [_headed(str(x), what) for x in (a, b)]
    if all(heads):
        return heads[0] == heads[1]
    return None


_KO_TRAILING_PARTICLE = re.compile(r"(?:에서|으로|을|를|이|가|은|는|의|에|로|와|과|도)$")


def _headed(value: str, what: str) -> str:
    """The word of `value` that is a `what` by its ending, a particle dropped ("서울대학교를" for 대학교; "" when
    none, or when the compared thing is not one glued word: "Harvard University" is read whole)."""
    w = squash(what)
    if len(w) < 2:
        return ""
    for word in value.split():
        core = squash(_KO_TRAILING_PARTICLE.sub("", word.strip(".,;:!?'\"")))
        if core.endswith(w) and len(core) > len(w):
            return core
    return ""


def describe(node: Node, lang: str) -> list[Fact]:
    """A check's node: what one item's read said (yes / no / the value), or the judgement of two values; and the
    namesakes' pages the read left out."""
    return _read_facts(node, lang) + compare.namesakes_left_out(node, lang)


def _read_facts(node: Node, lang: str) -> list[Fact]:
    ko = lang == "ko"
    value = node.data.get("value")
    if node.data.get("check") == "same_judge":
        text = ("같은 것을 가리킴" if ko else "the same") if value else (
            "다른 것을 가리킴" if ko else "not the same") if value is False else ("판단하지 못함" if ko else "unsure")
        return [Fact("비교 값" if ko else "value", text)]
    if isinstance(value, bool):
        return [Fact("확인" if ko else "check", ANSWERS[lang if lang in ANSWERS else "en"][0 if value else 1])]
    if value is None:
        return [Fact("확인" if ko else "check", "답을 읽지 못함" if ko else "no answer read")]
    if isinstance(value, list):
        return [Fact("비교 값" if ko else "value", compare.format_date(value, lang))]
    return [Fact("비교 값" if ko else "value", f"{value:g}" if isinstance(value, (int, float)) else str(value))]
