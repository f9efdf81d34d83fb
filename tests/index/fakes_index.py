"""Test helpers for the index tests: a tiny deterministic embedder (no model), registered by id; a small corpus."""
from __future__ import annotations

import hashlib
import threading

import numpy as np

from gaji.index.dense import EMBEDDER_FACTORIES, Embedder
from gaji.types import Document

FAKE_ID = "test/hash-embedder-32"


class HashEmbedder(Embedder):
    """Bag of lower-cased words hashed into 32 dims, L2-normalised. Counts calls; can fail on purpose."""

    model_id = FAKE_ID
    dim = 32

    def __init__(self) -> None:
        self.passages_embedded = 0
        self.fail_after: int | None = None  # raise once this many passages were embedded

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for w in text.lower().split():
            h = int(hashlib.md5(w.strip(".,?!").encode()).hexdigest(), 16)
            v[h % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_passages(self, texts):
        out = []
        for t in texts:
            if self.fail_after is not None and self.passages_embedded >= self.fail_after:
                raise KeyboardInterrupt("simulated crash")
            out.append(self._vec(t))
            self.passages_embedded += 1
        return np.stack(out) if out else np.zeros((0, self.dim), np.float32)

    def embed_queries(self, texts):
        return np.stack([self._vec(t) for t in texts])


_INSTANCE = HashEmbedder()
EMBEDDER_FACTORIES[FAKE_ID] = lambda: _INSTANCE


def fake_embedder() -> HashEmbedder:
    _INSTANCE.passages_embedded = 0
    _INSTANCE.fail_after = None
    return _INSTANCE


GATED_ID = "test/gated-hash-embedder-32"


class GatedEmbedder(HashEmbedder):
    """The hash embedder, stopping before its `hold_after`-th passage until `release()`: a fill caught midway."""

    model_id = GATED_ID

    def __init__(self) -> None:
        super().__init__()
        self.hold_after: int | None = None
        self.holding = threading.Event()  # set while a fill waits here
        self._go = threading.Event()

    def arm(self, hold_after: int) -> "GatedEmbedder":
        self.passages_embedded, self.hold_after = 0, hold_after
        self.holding.clear()
        self._go.clear()
        return self

    def release(self) -> None:
        self.hold_after = None
        self._go.set()

    def embed_passages(self, texts):
        if self.hold_after is not None and self.passages_embedded + len(texts) > self.hold_after:
            self.holding.set()
            assert self._go.wait(30), "the test never released the fill"
        return super().embed_passages(texts)


_GATED = GatedEmbedder()
EMBEDDER_FACTORIES[GATED_ID] = lambda: _GATED


def gated_embedder(hold_after: int) -> GatedEmbedder:
    """The registered gated embedder, armed to stop before passage `hold_after` (0-based)."""
    return _GATED.arm(hold_after)


DOCS = [
    Document(id="guam", title="Battle of Guam", text="The Second Battle of Guam was the American recapture of Guam in 1944."),
    Document(id="manila", title="Battle of Manila", text="The Battle of Manila was fought in 1945 in the Philippines."),
    Document(id="kimchi", title="김치", text="김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."),
    Document(id="pirates", title="캐리비안의 해적", text="캐리비안의 해적 시리즈 중 관객 수가 가장 많은 작품은 망자의 함이다."),
    Document(id="python", title="Python", text="Python is a programming language created by Guido van Rossum."),
]


def build_small(out, docs=DOCS, **kw):
    """build_index of `docs` (default: five short ko/en documents) with the fake embedder, no progress bar."""
    from gaji.index.build import build_index

    kw.setdefault("embedder", fake_embedder())
    return build_index(docs, out, progress=False, **kw)
