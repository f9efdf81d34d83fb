"""Language by script: the share of Hangul letters, and a caller's stated language winning over detection."""
from gaji.text.lang import detect_lang, hangul_ratio, has_hangul, resolve_lang


def test_korean_with_latin_names_is_korean():
    assert detect_lang("BMW i5와 KBO 리그의 관계는?") == "ko"


def test_english_with_one_korean_word_is_english():
    assert detect_lang("Which dynasty issued the Hunminjeongeum (훈민정음)?") == "en"


def test_no_letters_is_english_and_ratio_zero():
    assert hangul_ratio("1443 — 1446") == 0.0
    assert detect_lang("1443") == "en"
    assert not has_hangul("")


def test_stated_language_wins_over_the_text():
    assert resolve_lang("en", "훈민정음은 몇 년에 반포되었나요?") == "en"
    assert resolve_lang("ko", "When was it issued?") == "ko"


def test_unstated_or_unsupported_language_is_detected():
    for lang in (None, "", "auto", "ja"):
        assert resolve_lang(lang, "훈민정음은 몇 년에 반포되었나요?") == "ko"
        assert resolve_lang(lang, "When was it issued?") == "en"
