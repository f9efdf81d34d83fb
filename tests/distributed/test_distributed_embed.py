"""Embedding sharded over Ray actors gives exactly the single-process vectors, in row order, and an index
built with it opens and searches with the ordinary embedder."""
from __future__ import annotations

import json

import numpy as np

from gaji.distributed.embed import RayEmbedder, shard_bounds
from gaji.index.dense import get_embedder

TEXTS = [
    "Seoul is the capital of South Korea.", "서울은 대한민국의 수도이다.", "Paris is the capital of France.",
    "부산은 항구 도시이다.", "The Battle of Guam was fought in 1944.", "Rome is in Italy.", "한강은 서울을 지난다.",
]


def test_shard_bounds_cover_in_order():
    assert shard_bounds(7, 2) == [(0, 4), (4, 7)]
    assert shard_bounds(2, 5) == [(0, 1), (1, 2)]
    assert shard_bounds(0, 3) == []
    for n in range(0, 20):
        for k in range(1, 6):
            b = shard_bounds(n, k)
            assert [i for a, e in b for i in range(a, e)] == list(range(n))


def test_ray_embedder_matches_local_and_builds_an_index(ray_local, tmp_path):
    from gaji.index.build import build_index
    from gaji.index.store import open_index

    emb = RayEmbedder(workers=2, address="local")
    try:
        got = emb.embed_passages(TEXTS)
        want = get_embedder().embed_passages(TEXTS)
        assert got.shape == (7, 384) and np.array_equal(got, want)
        pids = ray_local.get([a.pid.remote() for a in emb._actors])
        assert len(set(pids)) == 2  # two worker processes really did the work
        corpus = tmp_path / "c.jsonl"
        corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": t}, ensure_ascii=False) + "\n"
                                  for i, t in enumerate(TEXTS)), encoding="utf-8")
        idx = build_index([str(corpus)], tmp_path / "idx", lexical=False, embedder=emb, progress=False)
    finally:
        emb.close()
    idx2 = open_index(tmp_path / "idx")
    assert idx2.manifest.config["embedding_model"] == get_embedder().model_id
    assert np.array_equal(np.load(tmp_path / "idx" / "dense" / "vectors.npy"), want)
    assert idx2.retriever("dense").search("대한민국의 수도", k=1)[0].id == "d1"
    idx.close()
