"""Dense-store fixtures: a real Milvus standalone server on 127.0.0.1 (started and stopped here, bounded),
qdrant-client's local mode in a temp folder, and a tiny deterministic embedder (no model)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gaji.index.dense import EMBEDDER_FACTORIES, Embedder

STORE_FAKE_ID = "test/stores-hash-embedder-48"


class WordHashEmbedder(Embedder):
    """Bag of lower-cased words hashed into 48 dims, L2-normalised."""

    model_id = STORE_FAKE_ID
    dim = 48

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for w in text.lower().split():
            v[int(hashlib.md5(w.strip(".,?!").encode()).hexdigest(), 16) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_passages(self, texts):
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_queries(self, texts):
        return self.embed_passages(texts)


_EMB = WordHashEmbedder()
EMBEDDER_FACTORIES[STORE_FAKE_ID] = lambda: _EMB


@pytest.fixture
def word_embedder() -> WordHashEmbedder:
    return _EMB


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory):
    from gaji.stores.milvus_server import MilvusLocalServer, milvus_available

    why = milvus_available()
    if why:
        pytest.skip(why)
    try:
        srv = MilvusLocalServer(tmp_path_factory.mktemp("milvus"), start_timeout_s=150).start()
    except Exception as e:  # noqa: BLE001 - the server cannot run here: skip, saying why
        pytest.skip(f"the Milvus server could not start on this machine: {e}")
    yield srv
    srv.stop()


@pytest.fixture(params=["milvus", "qdrant+local"])
def store_url(request, tmp_path):
    """A store URL for each backend (Milvus: the session's server; Qdrant: a fresh local folder)."""
    if request.param == "milvus":
        return request.getfixturevalue("milvus_server").url
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed: pip install 'gaji[scale]'")
    return f"qdrant+local:{tmp_path / 'qdrant'}"
