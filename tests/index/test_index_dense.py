"""Dense search backends and the E5 embedder (gaji.index.dense)."""
import numpy as np
import pytest

from gaji.errors import ConfigError, IndexUnusableError
from gaji.index.dense import DenseIndex, E5Embedder, ExactBackend, choose_backend, get_embedder, passage_text
from gaji.types import Chunk


def _unit(rng, n, d):
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_exact_topk_order_and_live_mask():
    V = np.eye(4, dtype=np.float32)
    q = np.array([0.9, 0.5, 0.1, 0.0], dtype=np.float32)
    assert [r for r, _ in ExactBackend(V, None).search(q, 3)] == [0, 1, 2]
    live = np.array([False, True, True, True])
    hits = ExactBackend(V, live).search(q, 10)
    assert [r for r, _ in hits] == [1, 2, 3]
    assert hits[0][1] == pytest.approx(0.5)


def test_hnsw_agrees_with_exact(tmp_path):
    rng = np.random.default_rng(0)
    V = _unit(rng, 300, 16)
    DenseIndex.write(tmp_path / "e", V, "exact")
    DenseIndex.write(tmp_path / "h", V, "hnsw")
    exact, hnsw = DenseIndex(tmp_path / "e", "exact"), DenseIndex(tmp_path / "h", "hnsw")
    assert (tmp_path / "h" / "hnsw.faiss").exists() and not (tmp_path / "e" / "hnsw.faiss").exists()
    agree = 0
    for q in _unit(rng, 20, 16):
        e, h = exact.search(q, 5), hnsw.search(q, 5)
        agree += e[0][0] == h[0][0]
        assert h[0][1] == pytest.approx(float(V[h[0][0]] @ q), rel=1e-4)
    assert agree >= 19


def test_choose_backend():
    assert choose_backend("auto", 10) == "exact"
    assert choose_backend("auto", 200_000) == "hnsw"
    assert choose_backend("exact", 200_000) == "exact"
    with pytest.raises(ConfigError):
        choose_backend("ivf", 10)


def test_unknown_embedding_model_is_an_index_error():
    with pytest.raises(IndexUnusableError, match="rebuild"):
        get_embedder("some-other-model/v9")


def test_passage_text():
    assert passage_text(Chunk(id="a", doc_id="a", text="body", title="Title")) == "Title\nbody"
    assert passage_text(Chunk(id="a", doc_id="a", text="body")) == "body"


def test_e5_real_model_handful():
    e = E5Embedder()
    P = e.embed_passages([
        "Guam\nGuam is an island territory of the United States in the Pacific.",
        "김치\n김치는 배추를 소금에 절여 만든 한국의 전통 음식이다.",
        "Python\nPython is a programming language.",
    ])
    assert P.shape == (3, 384) and P.dtype == np.float32
    assert np.allclose(np.linalg.norm(P, axis=1), 1.0, atol=1e-3)
    assert int(np.argmax(P @ e.embed_query("which island is a US territory?"))) == 0
    assert int(np.argmax(P @ e.embed_query("배추로 만드는 한국 음식은?"))) == 1
    assert get_embedder(e.model_id).model_id == e.model_id
