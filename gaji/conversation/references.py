"""References a follow-up question leans on, and the names they can stand for.

    refs = find_references("그 사람이 첫 세계 주니어 기록을 세운 날은?", "ko")
    refs[0].text, refs[0].kind, refs[0].particle        # "그 사람이", "person", "이"
    substitute(question, refs[0], "소토마요르")          # "소토마요르가 첫 세계 주니어 기록을 세운 날은?"
    candidates(history)                                 # names of the last turn: its answer's items, then its question's

A small model asked to rewrite a follow-up often hands it back unchanged or half-rewritten ("그 회사가 …"
left in). These helpers let the rewriter check its output and, where a reference is left, resolve it with a
narrow choice instead of free writing: a demonstrative ("그 사람", "그 회사", "거기", "he", "it"), an ordinal
("두 번째", "the second one") or, in Korean, a missing subject. Ordinals are resolved here by position; the
others are left to a choice among `candidates` (gaji/conversation/resolve.py).

Korean particles are re-chosen for the name put in ("그 사람이" -> "힘러가", "거기는" -> "금강산은"): the
final consonant (받침) of the name's last syllable decides 이/가, 은/는, 을/를, 과/와, 으로/로.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gaji.conversation.turns import Turn
from gaji.text.skeleton import names

# particles that may follow a Korean reference, longest first
_PARTICLES = ("에서는", "에서도", "에서", "에게", "으로", "이랑", "이나", "처럼", "보다", "까지", "부터",
              "은", "는", "이", "가", "을", "를", "의", "에", "도", "와", "과", "로", "랑", "나", "만")
_P = "|".join(_PARTICLES)
_KO_KINDS = ("사람|인물|선수|가수|배우|감독|작가|회사|기업|영화|드라마|밴드|그룹|곡|노래|앨범|게임|책|소설|작품|"
             "도시|나라|국가|지역|학교|대학|대회|팀|단체|건물|섬|산|강|절|사건|전쟁|해전|전투|프로그램|방송|제품")
_KO_ORDINALS = {"첫": 1, "두": 2, "세": 3, "네": 4, "다섯": 5}
_KO_REF = re.compile(
    rf"(?P<ord>(?:첫|두|세|네|다섯)\s*번째)(?:\s*(?:것|곳|{_KO_KINDS})(?P<p1>{_P})?(?=[\s?!.,]|$)"
    rf"|(?P<p0>{_P})(?=[\s?!.,]|$)|(?=[?!.,]|$))"
    rf"|(?P<place>거기|그곳|그 곳)(?P<p2>{_P})?(?=[\s?!.,]|$)"
    rf"|(?P<thing>그\s*(?:{_KO_KINDS}))(?P<p3>{_P})?(?=[\s?!.,]|$)"
    rf"|(?P<pron>그녀|그분|그)(?P<p4>의|는|가|를|에게|도|와|랑)(?=[\s?!.,]|$)"
)
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "former": 1, "latter": 2}
_EN_REF = re.compile(
    r"\bthe (?P<ord>first|second|third|fourth|former|latter)(?: one)?\b"
    r"|\b(?P<other>the other(?: one)?)\b"
    r"|\b(?P<pron>he|she|it|they|him|her|them|his|its|their|there)\b",
    re.I,
)
_EN_POSSESSIVE = {"his", "its", "their"}
# a Korean question is complete when it names something; these openers make a follow-up lean on the last turn
_KO_LEANING_START = re.compile(r"^(?:그럼|그러면|그리고|또|그 다음|그다음|그 중|그중)\b")
_CLAUSE = re.compile(r"[가-힣](?:은|는|이|가)\s|\b(?:is|are|was|were|in|at)\b", re.I)


@dataclass(frozen=True)
class Reference:
    text: str  # as written, particle included: "그 사람이", "거기는", "두 번째가", "he"
    start: int
    end: int
    kind: str  # "person" | "place" | "thing" | "ordinal" (English pronouns: "person"/"thing" unknown: "any")
    particle: str = ""  # the Korean particle after it ("" for none or English)
    ordinal: int = 0  # 1-based position for kind "ordinal"
    possessive: bool = False  # English "his"/"its"/"their": the name takes "'s"


def find_references(question: str, lang: str) -> list[Reference]:
    """The references in `question`, in order."""
    if lang == "ko":
        return [_ko_reference(m) for m in _KO_REF.finditer(question)]
    out = []
    for m in _EN_REF.finditer(question):
        if m.group("other"):
            out.append(Reference(m.group(0), m.start(), m.end(), "any"))
        elif m.group("ord"):
            out.append(Reference(m.group(0), m.start(), m.end(), "ordinal", ordinal=_EN_ORDINALS[m.group("ord").lower()]))
        else:
            word = m.group("pron").lower()
            kind = "place" if word == "there" else "person" if word in {"he", "she", "him", "her", "his"} else "any"
            out.append(Reference(m.group(0), m.start(), m.end(), kind, possessive=word in _EN_POSSESSIVE))
    return out


def _ko_reference(m: re.Match) -> Reference:
    if m.group("ord"):
        n = _KO_ORDINALS[m.group("ord").replace(" ", "")[:-2]]
        return Reference(m.group(0), m.start(), m.end(), "ordinal", m.group("p1") or m.group("p0") or "", ordinal=n)
    if m.group("place"):
        return Reference(m.group(0), m.start(), m.end(), "place", m.group("p2") or "")
    if m.group("thing"):
        person = re.search(r"사람|인물|선수|가수|배우|감독|작가", m.group("thing"))
        return Reference(m.group(0), m.start(), m.end(), "person" if person else "thing", m.group("p3") or "")
    return Reference(m.group(0), m.start(), m.end(), "person", m.group("p4") or "")


def leans_on_context(question: str, lang: str) -> bool:
    """A Korean follow-up that opens with "그럼"/"그리고"/…: it continues the last turn even with no reference."""
    return lang == "ko" and bool(_KO_LEANING_START.search(question.strip()))


def candidates(history: list[Turn], lang: str, limit: int = 6) -> list[str]:
    """What a reference can stand for: the last turn's answer (and its items, "무주와 평창" -> 무주, 평창),
    then the names in its question; each once, at most `limit`."""
    if not history:
        return []
    last = history[-1]
    out: list[str] = []
    answer = " ".join(last.answer.split())
    if answer and len(answer) <= 60:
        items = list_items(answer)
        out += items if len(items) > 1 else [answer]
    out += names(last.resolved, lang)
    seen, uniq = set(), []
    for c in out:
        key = c.strip().lower()
        if len(key) >= 2 and not key.isdigit() and key not in seen and len(c) <= 60:
            seen.add(key)
            uniq.append(c.strip())
    return uniq[:limit]


def list_items(text: str) -> list[str]:
    """The items of an enumeration: "무주와 평창" / "A, B and C" / "라이언 고슬링, 엠마 스톤"; [text] when none."""
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|및|그리고)\s+|(?<=[가-힣])(?:와|과)\s+", text.strip())
    parts = [p.strip(" .") for p in parts if p.strip(" .")]
    # items of a sentence ("경복궁은 서울, 한라산은 제주도") are clauses, not names: not a list
    names_only = all(len(p) <= 40 and not _CLAUSE.search(p) for p in parts)
    return parts if len(parts) > 1 and names_only else [text.strip()]


def ordinal_items(history: list[Turn], lang: str) -> list[str]:
    """The list an ordinal counts in: the last answer's items when it has several, else the two names of the
    last question ("Which came first, A or B?" -> [A, B]); [] when there is no such list."""
    if not history:
        return []
    items = list_items(" ".join(history[-1].answer.split()))
    if len(items) > 1:
        return items
    found = names(history[-1].resolved, lang)
    # "A or B" / "A와 B 중": two names; more are usually one name split up, not a list to count in
    return found if len(found) == 2 else []


def ordinal_name(ref: Reference, history: list[Turn], lang: str) -> str:
    """The item an ordinal reference counts to in ordinal_items(); "" when there is no such item."""
    items = ordinal_items(history, lang)
    return items[ref.ordinal - 1] if 0 < ref.ordinal <= len(items) else ""


def substitute(question: str, ref: Reference, name: str) -> str:
    """`question` with `ref` replaced by `name` (Korean particle re-chosen; English possessive kept)."""
    if ref.particle:
        new = name + fit_particle(name, ref.particle)
    elif ref.possessive:
        new = name + "'s"
    elif ref.kind == "place" and ref.text.lower() == "there":
        new = "in " + name
    else:
        new = name
    return question[: ref.start] + new + question[ref.end:]


def drop_opener(question: str) -> str:
    """A resolved Korean follow-up without its "그럼"/"그리고" opener (it no longer leans on anything)."""
    return _KO_LEANING_START.sub("", question.strip()).strip() or question


def with_topic(question: str, name: str) -> str:
    """A Korean question with its left-out subject put in front: "몇 년에 설립됐어?" -> "ESP는 몇 년에 설립됐어?";
    an opener such as "그럼" is dropped."""
    return f"{name}{fit_particle(name, '는')} {drop_opener(question)}"


_PAIRS = {"이": ("이", "가"), "가": ("이", "가"), "은": ("은", "는"), "는": ("은", "는"), "을": ("을", "를"),
          "를": ("을", "를"), "과": ("과", "와"), "와": ("과", "와"), "으로": ("으로", "로"), "로": ("으로", "로"),
          "이랑": ("이랑", "랑"), "랑": ("이랑", "랑"), "이나": ("이나", "나"), "나": ("이나", "나")}


def fit_particle(name: str, particle: str) -> str:
    """The form of `particle` that follows `name`: 이/가, 은/는, 을/를, 과/와, 으로/로 by its last syllable's
    final consonant (a name ending in a Latin letter or digit is read as ending in a vowel)."""
    if particle not in _PAIRS:
        return particle
    with_final, without = _PAIRS[particle]
    last = name.rstrip()[-1:] if name.strip() else ""
    if not ("가" <= last <= "힣"):
        return without
    final = (ord(last) - 0xAC00) % 28
    if particle in ("으로", "로") and final == 8:  # ㄹ takes 로
        return without
    return with_final if final else without
