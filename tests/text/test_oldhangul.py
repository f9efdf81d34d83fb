import doctest
import unicodedata

from gaji.text import oldhangul
from gaji.text.normalize import normalize_text
from gaji.text.oldhangul import hanyang_table, pua_to_jamo

HAN = "\u1112\u119e\u11ab"  # ᄒᆞᆫ: hieuh, arae-a, nieun


def test_the_table_covers_the_hanyang_range():
    t = hanyang_table()
    assert len(t) == 5661 and min(t) == 0xE0BC and max(t) == 0xF8F7
    assert t[0xF53A] == HAN and t[0xE0BC] == "\u115f\u1161\u11ae"
    assert t[0xF86A] == ""  # a filler maps to nothing
    # every value is conjoining jamo (U+1100..11FF, Extended-A U+A960.., Extended-B U+D7B0..)
    ok = lambda c: "\u1100" <= c <= "\u11ff" or "\ua960" <= c <= "\ua97f" or "\ud7b0" <= c <= "\ud7ff"
    assert all(ok(c) for v in t.values() for c in v)


def test_old_hangul_is_mapped_and_survives_nfc():
    text = pua_to_jamo("본 문서는 \uf53a글 워드 프로세서")
    assert text == f"본 문서는 {HAN}글 워드 프로세서"
    assert normalize_text(text) == text and unicodedata.is_normalized("NFC", text)
    assert pua_to_jamo("나랏\ue1a7말") == "나랏\u1100\u119e말"  # ᄀᆞ


def test_other_text_is_left_alone():
    assert pua_to_jamo("plain ascii") == "plain ascii"
    assert pua_to_jamo("한글 \ue000 \uf8ff") == "한글 \ue000 \uf8ff"  # private use outside the Hanyang range


def test_docstring_example():
    assert doctest.testmod(oldhangul).failed == 0
