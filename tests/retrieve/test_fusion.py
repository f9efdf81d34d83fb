"""Reciprocal-rank fusion (gaji.retrieve.fusion)."""
import pytest

from gaji.errors import ConfigError
from gaji.retrieve.fusion import parse_weights, rrf_fuse


def test_rrf_scores_and_order():
    lists = {"bm25": [(1, 9.0), (2, 5.0), (3, 1.0)], "dense": [(3, 0.9), (1, 0.8)]}
    fused = rrf_fuse(lists, k=60)
    assert [h.key for h in fused] == [1, 3, 2]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1].score == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2].score == pytest.approx(1 / 62)
    assert fused[0].ranks == {"bm25": 1, "dense": 2} and fused[0].scores == {"bm25": 9.0, "dense": 0.8}
    assert fused[2].ranks == {"bm25": 2}


def test_weights_depth_limit():
    lists = {"bm25": [(1, 1.0), (2, 1.0)], "dense": [(2, 1.0), (1, 1.0)]}
    # equal ranks mirrored: a tie broken by best rank, then key
    assert [h.key for h in rrf_fuse(lists, k=10)] == [1, 2]
    assert [h.key for h in rrf_fuse(lists, k=10, weights={"bm25": 0.5, "dense": 1.0})] == [2, 1]
    assert [h.key for h in rrf_fuse(lists, k=10, depth=1)] == [1, 2]
    assert rrf_fuse(lists, k=10, depth=1)[0].ranks == {"bm25": 1}
    assert len(rrf_fuse(lists, limit=1)) == 1
    assert rrf_fuse({"bm25": [], "dense": []}) == []


def test_zero_weight_and_bad_k():
    lists = {"bm25": [(1, 1.0)], "dense": [(2, 1.0)]}
    fused = rrf_fuse(lists, weights={"bm25": 1.0, "dense": 0.0})
    assert fused[0].key == 1 and fused[1].score == 0.0
    with pytest.raises(ConfigError):
        rrf_fuse(lists, k=-1)


def test_parse_weights():
    assert parse_weights(None) == {"bm25": 1.0, "dense": 1.0}
    assert parse_weights("bm25=1,dense=0.5") == {"bm25": 1.0, "dense": 0.5}
    assert parse_weights("2,1") == {"bm25": 2.0, "dense": 1.0}
    assert parse_weights({"dense": 3}) == {"bm25": 1.0, "dense": 3.0}
    assert parse_weights((0.5, 0.25)) == {"bm25": 0.5, "dense": 0.25}
    for bad in ("colbert=1", "x,y", {"bm25": -1}):
        with pytest.raises(ConfigError):
            parse_weights(bad)
