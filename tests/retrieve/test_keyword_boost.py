"""bm25+kw / hybrid+kw (gaji.retrieve.keyword_boost): the query's keywords boost BM25."""
import pytest

from fakes_expand import recording_embedder
from gaji.errors import ConfigError
from gaji.index.build import build_index
from gaji.types import Document

DOCS = [
    Document(id="a", text="apple"),
    Document(id="b", text="banana kiwi melon banana grape lemon"),
    Document(id="c", text="cherry date"),
]


def test_keyword_boost_reorders_bm25(tmp_path):
    idx = build_index(DOCS, tmp_path / "i", embedder=recording_embedder(), progress=False)
    q = "apple banana"
    plain = [p.id for p in idx.retriever("bm25").search(q, 3)]
    assert plain[0] == "a"
    r = idx.retriever("bm25+kw", keyword_fn=lambda query: ["banana"], boost=3)
    boosted = [p.id for p in r.search(q, 3)]
    assert boosted[0] == "b" and r.last_keywords == ["banana"]
    assert r.terms(q).count("banana") == 4 and r.describe()["keyword_boost"] == 3
    h = idx.retriever("hybrid+kw", keyword_fn=lambda query: ["banana"])
    res = h.search(q, 3)
    assert res and res[0].source == "hybrid+kw" and h.bm25.last_keywords == ["banana"]


def test_needs_a_tagger(tmp_path, monkeypatch):
    monkeypatch.delenv("GAJI_TAGGER", raising=False)
    idx = build_index(DOCS, tmp_path / "i", dense=False, progress=False)
    with pytest.raises(ConfigError, match="tagger"):
        idx.retriever("bm25+kw")
    with pytest.raises(ConfigError, match="boost"):
        idx.retriever("bm25+kw", keyword_fn=lambda q: [], boost=-1)
