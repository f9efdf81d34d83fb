"""Korean phrase cues (gaji/text/ko_phrases.py): entity nouns and verb modifier forms."""
from __future__ import annotations

import pytest

from gaji.text.ko_phrases import ends_in_entity, entity_kind, is_modifier


@pytest.mark.parametrize("word, expected", [
    ("맡은", True), ("편", True), ("숨진", True), ("알린", True), ("나선", True), ("진행할", True),
    ("배우", False), ("오디션을", False), ("방탄소년단의", False), ("2010년", False), ("IBM", False), ("", False),
])
def test_a_modifier_form_ends_in_n_or_l_and_is_no_particle_word(word, expected):
    assert is_modifier(word) is expected


def test_entities_by_their_last_noun():
    assert ends_in_entity("…정책을 편 당시 서울시장") and entity_kind("…정책을 편 당시 서울시장") == "person"
    assert entity_kind("…숨진 관광지구가 있는 산") == "place" and entity_kind("…방영한 방송사") == "thing"
    assert not ends_in_entity("노아의 방주") and entity_kind("노아의 방주") == "thing"
