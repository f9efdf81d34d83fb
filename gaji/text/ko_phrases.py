"""What Korean code reads from a question's phrases without a parser: which words stand for a person, a place or a
thing, which word is a verb's modifier form, and which form a particle takes after a word. gaji/methods/compare.py
and gaji/methods/bridge.py read the entities a question describes ("…역을 맡은 배우", "…정책을 편 당시 서울시장") with these.

    >>> ends_in_entity("영화 《아가씨》에서 히데코 역을 맡은 배우"), is_modifier("맡은"), is_modifier("배우")
    (True, True, False)
    >>> particle("박형식", "는"), particle("승리", "을"), particle("IBM", "이")
    ('은', '를', '이(가)')
"""
from __future__ import annotations

import bisect
import re

# nouns that end a description of a person, a place or a thing
PERSON = ("배우", "가수", "사람", "인물", "감독", "작가", "음악가", "정치인", "대통령", "의원", "선수", "멤버", "후보", "판사",
          "장관", "왕비", "왕", "군인", "진행자", "아나운서", "프로듀서", "작곡가", "화가", "총재", "사무총장", "시장",
          "사령관", "논객", "재판관", "외교관", "학자", "유학자", "교수", "총리", "장군", "황제", "천황", "여왕", "국왕",
          "목사", "박사", "기자", "회장", "대표", "아들", "딸", "장녀", "장남", "아내", "남편", "동생", "남동생", "여동생",
          "주지사", "선교사", "개화파", "싱어송라이터")
PLACE = ("산", "도시", "나라", "국가", "섬", "지역", "곳", "지구", "관광지구", "마을", "대학", "대학교", "학교")
THING = ("방송사", "건설사", "신문사", "출판사", "회사", "기업", "단체", "프로그램", "드라마", "영화", "앨범", "노래", "곡",
         "그룹", "밴드", "정당", "팀", "구단", "기선", "건물", "게임", "소설", "작품", "잡지")
# particles a word of a description ends in ("…의 맏아들", "…을 작곡한")
PARTICLES = ("의", "을", "를", "에서", "에게", "로", "으로")
_EDGE = "'\"‘’“”,"
# the particles of a verb's arguments: a one-syllable word after one is a verb, not a noun
ARGUMENT_PARTICLES = ("에게", "에게서", "을", "를", "에서", "으로", "로", "이", "가")
# endings that close in ㄴ or ㄹ yet modify no noun: conditionals and topic-marked adverbials
NOT_MODIFIERS = ("면", "서는", "에는", "로는", "와는", "과는", "고는", "지만")


# the ending of a word that closes a question ("…데뷔했나", "…용어인가", "…할까요", "…했는지"): what a reply that
# asks back ends in (gaji.methods.reask.asks_back), and what differs between a question's last word and the same word
# told (gaji.methods.span.filled_in)
ASKING_END = re.compile(r"(?:인가요|인가|인지|는지|는가|은가|나요|나|까요|까|니|냐)$")


# particles whose form follows the word before them: (after a final consonant, after a vowel); 으로/로 also
# follows it, but not by the final consonant alone (서울로), so `particle` leaves it as it is
PARTICLE_FORMS = {"은": ("은", "는"), "는": ("은", "는"), "이": ("이", "가"), "가": ("이", "가"), "을": ("을", "를"),
                  "를": ("을", "를"), "과": ("과", "와"), "와": ("과", "와")}


def particle(word: str, p: str) -> str:
    """`p` in the form `word` takes: 은/는, 이/가, 을/를, 과/와 by whether its last syllable closes in a consonant;
    both forms ("은(는)") after a word that does not end in Hangul; any other particle as it is."""
    if p not in PARTICLE_FORMS:
        return p
    closed, open_ = PARTICLE_FORMS[p]
    last = word.rstrip()[-1:]
    if not ("가" <= last <= "힣"):
        return f"{closed}({open_})"
    return closed if (ord(last) - 0xAC00) % 28 else open_


def ends_in_entity(text: str) -> bool:
    """Does `text` end in a noun for a person, a place or a thing?"""
    return text.rstrip().endswith(PERSON + PLACE + THING)


