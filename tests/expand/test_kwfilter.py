"""Keyword metadata filtering (bm25+kwf / dense+kwf / hybrid+kwf) and the chunk-keywords file."""
import json

import pytest

from fakes_expand import recording_embedder
from gaji.errors import ConfigError, InputError
from gaji.expand.generator import Expansion
from gaji.expand.index_hook import expansion_step
from gaji.expand.kwfilter import chunk_keywords, keywords_path, read_chunk_keywords, write_chunk_keywords
from gaji.index.build import build_index
from gaji.types import Document

DOCS = [
    Document(id="a", text="apple pie recipe with apple and sugar"),
    Document(id="b", text="apple orchard harvest in the autumn"),
    Document(id="c", text="cherry tart and apple"),
    Document(id="d", text="대기오염 경보는 미세먼지 농도로 발령된다"),
]
EXPS = {
    "a": Expansion("a", "Apple pie", ["How do you bake apple pie?", "What sugar goes into pie?"]),
    "b": Expansion("b", "Orchards", ["When is the orchard harvest?"]),
    "c": Expansion("c", "Cherry tart", ["How to make cherry tart?"]),
    "d": Expansion("d", "대기오염 경보", ["미세먼지 경보는 언제 발령되나요?"]),
}


def words(q):  # a keyword function for tests: keywords are the words marked with *
    return [w.strip("*?") for w in q.split() if w.startswith("*")]


@pytest.fixture
def idx(tmp_path):
    i = build_index(DOCS, tmp_path / "i", extension=expansion_step(expansions=EXPS, compose="case7"),
                    embedder=recording_embedder(), progress=False)
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


def test_chunk_keywords_file_roundtrip_and_auto_field(idx):
    kw = {"How do you bake apple pie?": ["apple pie"], "What sugar goes into pie?": ["sugar", "apple pie"],
          "When is the orchard harvest?": ["orchard"]}
    assert chunk_keywords(idx.get_chunk("a"), lambda q: kw.get(q, [])) == ["apple pie", "sugar"]
    st = write_chunk_keywords(idx, lambda q: kw.get(q, []), source={"tagger": "test"})
    assert st["chunks"] == 4 and st["without_keywords"] == 2
    got = read_chunk_keywords(keywords_path(idx.path))
    assert got["a"] == ["apple pie", "sugar"] and got["c"] == []
    # auto uses the keywords file: "orchard" is a keyword of b only; "pie" is a keyword of no chunk
    r = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["orchard"], mode="hard")
    assert r.describe()["chunk_keywords"] is True
    assert [p.id for p in r.search("apple", 4)] == ["b"]
    r2 = idx.retriever("bm25+kwf", keyword_fn=lambda q: ["tart"], mode="hard")
    assert r2.search("apple", 4) == []


def test_bad_options_and_files(idx, tmp_path):
    with pytest.raises(ConfigError, match="mode"):
        idx.retriever("bm25+kwf", keyword_fn=words, mode="sometimes")
    with pytest.raises(ConfigError, match="field"):
        idx.retriever("bm25+kwf", keyword_fn=words, field="title")
    with pytest.raises(ConfigError, match="chunk-keywords"):
        idx.retriever("bm25+kwf", keyword_fn=words, field="keywords")
    bad = tmp_path / "kw.jsonl"
    bad.write_text(json.dumps({"id": "a", "keywords": ["x"]}) + "\n" + json.dumps({"id": "b", "keywords": "x"}) + "\n")
    with pytest.raises(InputError) as e:
        read_chunk_keywords(bad)
    assert str(e.value).startswith(f"{bad}:2:")


def test_plain_index_cannot_make_chunk_keywords(tmp_path):
    i = build_index(DOCS, tmp_path / "p", embedder=recording_embedder(), progress=False)
    with pytest.raises(ConfigError, match="no expanded chunks"):
        write_chunk_keywords(i, lambda q: [])
    i.close()
