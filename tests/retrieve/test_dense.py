"""dense (gaji.retrieve.dense) over the small ko/en index with the hash embedder: cosine ranking, the query cache."""
import pytest

from fakes_index import build_small
from gaji.errors import IndexUnusableError



def test_english_and_korean_queries_find_their_document(idx):
    r = idx.retriever("dense")
    got = r.search("Guido van Rossum programming language", k=3)
    assert got[0].id == "python" and got[0].source == "dense" and [p.rank for p in got] == [1, 2, 3]
    assert r.search("김치는 배추를 소금에 절여 만든 한국의 전통 음식이다.", k=1)[0].id == "kimchi"


def test_an_empty_query_or_k0_finds_nothing(idx):
    r = idx.retriever("dense")
    assert r.search("   ", k=3) == [] and r.search("Guam", k=0) == []


def test_query_vectors_are_cached_lru(idx):
    r = idx.retriever("dense", cache_size=2)
    for q in ("a guam", "b manila", "c python"):
        r.search(q, 1)
    assert list(r._cache) == ["b manila", "c python"]  # the oldest left
    r.search("b manila", 1)
    assert list(r._cache) == ["c python", "b manila"]  # a hit moves to the end
    r.clear_cache()
    assert not r._cache


def test_search_many_embeds_the_missing_queries_at_once_and_answers_like_search(idx):
    r = idx.retriever("dense")
    qs = ["Battle of Guam", "김치", "Battle of Guam", " "]
    many = r.search_many(qs, 2)
    assert set(r._cache) == {"Battle of Guam", "김치"}
    assert many == [r.search(q, 2) for q in qs]


def test_describe_and_an_index_without_vectors(idx, tmp_path):
    d = idx.retriever("dense").describe()
    assert d["name"] == "dense" and d["model"] == idx.embedder.model_id
    i = build_small(tmp_path / "bm25-only", dense=False)
    with pytest.raises(IndexUnusableError, match="no dense part"):
        i.retriever("dense")
    i.close()
