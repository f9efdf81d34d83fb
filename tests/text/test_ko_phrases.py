"""Korean phrase cues (gaji/text/ko_phrases.py): entity nouns, verb modifier forms and particle forms."""
from __future__ import annotations

import pytest

from gaji.text.analyzers import kiwi_available
from gaji.text.ko_phrases import ends_in_entity, entity_kind, is_modifier, modifier_flags, particle


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
