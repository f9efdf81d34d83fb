"""GET /api/indexes/{name} while an index's vectors are filled: progress and vectors; /api/ask says BM25."""
from __future__ import annotations

import json

import numpy as np
from fastapi.testclient import TestClient

from gaji.config import Settings
from gaji.index.dense import EMBEDDER_FACTORIES, Embedder
from gaji.llm.scripted import ScriptedLLM
from gaji.types import Document
from servefakes import TEST_HOSTS

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip


class LetterEmbedder(Embedder):
    """Letter counts of the text, L2-normalised: enough to rank without a model."""

    model_id = "test/letters-26"
    dim = 26

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for ch in text.lower():
            if "a" <= ch <= "z":
                v[ord(ch) - 97] += 1
        return v / (np.linalg.norm(v) or 1.0)

    def embed_passages(self, texts):
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_queries(self, texts):
        return self.embed_passages(texts)


EMBEDDER = LetterEmbedder()
EMBEDDER_FACTORIES[EMBEDDER.model_id] = lambda: EMBEDDER
DOCS = [Document(id="guam", title="Battle of Guam", text="The Battle of Guam was fought in 1944."),
        Document(id="manila", title="Battle of Manila", text="The Battle of Manila was fought in 1945."),
        Document(id="kimchi", title="김치", text="김치는 배추를 소금에 절여 만든 한국의 전통 음식이다.")]


def test_status_shows_pending_vectors_and_progress_then_hybrid(tmp_path):
    from gaji.index.fill import fill_vectors
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    out = tmp_path / "team-index"
    build.build_index(DOCS, out, progress=False, korean_analyzer="bigram", embedder=EMBEDDER, fill=False)
    llm = ScriptedLLM(default="Answer: 1944\nSources: [1]")
    indexes = IndexSet.from_specs([f"team={out}"], Settings(retriever="hybrid", method="oner", retries=0), llm)
    with TestClient(create_app(indexes, ServeConfig(default_method="oner", allowed_hosts=TEST_HOSTS))) as c:
        st = c.get("/api/indexes/team").json()
        assert st["status"] == "ok" and st["vectors"]["state"] == "pending" and st["vectors"]["total"] == 3
        assert st["progress"]["stage"] == "searchable" and st["progress"]["action"] == "build"
        assert "pid" not in st["progress"] and str(out) not in json.dumps(st)
        r = c.post("/api/ask", json={"question": "When was the Battle of Guam?", "options": {"k": 2}})
        assert r.status_code == 200 and r.json()["trace"]["retriever"] == "bm25"

        fill_vectors(out, EMBEDDER)
        st = c.get("/api/indexes/team").json()
        assert st["vectors"] == {"state": "complete"}
        p = st["progress"]
        assert p["stage"] == "done" and p["done"] == p["total"] == 3 and p["rate"] > 0 and p["running"] is False
        r = c.post("/api/ask", json={"question": "When was the Battle of Guam?", "options": {"k": 2}})
        assert r.status_code == 200 and r.json()["trace"]["retriever"] == "hybrid"
