"""Keyword metadata filtering (gaji.retrieve.keyword_filter: bm25+kwf / dense+kwf / hybrid+kwf)."""
import pytest

from fakes_expand import expanded_keyword_index
from gaji.errors import ConfigError
from gaji.expand.chunk_keywords import write_chunk_keywords


def words(q):  # a keyword function for tests: keywords are the words marked with *
    return [w.strip("*?") for w in q.split() if w.startswith("*")]


@pytest.fixture
def idx(tmp_path):
    i = expanded_keyword_index(tmp_path / "i")
    yield i
    i.close()


def test_soft_filter_moves_matching_chunks_first_and_keeps_k(idx):
    base = [p.id for p in idx.retriever("bm25").search("apple harvest orchard", 3)]
    assert base[0] == "b"
    r = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["pie"], field="expansion")
    got = r.search("apple harvest orchard", 3)
    ids = [p.id for p in got]
    assert ids[0] == "a" and len(ids) == 3 and set(ids) <= {"a", "b", "c"}
    assert got[0].metadata["keyword_match"] is True and got[1].metadata["keyword_match"] is False
    assert [p.rank for p in got] == [1, 2, 3] and got[0].source == "bm25+kwf"
    assert r.last_filter["matched"] == 1 and r.last_filter["keywords"] == ["pie"]


def test_hard_filter_returns_only_matches(idx):
    r = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["pie"], field="expansion", mode="hard")
    assert [p.id for p in r.search("apple harvest orchard", 3)] == ["a"]
    # every term of a keyword must be in the metadata: "cherry harvest" matches no chunk
    r2 = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["cherry harvest"], field="expansion", mode="hard")
    assert r2.search("apple", 3) == []


def test_no_keywords_means_no_filter(idx):
    r = idx.retriever("bm25+kwf", keyword_fn=lambda q: [], mode="hard")
    base = [p.id for p in idx.retriever("bm25").search("apple", 3)]
    got = r.search("apple", 3)
    assert [p.id for p in got] == base and got[0].metadata["keyword_match"] is None
    assert r.last_filter["matched"] is None


def test_text_field_is_a_lexical_must_match(idx):
    r = idx.retriever("dense+kwf", keyword_fn=lambda q: ["cherry"], field="text", mode="hard")
    assert [p.id for p in r.search("fruit", 4)] == ["c"]


def test_korean_keywords_match_through_the_analyzer(idx):
    r = idx.retriever("hybrid+kwf", keyword_fn=lambda q: ["미세먼지"], field="expansion", mode="hard")
    assert [p.id for p in r.search("경보 발령 기준", 4)] == ["d"]


def test_auto_field_uses_the_chunk_keywords_file_once_there_is_one(idx):
    kw = {"How do you bake apple pie?": ["apple pie"], "What sugar goes into pie?": ["sugar", "apple pie"],
          "When is the orchard harvest?": ["orchard"]}
    r0 = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["tart"], mode="hard")
    assert r0.describe()["chunk_keywords"] is False
    assert [p.id for p in r0.search("apple", 4)] == ["c"]  # no file: auto reads the expansion ("Cherry tart")
    write_chunk_keywords(idx, lambda q: kw.get(q, []), source={"tagger": "test"})
    # auto uses the keywords file: "orchard" is a keyword of b only; "tart" is a keyword of no chunk
    r = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["orchard"], mode="hard")
    assert r.describe()["chunk_keywords"] is True
    assert [p.id for p in r.search("apple", 4)] == ["b"]
    r2 = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["tart"], mode="hard")
    assert r2.search("apple", 4) == []


def test_bad_options_are_config_errors(idx):
    with pytest.raises(ConfigError, match="mode"):
        idx.retriever("bm25+kwf", keyword_fn=words, mode="sometimes")
    with pytest.raises(ConfigError, match="field"):
        idx.retriever("bm25+kwf", keyword_fn=words, field="title")
    with pytest.raises(ConfigError, match="depth"):
        idx.retriever("bm25+kwf", keyword_fn=words, depth=0)
    with pytest.raises(ConfigError, match="chunk-keywords"):
        idx.retriever("bm25+kwf", keyword_fn=words, field="keywords")


def test_the_base_retrievers_options_pass_through(idx):
    r = idx.retriever("hybrid+kwf", keyword_fn=words, rrf_k=10, depth=3)
    d = r.describe()
    assert d["name"] == "hybrid+kwf" and d["depth"] == 3 and d["base"]["rrf_k"] == 10.0
    got = r.search("*apple pie", 2)
    assert [p.rank for p in got] == [1, 2] and all(p.source == "hybrid+kwf" for p in got)
    assert got[0].metadata["keyword_match"] is True and "base_rank" in got[0].metadata
