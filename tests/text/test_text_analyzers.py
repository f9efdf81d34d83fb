"""Analysers (gaji.text.analyzers): Kiwi Korean content morphemes, English stemming/stopwords, routing."""
import pytest

from gaji.errors import IndexUnusableError
from gaji.text.analyzers import (
    BigramAnalyzer,
    EnglishAnalyzer,
    MultiAnalyzer,
    analyzer_from_name,
    default_analyzer,
    kiwi_available,
    stem,
)

needs_kiwi = pytest.mark.skipif(not kiwi_available(), reason="kiwipiepy not installed")


@pytest.mark.parametrize(
    "word,expected",
    [
        ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("agreed", "agre"), ("plastered", "plaster"),
        ("motoring", "motor"), ("hopping", "hop"), ("falling", "fall"), ("filing", "file"), ("happy", "happi"),
        ("relational", "relat"), ("conditional", "condit"), ("generalization", "gener"), ("hopeful", "hope"),
        ("goodness", "good"), ("adjustment", "adjust"), ("adoption", "adopt"), ("effective", "effect"),
        ("battles", "battl"), ("running", "run"), ("occurred", "occur"), ("controll", "control"),
        ("is", "is"), ("1944", "1944"),
    ],
)
def test_stemmer(word, expected):
    assert stem(word) == expected


def test_english_lowercase_stopwords_stem_possessive_accents():
    a = EnglishAnalyzer()
    assert a.analyze("Which battles occurred first, the Battle of Manila or the Battle of Guam?") == [
        "battl", "occur", "first", "battl", "manila", "battl", "guam"]
    assert a.analyze("Covey's book wasn't about Pokémon") == ["covei", "book", "pokemon"]
    assert a.analyze("the of and") == []


@needs_kiwi
def test_korean_example_keeps_content_morphemes():
    terms = default_analyzer().analyze("캐리비안의 해적 시리즈중 제일 관객수가 많은게 뭐야?")
    for t in ("캐리비안", "해적", "시리즈", "관객", "수"):
        assert t in terms
    for particle in ("의", "가", "은", "야", "?"):
        assert particle not in terms
    # multiword proper nouns are split (load_multi_dict=False): no term contains a space
    assert "캐리비안의 해적" not in terms and all(" " not in t for t in terms)


@needs_kiwi
def test_korean_with_english_and_numbers():
    terms = default_analyzer().analyze("BMW i5는 iPhone과 함께 KBO 리그에서 3.5배 많이 팔렸다.")
    assert {"bmw", "iphone", "kbo", "리그", "3.5", "배"} <= set(terms)
    assert "BMW" not in terms and "는" not in terms


@needs_kiwi
def test_mixed_routing_by_language():
    a = default_analyzer()
    assert a.analyze("김치는 배추로 만든다") == a.korean.analyze("김치는 배추로 만든다")
    assert a.analyze("Kimchi is made from cabbages") == ["kimchi", "made", "cabbag"]
    # an English text quoting a Korean word: the Korean word goes through Kiwi (particle dropped)
    assert a.analyze("The word 김치를 means kimchi in Korean text here") == ["word", "김치", "mean", "kimchi", "korean", "text"]
    many = list(a.analyze_many(["김치를 먹었다", "Eating kimchi"]))
    assert many == [a.analyze("김치를 먹었다"), a.analyze("Eating kimchi")]


def test_bigram_fallback():
    b = BigramAnalyzer()
    assert b.analyze("관객수가 BMW 해") == ["관객", "객수", "수가", "bmw", "해"]
    m = MultiAnalyzer(b)
    assert m.analyze("관객수") == ["관객", "객수"]
    assert default_analyzer("bigram").korean.name == b.name


def test_analyzer_names_roundtrip_and_unknown():
    a = default_analyzer()
    assert analyzer_from_name(a.name).name == a.name
    assert analyzer_from_name(default_analyzer("bigram").name).name == default_analyzer("bigram").name
    with pytest.raises(IndexUnusableError, match="gaji index build"):
        analyzer_from_name("multi(ko=something-else)")
