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
    routing_note,
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
    # Latin words and numbers in Korean text are analysed as in English text (stemmed, split at the point)
    assert {"bmw", "i5", "iphon", "kbo", "리그", "3", "5", "배"} <= set(terms)
    assert "BMW" not in terms and "는" not in terms and "과" not in terms


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


# -- routing by script: the same word gives the same term in a Korean and in an English text ------------------------
KO_WITH_EN = "허깅페이스의 Transformers 라이브러리는 Running 중인 모델을 iPhone과 Pokémon 카드 앱에서 불러온다."
EN_WITH_KO = "The Seoul restaurant serves 김치찌개를 and 된장찌개 every day, says the 주인."


@needs_kiwi
@pytest.mark.parametrize("korean", ["kiwi", "bigram"])
def test_english_words_in_korean_text_get_the_english_terms(korean):
    a = default_analyzer(korean)
    chunk = set(a.analyze(KO_WITH_EN))
    for query in ("transformer", "transformers", "run", "running", "iPhones", "pokemon"):
        terms = a.analyze(query)
        assert terms and set(terms) <= chunk, (query, terms, chunk)
    assert "the" not in a.analyze("The 모델은 좋다")  # English stopwords go in Korean text too


@needs_kiwi
@pytest.mark.parametrize("korean", ["kiwi", "bigram"])
def test_korean_words_in_english_text_get_the_korean_terms(korean):
    a = default_analyzer(korean)
    chunk = set(a.analyze(EN_WITH_KO))
    for query in ("김치찌개", "된장찌개 주인", "김치찌개를 파는 주인"):
        terms = [t for t in a.analyze(query) if t not in ("파", "팔", "파는", "는")]  # (the verb is not in the chunk)
        assert terms and set(terms) <= chunk, (query, terms, chunk)
    # and an English query containing Korean, a Korean query containing English
    assert set(a.analyze("restaurant 김치찌개")) <= chunk
    assert set(a.analyze("트랜스포머 Transformers 라이브러리")) & set(a.analyze(KO_WITH_EN)) >= {"transform"}


@needs_kiwi
def test_each_token_by_its_script_not_by_the_texts_language():
    a = default_analyzer()
    # the detected language of the whole text no longer decides anything: one Latin word gets one term
    assert a.analyze("Transformers") == a.analyze("트랜스포머 트랜스포머 트랜스포머 Transformers")[-1:] == ["transform"]
    assert a.analyze("iPhone과") == ["iphon"] and a.analyze("#김치 https://example.com") == ["김치", "http", "exampl", "com"]
    assert list(a.analyze_many([KO_WITH_EN, EN_WITH_KO], ["en", "ko"])) == [
        a.analyze(KO_WITH_EN), a.analyze(EN_WITH_KO)]  # (a language passed in is ignored)


@needs_kiwi
def test_indexes_built_routing_by_language_keep_that_analysis():
    legacy = MultiAnalyzer(default_analyzer().korean, routing="lang")
    assert legacy.name.startswith("multi(") and legacy.name != default_analyzer().name
    again = analyzer_from_name(legacy.name)
    assert again.routing == "lang" and again.analyze(KO_WITH_EN) == legacy.analyze(KO_WITH_EN)
    assert "transformers" in again.analyze(KO_WITH_EN)  # the old terms: Latin words in Korean text unstemmed
    old_bigram = MultiAnalyzer(BigramAnalyzer(), routing="lang")
    assert analyzer_from_name(old_bigram.name).routing == "lang"
    with pytest.raises(ValueError):
        MultiAnalyzer(BigramAnalyzer(), routing="language")


def test_only_an_analyser_routing_by_language_gets_the_rebuild_note():
    for korean in (BigramAnalyzer(), *((default_analyzer("kiwi").korean,) if kiwi_available() else ())):
        assert routing_note(MultiAnalyzer(korean).name) is None
        note = routing_note(MultiAnalyzer(korean, routing="lang").name)
        assert "rebuild" in note and "English words inside Korean text" in note and "\n" not in note
    assert routing_note(None) is None  # no BM25 part
