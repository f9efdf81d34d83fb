"""References in follow-up questions (Korean and English), their candidates, and substitution with the
Korean particle re-chosen for the name put in."""
from __future__ import annotations

import pytest

from gaji.conversation.references import (candidates, drop_opener, find_references, fit_particle, list_items,
                                          ordinal_items, substitute, with_topic)
from gaji.conversation.turns import Turn


@pytest.mark.parametrize("question,expected", [
    ("그 사람이 첫 세계 주니어 기록을 세운 날은?", [("그 사람이", "person", "이", 0)]),
    ("그의 어릴 적 이름은?", [("그의", "person", "의", 0)]),
    ("거기는 보통 어떻게 나뉘어?", [("거기는", "place", "는", 0)]),
    ("그 회사가 미국에 리페어 샵을 세운 때는?", [("그 회사가", "thing", "가", 0)]),
    ("그럼 두 번째가 주 개최지로 선정된 날은?", [("두 번째가", "ordinal", "가", 2)]),
    ("첫 번째 도시는 어떤 대회를 개최했었어?", [("첫 번째 도시는", "ordinal", "는", 1)]),
    # an ordinal that counts something new is no reference; "그럼"/"그래서" are not the pronoun 그
    ("그 게임에 새로 나오는 세 번째 종족은?", [("그 게임에", "thing", "에", 0)]),
    ("그럼 가을에는?", []),
    ("그래서 독도의 면적은 얼마야?", []),
])
def test_korean_references(question, expected):
    got = [(r.text, r.kind, r.particle, r.ordinal) for r in find_references(question, "ko")]
    assert got == expected


def test_english_references():
    got = [(r.text, r.kind, r.ordinal) for r in find_references("How many died in the first one?", "en")]
    assert got == [("the first one", "ordinal", 1)]
    got = [(r.text, r.kind, r.possessive) for r in find_references("What was their debut album?", "en")]
    assert got == [("their", "any", True)]
    assert find_references("When did the Battle of Guam end?", "en") == []
    assert [r.text for r in find_references("What about the other one?", "en")] == ["the other one"]


@pytest.mark.parametrize("name,particle,expected", [
    ("소토마요르", "이", "가"), ("힘러", "은", "는"), ("금강산", "는", "은"), ("평창", "가", "이"),
    ("ESP", "은", "는"), ("서울", "으로", "로"), ("부산항", "로", "으로"), ("라라랜드", "의", "의"),
])
def test_particles_follow_the_last_syllable(name, particle, expected):
    assert fit_particle(name, particle) == expected


def test_substitution_puts_the_name_in_with_its_particle():
    q = "그 사람이 첫 세계 주니어 기록을 세운 날은?"
    assert substitute(q, find_references(q, "ko")[0], "소토마요르") == "소토마요르가 첫 세계 주니어 기록을 세운 날은?"
    q = "거기는 보통 어떻게 나뉘어?"
    assert substitute(q, find_references(q, "ko")[0], "금강산") == "금강산은 보통 어떻게 나뉘어?"
    q = "How bright was his lamp?"
    assert substitute(q, find_references(q, "en")[0], "Aimé Argand") == "How bright was Aimé Argand's lamp?"
    q = "What is the population there?"
    assert substitute(q, find_references(q, "en")[0], "Hong Kong") == "What is the population in Hong Kong?"
    assert with_topic("그럼 몇 년에 설립됐어?", "ESP") == "ESP는 몇 년에 설립됐어?"
    assert drop_opener("그럼 평창이 선정된 날은?") == "평창이 선정된 날은?"


def test_lists_and_candidates():
    assert list_items("무주와 평창") == ["무주", "평창"]
    assert list_items("라이언 고슬링, 엠마 스톤") == ["라이언 고슬링", "엠마 스톤"]
    assert list_items("Hangul and Kana") == ["Hangul", "Kana"]
    # an answer made of clauses is not a list of names
    assert list_items("경복궁은 서울, 한라산은 제주도") == ["경복궁은 서울, 한라산은 제주도"]
    h = [Turn("2010년 동계 올림픽 유치를 두고 경쟁한 국내 두 도시는?", "무주와 평창")]
    assert ordinal_items(h, "ko") == ["무주", "평창"]
    h = [Turn("Which battle occurred first, the Battle of Manila or the Battle of Guam?", "Battle of Guam")]
    assert ordinal_items(h, "en") == ["Battle of Manila", "Battle of Guam"]
    c = candidates([Turn("아이케 장군의 복귀를 단호히 거절한 사람은?", "하인리히 힘러")], "ko")
    assert c[0] == "하인리히 힘러"
    assert candidates([], "ko") == []