def entity_kind(text: str) -> str:
    """"person", "place" or "thing" by the noun `text` ends in ("thing" when it names none)."""
    t = text.rstrip()
    return "person" if t.endswith(PERSON) else "place" if t.endswith(PLACE) else "thing"


def is_modifier(word: str) -> bool:
    """A verb's modifier form ("편", "맡은", "숨진", "알린"): a word of Hangul only whose last syllable ends in ㄴ or
    ㄹ and that is neither a particle-ended word nor a connective ("실재했다면", "위해서는": no noun follows)."""
    w = word.strip(_EDGE)
    if not w or w.endswith(PARTICLES) or not all("가" <= ch <= "힣" for ch in w):  # "2010년" is no verb
        return False
    if w.endswith(NOT_MODIFIERS):
        return False
    last = w[-1]
    return "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 in (4, 8)


def modifier_flags(words: list[str]) -> list[bool]:
    """For each of a sentence's words, is it a verb's modifier form? Read in context by kiwipiepy (a word whose last
    morpheme is a modifier ending, ETM: "정책을 편* 당시", "건너갈* 때 탄* 일본 기선"; out of context "편", "탄" read
    as nouns), else word by word with `is_modifier`."""
    from gaji.text.analyzers import kiwi_available, kiwi_tokens

    if not words or not kiwi_available():
        return [is_modifier(w) for w in words]
    text, starts = "", []
    for w in words:
        starts.append(len(text))
        text += w + " "
    last_tag: dict[int, str] = {}
    for t in kiwi_tokens(text) or []:
        i = bisect.bisect_right(starts, t.start) - 1
        if i >= 0:
            last_tag[i] = t.tag
    # a one-syllable modifier after a verb's argument ("나경원에게 진* 의원") that kiwipiepy reads as a noun
    return [last_tag.get(i) == "ETM" or (len(w.strip(_EDGE)) == 1 and is_modifier(w) and i > 0
                                         and words[i - 1].strip(_EDGE).endswith(ARGUMENT_PARTICLES))
            for i, w in enumerate(words)]


# a person named with a title or role ("윤정훈 목사", "김현웅 전 법무부 장관", "배우 김을동"): the title is how a question
# or a passage refers to them, not part of the name
_TITLES = (r"목사|신부|스님|판사|검사|변호사|대통령|총리|장관|국회의원|의원|교수|박사|감독|선수|회장|사장|대표|위원장|"
           r"시장|도지사|지사|헌법재판관|재판관|대법관|작가|화백")
# an office's body between the name and the title ("법무부", "서울시", "국민의힘"): a word ending like one
_BODY = r"[가-힣]+(?:부|처|청|원|회|당|시|도|군|구)"
_NAME_TITLED = re.compile(r"^(?P<name>[가-힣]{2,4})\s+(?:(?:전|현)\s+)?(?:" + _BODY + r"\s+)?(?:" + _TITLES + r")$")
_ROLE_NAMED = re.compile(r"^(?:배우|가수|감독|작가|시인|화가|목사|판사|선수|기자|소설가)\s+(?P<name>[가-힣]{2,4})$")
# a question that asks for a person: "누가", "누구", or its asked noun is a person's ("…앉혀진 인물은?")
_ASKS_WHO = re.compile(r"누가|누구")
_LAST_WORD = re.compile(r"(\S+?)(?:은|는|이|가|을|를)?\s*[?？]?\s*$")


def asks_for_person(question: str) -> bool:
    """Does a Korean question ask for a person?"""
    if _ASKS_WHO.search(question):
        return True
    m = _LAST_WORD.search(question.strip())
    return bool(m) and entity_kind(m.group(1)) == "person"


def without_title(answer: str) -> str:
    """A person's name without the title or role given with it ("윤정훈 목사" -> "윤정훈", "배우 김을동" -> "김을동");
    any other answer as it is."""
    a = answer.strip()
    m = _NAME_TITLED.match(a) or _ROLE_NAMED.match(a)
    return m.group("name") if m else answer
