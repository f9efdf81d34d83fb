"""Milvus (real server on 127.0.0.1) and Qdrant (qdrant-client local mode; no live Qdrant server here)
behind the same DenseStore contract and the same Index / Retriever interface."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from gaji.errors import ConfigError
from gaji.registry import DENSE_STORES
from gaji.stores.base import collection_name, parse_store_url
from gaji.stores.sync import open_dense_store

DOCS = [
    ("seoul", "Seoul", "Seoul is the capital of South Korea and lies on the Han river."),
    ("busan", "Busan", "Busan is the largest port city of South Korea."),
    ("paris", "Paris", "Paris is the capital of France on the Seine river."),
    ("rome", "Rome", "Rome is the capital of Italy."),
    ("guam", "Battle of Guam", "The Second Battle of Guam was fought in 1944."),
    ("han", "한강", "한강은 서울을 지나 황해로 흐르는 강이다."),
    ("kimchi", "김치", "김치는 배추를 소금에 절여 만든 한국 음식이다."),
    ("tokyo", "Tokyo", "Tokyo is the capital of Japan."),
]
QUERIES = ["capital of Italy", "port city Korea", "Battle of Guam 1944", "한강 서울", "김치 배추", "capital France Seine"]


def _unit(rng, n, d):
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _exact(vecs, live, q, k):
    s = vecs @ q
    rows = [r for r in np.lexsort((np.arange(len(s)), -s)) if live[r]]
    return rows[:k]


def _untied(hits, name):
    """The hits a store must order like the embedded index: dense hits scoring 0 (no shared word with the
    query) tie, and which of them fill the last places of a top-k is the store's choice."""
    assert name == "dense"
    return [h for h in hits if h[1] > 1e-6]


def test_store_contract_matches_exact_search(store_url):
    rng = np.random.default_rng(7)
    vecs, qs = _unit(rng, 300, 32), _unit(rng, 8, 32)
    st = open_dense_store(store_url, collection_name("contract", "abc12345"))
    st.create(32, replace=True)
    assert st.exists() and st.count() == 0
    assert st.insert_all(vecs) == 300
    if hasattr(st, "flush"):
        st.flush()
    st.load()
    assert st.count() == 300
    live = np.ones(300, bool)
    for q in qs:
        hits = st.search(q, 10)
        assert [r for r, _ in hits] == _exact(vecs, live, q, 10)
        assert [s for _, s in hits] == pytest.approx([float(vecs[r] @ q) for r, _ in hits], abs=1e-4)
    gone = np.array([_exact(vecs, live, qs[0], 1)[0], 5, 17], dtype=np.int64)
    st.delete(gone)
    live[gone] = False
    assert st.count() == 297
    assert [r for r, _ in st.search(qs[0], 10)] == _exact(vecs, live, qs[0], 10)
    with pytest.raises(Exception, match="already exists"):
        st.create(32)
    st.drop()
    assert not st.exists()


