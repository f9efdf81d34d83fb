"""Which end of the order a comparison question asks for: the comparative words of each kind, in English and
Korean, and the readings that are not plain (None: the model answers)."""
import doctest

import pytest

from gaji.methods.toq import comparative
from gaji.methods.toq.comparative import direction


@pytest.mark.parametrize("question, kind, expected", [
    # dates, English
    ("Who was born first, Am Rong or Ava DuVernay?", "date", "min"),
    ("Which magazine was started earlier, Mirabella or Home Monthly?", "date", "min"),
    ("Which came first?", "date", "min"),
    ("Who is older, A or B?", "date", "min"),  # older = born earlier
    ("Which band is the oldest of A, B and C?", "date", "min"),
    ("Which film was released later, A or B?", "date", "max"),
    ("Which of A and B was published more recently?", "date", "max"),
    ("Who is the youngest: A, B or C?", "date", "max"),
    ("Which company is newer, A or B?", "date", "max"),
    ("Which album came out LAST, A or B?", "date", "max"),
    # dates, Korean
    ("박형식과 승리 중 누가 먼저 태어났나?", "date", "min"),
    ("A와 B 중 더 일찍 설립된 회사는?", "date", "min"),
    ("A와 B 중 더 오래된 절은?", "date", "min"),
    ("A와 B 중 나이가 더 많은 사람은?", "date", "min"),
    ("A와 B 중 나중에 개봉한 영화는?", "date", "max"),
    ("A와 B 중 더 최근에 나온 앨범은?", "date", "max"),
    ("A와 B 중 나이가 더 어린 사람은?", "date", "max"),
    # numbers, English
    ("Which city has more people, Busan or Incheon?", "number", "max"),
    ("Which is the largest of A, B and C?", "number", "max"),
    ("Which mountain is higher, A or B?", "number", "max"),
    ("Which river is longer, A or B?", "number", "max"),
    ("Who was older at the time, A or B?", "number", "max"),  # an age
    ("Which team has fewer players, A or B?", "number", "min"),
    ("Which is less populated, A or B?", "number", "min"),
    ("Which building is shorter, A or B?", "number", "min"),
    # numbers, Korean
    ("인천과 부산 중 인구가 더 많은 도시는?", "number", "max"),
    ("A와 B 중 가장 큰 호수는?", "number", "max"),
    ("A와 B 중 더 높은 산은?", "number", "max"),
    ("A와 B 중 더 적은 인원을 가진 팀은?", "number", "min"),
    ("A와 B 중 면적이 더 작은 나라는?", "number", "min"),
    ("A와 B 중 더 짧은 강은?", "number", "min"),
])
def test_plain_comparatives_give_their_end(question, kind, expected):
    assert direction(question, kind, "ko" if any("가" <= c <= "힣" for c in question) else "en") == expected


@pytest.mark.parametrize("question, kind, lang", [
    ("Which magazine is about fashion, A or B?", "date", "en"),  # no comparative
    ("Whose first album was released later, A or B?", "date", "en"),  # both directions
    ("Which film has more than one director, A or B?", "number", "en"),  # a filter
    ("Was A born earlier than B?", "date", "en"),  # yes/no comparison ("than"; an auxiliary first)
    ("Did A come before B?", "date", "en"),  # yes/no
    ("Which was founded before 1900, A or B?", "date", "en"),  # a date bound
    ("Which has at least 3 members, A or B?", "number", "en"),
    ("When was the older of A and B founded?", "date", "en"),  # asks for a value
    ("How many years older is A than B?", "number", "en"),
    ("In what year was the earlier of A and B founded?", "date", "en"),
    ("Which team is ranked higher, A or B?", "number", "en"),  # a rank: higher is the smaller number
    ("Who was the firstborn child, A or B?", "date", "en"),  # "first" is not in "firstborn" …
    ("Who was the first-born, A or B?", "date", "en"),  # … nor in "first-born"
    ("Whose last name is longer, A or B?", "date", "en"),  # "last name" is no comparative
    ("Which came first, A or B?", "number", "en"),  # "first" says nothing about a size
    ("A는 B보다 먼저 태어났나?", "date", "ko"),  # yes/no comparison
    ("A와 B 중 언제 더 먼저 설립되었나?", "date", "ko"),  # asks for a value
    ("A와 B 중 몇 년 먼저 태어났나?", "date", "ko"),
    ("1990년 이전에 태어난 사람은 A와 B 중 누구인가?", "date", "ko"),  # a date bound
    ("A와 B 중 인구가 100만 이상인 도시는?", "number", "ko"),  # a filter
    ("A와 B 중 먼저 창단했고 나중에 해체된 팀은?", "date", "ko"),  # both directions
    ("A와 B 중 가장 작품이 많은 감독은?", "number", "ko"),  # "가장 작품": a noun, not "작은"
    ("A와 B 중 순위가 더 높은 팀은?", "number", "ko"),  # a rank
    ("Which came first, A or B?", "date", "ko"),  # English words are not read as Korean
    ("The Last Samurai와 Avatar 중 개봉한 영화는?", "date", "ko"),  # … so an English title says nothing
])
def test_readings_that_are_not_plain_give_none(question, kind, lang):
    assert direction(question, kind, lang) is None


def test_unknown_kind_gives_none():
    assert direction("Who was born first, A or B?", "colour", "en") is None


def test_module_examples():
    assert doctest.testmod(comparative).failed == 0
