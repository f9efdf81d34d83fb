"""The embedder interface: text -> unit-norm float32 vectors (engines: gaji/index/embedders.py)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Embedder"]


class Embedder:
    """Text -> unit-norm float32 vectors. `model_id` is recorded in the manifest."""

    model_id: str = "embedder"
    dim: int = 0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]