def test_index_build_targets_the_store_and_searches_like_the_embedded_index(store_url, tmp_path, word_embedder):
    from gaji.index.build import build_index
    from gaji.index.store import open_index

    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "title": t, "text": x}, ensure_ascii=False) + "\n"
                              for d, t, x in DOCS), encoding="utf-8")
    local = build_index([str(corpus)], tmp_path / "local", embedder=word_embedder, progress=False)
    remote = build_index([str(corpus)], tmp_path / "remote", embedder=word_embedder, progress=False,
                         dense_store=store_url)
    loc = remote.manifest.config["dense_store"]
    assert loc.startswith(store_url.split("?")[0]) and "collection=gaji_remote_" in loc
    assert remote.manifest.stats["dense_store_rows"] == len(DOCS)
    remote = open_index(tmp_path / "remote")
    assert type(remote.dense).__name__ == "StoreDenseIndex"
    for q in QUERIES:
        for name in ("dense", "hybrid"):
            a = [(p.id, round(p.score, 4)) for p in local.retriever(name).search(q, k=4)]
            b = [(p.id, round(p.score, 4)) for p in remote.retriever(name).search(q, k=4)]
            if name == "dense":
                assert _untied(a, name) == _untied(b, name) and [s for _, s in a] == [s for _, s in b], q
            else:  # fused ranks of the tied tail depend on the tie order: the head must agree
                assert a[0] == b[0], q

    # adding documents keeps the store in step: a replaced chunk, a new document
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "rome", "title": "Rome", "text": "Rome hosts the Colosseum."}) + "\n"
                    + json.dumps({"id": "oslo", "title": "Oslo", "text": "Oslo is the capital of Norway."}) + "\n",
                    encoding="utf-8")
    res = remote.add([str(more)])
    assert res.added == 1 and res.replaced == 1
    remote = open_index(tmp_path / "remote")
    assert remote.dense.store.count() == len(DOCS) + 1
    assert remote.retriever("dense").search("capital of Norway", k=1)[0].id == "oslo"
    assert remote.retriever("dense").search("Colosseum Rome", k=1)[0].id == "rome"
    local.add([str(more)])
    for q in QUERIES:
        a = [(p.id, round(p.score, 4)) for p in local.retriever("dense").search(q, k=5)]
        b = [(p.id, round(p.score, 4)) for p in remote.retriever("dense").search(q, k=5)]
        assert _untied(a, "dense") == _untied(b, "dense"), q


def test_attach_store_reuses_vectors_without_embedding(store_url, tmp_path, word_embedder):
    from gaji.index.attach import attach_store
    from gaji.index.build import build_index
    from gaji.index.store import open_index

    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "title": t, "text": x}, ensure_ascii=False) + "\n"
                              for d, t, x in DOCS), encoding="utf-8")
    build_index([str(corpus)], tmp_path / "orig", embedder=word_embedder, progress=False, lexical=False)
    loc = attach_store(tmp_path / "orig", store_url, out=tmp_path / "copy")
    orig, copy = open_index(tmp_path / "orig"), open_index(tmp_path / "copy")
    assert "dense_store" not in orig.manifest.config and copy.manifest.config["dense_store"] == loc
    for q in QUERIES:
        a = [(p.id, round(p.score, 4)) for p in orig.retriever("dense").search(q, k=3)]
        b = [(p.id, round(p.score, 4)) for p in copy.retriever("dense").search(q, k=3)]
        assert _untied(a, "dense") == _untied(b, "dense") and a[0] == b[0], q
    shutil.rmtree(tmp_path / "copy")


def test_store_urls_and_registry():
    assert {"milvus", "qdrant", "qdrant+local"} <= set(DENSE_STORES.names())
    u = parse_store_url("milvus://127.0.0.1:19530?collection=abc&index=HNSW")
    assert (u.scheme, u.host, u.port, u.collection, u.params["index"]) == ("milvus", "127.0.0.1", 19530, "abc", "HNSW")
    assert "collection=xyz" in u.with_collection("xyz") and "index=HNSW" in u.with_collection("xyz")
    assert parse_store_url("qdrant+local:/tmp/q").path == "/tmp/q"
    assert collection_name("hotpot-qa.v2", "0123456789") == "gaji_hotpot_qa_v2_01234567"
    assert collection_name("9lives").startswith("gaji_")
    with pytest.raises(ConfigError, match="unknown dense store 'pinecone'; known: milvus, qdrant"):
        open_dense_store("pinecone://x:1?collection=c")
    with pytest.raises(ConfigError, match="names no collection"):
        open_dense_store("milvus://127.0.0.1:1")
    with pytest.raises(ConfigError, match="must be a URL"):
        parse_store_url("milvus")
    with pytest.raises(ConfigError, match="index 'IVF' not supported"):
        open_dense_store("milvus://127.0.0.1:1?collection=c&index=IVF")
