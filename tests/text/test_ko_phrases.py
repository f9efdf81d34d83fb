"""Korean phrase cues (gaji/text/ko_phrases.py): entity nouns, verb modifier forms and particle forms."""
from __future__ import annotations

import pytest

from gaji.text.analyzers import kiwi_available
from gaji.text.ko_phrases import (ASKING_END, asks_for_person, ends_in_entity, entity_kind, is_modifier, modifier_flags, particle,
                                  without_title)


@pytest.mark.parametrize("word, expected", [
    ("맡은", True), ("편", True), ("숨진", True), ("알린", True), ("나선", True), ("진행할", True),
    ("배우", False), ("오디션을", False), ("방탄소년단의", False), ("2010년", False), ("IBM", False), ("", False),
    ("실재했다면", False), ("위해서는", False),  # a conditional, a topic-marked adverbial: no noun follows
])
def test_a_modifier_form_ends_in_n_or_l_and_is_no_particle_word(word, expected):
    assert is_modifier(word) is expected


def test_entities_by_their_last_noun():
    assert ends_in_entity("…정책을 편 당시 서울시장") and entity_kind("…정책을 편 당시 서울시장") == "person"
    assert entity_kind("…숨진 관광지구가 있는 산") == "place" and entity_kind("…방영한 방송사") == "thing"
    assert not ends_in_entity("노아의 방주") and entity_kind("노아의 방주") == "thing"


@pytest.mark.skipif(not kiwi_available(), reason="kiwipiepy not installed")
def test_modifiers_are_read_in_context():
    words = "정책을 편 당시 서울시장이 일본으로 건너갈 때 탄 기선".split()
    assert [w for w, m in zip(words, modifier_flags(words)) if m] == ["편", "건너갈", "탄"]
    # a noun that ends in ㄹ is no modifier in context; a one-syllable verb after its argument is
    words = "특유의 지질 활동과 같이 나경원에게 진 의원이".split()
    assert [w for w, m in zip(words, modifier_flags(words)) if m] == ["진"]


@pytest.mark.parametrize("word, p, form", [
    ("박형식", "는", "은"), ("승리", "은", "는"), ("박근혜", "이", "가"), ("서울시장", "가", "이"), ("세운상가", "을", "를"),
    ("알렉산더 헤이그", "를", "를"), ("닉슨", "와", "과"), ("ESP", "은", "은(는)"), ("IBM", "이", "이(가)"),
    ("IBM", "을", "을(를)"), ("헤이그", "의", "의"), ("헤이그", "에게", "에게"),
])
def test_a_particle_takes_the_form_its_words_last_syllable_asks_for(word, p, form):
    assert particle(word, p) == form


@pytest.mark.parametrize("answer,name", [
    ("윤정훈 목사", "윤정훈"), ("김현웅 전 법무부 장관", "김현웅"), ("김영삼 전 대통령", "김영삼"), ("배우 김을동", "김을동"),
    ("김이수 헌법재판관", "김이수"), ("오세훈 변호사", "오세훈"),
    # a two-word name is no name and a body: as it is
    ("로널드 레이건 대통령", "로널드 레이건 대통령"),
    # no title, or not a person's: as it is
    ("쇼와 천황", "쇼와 천황"), ("알렉산더 헤이그", "알렉산더 헤이그"), ("갤럭시 S8", "갤럭시 S8"), ("티베트 고원", "티베트 고원"),
    ("유다 왕국의 왕 아몬", "유다 왕국의 왕 아몬"), ("미국 텔레비전 시스템 위원회", "미국 텔레비전 시스템 위원회"),
])
def test_a_person_is_named_without_the_title_given_with_them(answer, name):
    assert without_title(answer) == name


@pytest.mark.parametrize("question,person", [
    ("윤정훈 목사와 '미네르바' 박대성 중 누가 먼저 태어났나?", True),
    ("…1894년 일본에 의해 총리대신 자리에 앉혀진 인물은?", True),
    ("드라마 《육룡이 나르샤》에 출연한 배우 가운데 청룡영화상 남우주연상을 받은 사람은?", True),
    ("2006년 서울시장 선거에서 당선된 후보의 출신 대학은?", False),
    ("영화 《아가씨》에서 히데코 역을 맡은 배우가 부일영화상 여우주연상을 받은 영화는?", False),
])
def test_a_question_asks_for_a_person_by_who_or_its_asked_noun(question, person):
    assert asks_for_person(question) is person


@pytest.mark.parametrize("word, stem", [("데뷔했나", "데뷔했"), ("용어인가", "용어"), ("용어인가요", "용어"),
                                        ("숨겼는지", "숨겼"), ("할까요", "할"), ("한계인지", "한계")])
def test_the_asking_ending_is_cut_whole(word, stem):
    assert ASKING_END.sub("", word) == stem


@pytest.mark.parametrize("word", ["용어입니다", "데뷔했다", "고대", "하나님"])
def test_a_telling_word_has_no_asking_ending(word):
    assert not ASKING_END.search(word)
