"""Qdrant as the dense store (qdrant-client), the vector database of the seed paper's system.

    qdrant+local:/path/to/folder?collection=NAME   qdrant-client's *local mode*: the server's API,
                                                   stored in a folder, searched in-process (exact)
    qdrant://127.0.0.1:6333?collection=NAME        a Qdrant server over HTTP/gRPC (same code path through
                                                   the client; NOT tested here: no live Qdrant server
                                                   could be run on this machine)

Vectors are unit-norm, so the DOT distance is the cosine the embedded index uses. Point ids are rows.
A local-mode folder may be opened by one process at a time (qdrant-client's own lock); within a
process the client is shared.
"""
from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any

import numpy as np

from gaji.errors import ConfigError, IndexUnusableError
from gaji.registry import DENSE_STORES

from .base import DenseStore, StoreURL

__all__ = ["QdrantStore"]

_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()
_closing_registered = False


def _client(key: str, **kw: Any):
    global _closing_registered
    try:
        from qdrant_client import QdrantClient
    except ImportError:
        raise ConfigError("the qdrant dense store needs qdrant-client: pip install 'gaji[scale]'") from None
    with _clients_lock:
        c = _clients.get(key)
        if c is None:
            if "host" in kw:  # a server: fail in seconds when nothing listens there
                from gaji.netcheck import unreachable

                why = unreachable(kw["host"], kw.get("port") or 6333)
                if why:
                    raise IndexUnusableError(f"cannot reach Qdrant at {key}: {why}; is the Qdrant server running there? "
                                      "(check the qdrant://HOST:PORT of --dense-store, or the index's manifest)")
            if not _closing_registered:  # close before interpreter shutdown, not in __del__ during it
                atexit.register(close_clients)
                _closing_registered = True
            try:
                c = QdrantClient(**kw)
            except Exception as e:  # noqa: BLE001 - e.g. the local folder is locked by another process
                raise IndexUnusableError(f"cannot open Qdrant {key}: {type(e).__name__}: {e}") from None
            _clients[key] = c
        return c


def close_clients() -> None:
    """Close every cached client (releases local-mode folder locks)."""
    with _clients_lock:
        items = list(_clients.items())
        _clients.clear()
    for _, c in items:
        try:
            c.close()
        except Exception:  # noqa: BLE001
            pass


class QdrantStore(DenseStore):
    title = "Qdrant"
    name = "qdrant"

    def __init__(self, url: StoreURL, collection: str):
        super().__init__(url, collection)
        if url.scheme == "qdrant+local":
            if not url.path:
                raise ConfigError(f"qdrant local store URL {url.raw!r} needs a folder: qdrant+local:/path/to/dir")
            folder = Path(url.path).expanduser().resolve()
            folder.mkdir(parents=True, exist_ok=True)
            self.where = f"local:{folder}"
            self.remote = False
            self.client = _client(self.where, path=str(folder))
        else:
            if not url.host:
                raise ConfigError(f"qdrant store URL {url.raw!r} needs a host: qdrant://127.0.0.1:6333")
            self.where = f"http://{url.host}:{url.port or 6333}"
            self.client = _client(self.where, host=url.host, port=url.port or 6333, prefer_grpc=False)

    def exists(self) -> bool:
        return bool(self._call("collection_exists", self.client.collection_exists, self.collection))

    def create(self, dim: int, replace: bool = False) -> None:
        from qdrant_client import models

        if self.exists():
            if not replace:
                raise IndexUnusableError(f"Qdrant collection {self.collection!r} already exists at {self.where}")
            self.drop()
        self._call("create_collection", self.client.create_collection, self.collection,
                   vectors_config=models.VectorParams(size=int(dim), distance=models.Distance.DOT))
        self.dim = int(dim)

    def load(self) -> None:
        if not self.exists():
            raise IndexUnusableError(
                f"Qdrant {self.where} has no collection {self.collection!r}: rebuild the index with "
                "`gaji index build ... --dense-store qdrant+local:DIR` or attach it again"
            )

    def insert(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        from qdrant_client import models

        ids = [int(r) for r in rows]
        if ids:
            vecs = np.asarray(vectors, dtype=np.float32).tolist()
            self._call("upsert", self.client.upsert, self.collection, points=models.Batch(ids=ids, vectors=vecs),
                       wait=True)

    def delete(self, rows: np.ndarray) -> None:
        from qdrant_client import models

        ids = [int(r) for r in rows]
        if ids:
            self._call("delete", self.client.delete, self.collection,
                       points_selector=models.PointIdsList(points=ids), wait=True)

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        res = self._call("query_points", self.client.query_points, self.collection,
                         query=np.asarray(q, dtype=np.float32).tolist(), limit=int(k), with_payload=False)
        out = [(int(p.id), float(p.score)) for p in res.points]
        out.sort(key=lambda t: (-t[1], t[0]))
        return out

    def count(self) -> int:
        return int(self._call("count", self.client.count, self.collection, exact=True).count)

    def drop(self) -> None:
        self._call("delete_collection", self.client.delete_collection, self.collection)


@DENSE_STORES.register("qdrant+local", help="qdrant-client local mode: qdrant+local:DIR[?collection=NAME]")
def _qdrant_local(url: StoreURL, collection: str) -> QdrantStore:
    return QdrantStore(url, collection)


@DENSE_STORES.register("qdrant", help="Qdrant server: qdrant://HOST:PORT[?collection=NAME] (untested live)")
def _qdrant(url: StoreURL, collection: str) -> QdrantStore:
    return QdrantStore(url, collection)
