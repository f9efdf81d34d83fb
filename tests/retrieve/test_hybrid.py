"""hybrid (gaji.retrieve.hybrid): RRF of bm25 and dense, each passage keeping its components' ranks and scores."""
import pytest

from gaji.errors import ConfigError
from gaji.retrieve.fusion import rrf_fuse



@pytest.mark.parametrize("query", ["Battle of Guam 1944", "캐리비안의 해적 관객"])
def test_the_fused_list_is_rrf_of_the_two_lists(idx, query):
    r = idx.retriever("hybrid", rrf_k=60, depth=5)
    lists = {"bm25": idx.retriever("bm25").search_rows(query, 5), "dense": idx.retriever("dense").search_rows(query, 5)}
    want = rrf_fuse(lists, k=60, limit=3)
    got = r.search(query, 3)
    assert [p.id for p in got] == [idx.chunk_at(h.key).id for h in want]
    assert [p.score for p in got] == pytest.approx([h.score for h in want])
    for p, h in zip(got, want):
        assert p.source == "hybrid" and p.metadata["bm25_rank"] == h.ranks.get("bm25")
        assert p.metadata["dense_rank"] == h.ranks.get("dense") and p.metadata["dense_score"] == h.scores.get("dense")


def test_a_zero_weight_leaves_that_side_out(idx):
    only_bm25 = idx.retriever("hybrid", weights="bm25=1,dense=0").search("Battle of Guam", 3)
    assert all(p.metadata["dense_rank"] is None for p in only_bm25)
    assert [p.id for p in only_bm25] == [p.id for p in idx.retriever("bm25").search("Battle of Guam", 3)]


def test_options_are_checked_and_described(idx):
    r = idx.retriever("hybrid", rrf_k=10, weights=(1, 0.5), depth=7)
    assert r.describe() == {"name": "hybrid", "rrf_k": 10.0, "weights": {"bm25": 1.0, "dense": 0.5}, "depth": 7}
    assert r.search("Guam", 0) == []
    with pytest.raises(ConfigError, match="depth"):
        idx.retriever("hybrid", depth=0)
    with pytest.raises(ConfigError, match="weight"):
        idx.retriever("hybrid", weights="bm25=1,sparse=2")
