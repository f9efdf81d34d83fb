"""bm25 (gaji.retrieve.bm25) over the small ko/en index: the query analysed for its language, k checked."""
import pytest

from fakes_index import build_small
from gaji.errors import ConfigError, IndexUnusableError
from gaji.retrieve.bm25 import BM25Retriever



def test_korean_and_english_queries_find_their_document(idx):
    r = idx.retriever("bm25")
    assert isinstance(r, BM25Retriever)
    ko = r.search("캐리비안의 해적 시리즈중 제일 관객수가 많은게 뭐야?", k=2)
    assert ko[0].id == "pirates" and ko[0].source == "bm25" and ko[0].metadata["lang"] == "ko"
    en = r.search("Guido van Rossum", k=3)
    assert en[0].id == "python" and [p.rank for p in en] == list(range(1, len(en) + 1))
    assert [p.score for p in en] == sorted((p.score for p in en), reverse=True)


def test_rows_and_passages_agree(idx):
    r = idx.retriever("bm25")
    rows = r.search_rows("Battle of Guam", 2)
    got = r.search("Battle of Guam", 2)
    assert [idx.chunk_at(row).id for row, _ in rows] == [p.id for p in got]
    assert [s for _, s in rows] == [p.score for p in got]
    assert r.search_many(["Battle of Guam", "김치"], 1) == [r.search("Battle of Guam", 1), r.search("김치", 1)]


def test_k_is_checked(idx):
    r = idx.retriever("bm25")
    assert r.search("Guam", k=0) == []
    with pytest.raises(ConfigError, match="k must be >= 0"):
        r.search("Guam", k=-1)
    with pytest.raises(ConfigError, match="k must be an integer"):
        r.search("Guam", k="many")


def test_describe_names_the_analyzer(idx):
    d = idx.retriever("bm25").describe()
    assert d["name"] == "bm25" and d["analyzer"] == idx.analyzer.name and (d["k1"], d["b"]) == (1.2, 0.75)


def test_an_index_without_bm25_says_so(tmp_path):
    i = build_small(tmp_path / "dense-only", lexical=False)
    with pytest.raises(IndexUnusableError, match="no BM25 part"):
        i.retriever("bm25")
    i.close()
