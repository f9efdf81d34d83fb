"""Dense-vector stores outside the index folder: the contract, store URLs, and the Index adapter.

An index's dense part normally lives in its folder (``dense/vectors.npy``, searched by numpy or faiss,
see gaji.index.dense). A *dense store* keeps the same vectors in a vector database instead; the index
folder keeps the chunks, BM25 and a copy of the vectors, and its manifest records the store URL.
Retrieval is unchanged: `Index.dense` returns a `StoreDenseIndex`, which answers
``search(query_vector, k) -> [(row, score)]`` like the embedded one, so every retriever ("dense",
"hybrid", ConTRe) works over it.

Store URLs (the scheme picks a factory in `gaji.registry.DENSE_STORES`)::

    milvus://127.0.0.1:19530                 a Milvus server (gRPC port)
    milvus://127.0.0.1:19530?collection=NAME&index=HNSW
    qdrant+local:/path/to/folder             qdrant-client's local mode (in-process, the server's API)
    qdrant://127.0.0.1:6333?collection=NAME  a Qdrant server (same adapter; not tested against a live one)

Ids in a store are index rows (int64); a deleted row is deleted from the store.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextvars
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gaji.deadline import default_deadline_s, within
from gaji.errors import ConfigError

__all__ = ["StoreURL", "DenseStore", "StoreDenseIndex", "parse_store_url", "collection_name"]

INSERT_BATCH = 1000
# calls over a whole collection (building its index, loading it into memory) may take minutes on a big one
SLOW_CALLS = frozenset({"create_collection", "load_collection", "flush", "drop_collection", "delete_collection"})
SLOW_CALL_FACTOR = 10
_POOL: cf.ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> cf.ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = cf.ThreadPoolExecutor(max_workers=8, thread_name_prefix="gaji-store")
        return _POOL


@dataclass
class StoreURL:
    """A parsed store URL: `scheme` picks the backend; `params` are the query-string options."""

    raw: str
    scheme: str
    host: str = ""
    port: int | None = None
    path: str = ""
    params: dict[str, str] = field(default_factory=dict)

    @property
    def collection(self) -> str | None:
        return self.params.get("collection") or None

    def with_collection(self, name: str) -> str:
        """The URL with `collection=name` set (what the manifest records)."""
        parts = urllib.parse.urlsplit(self.raw)
        q = dict(urllib.parse.parse_qsl(parts.query))
        q["collection"] = name
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(q)))


def parse_store_url(url: str) -> StoreURL:
    """`milvus://h:p?collection=c` / `qdrant+local:/dir` / `qdrant://h:p` -> StoreURL (ConfigError if malformed)."""
    if not isinstance(url, str) or ":" not in url:
        raise ConfigError(f"dense store must be a URL like milvus://127.0.0.1:19530 or qdrant+local:DIR, not {url!r}")
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if not scheme:
        raise ConfigError(f"dense store URL {url!r} has no scheme (milvus://..., qdrant+local:...)")
    params = dict(urllib.parse.parse_qsl(parts.query))
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"dense store URL {url!r}: bad port") from None
    path = parts.path
    if scheme.endswith("+local") and parts.netloc:  # qdrant+local://relative/dir
        path = parts.netloc + path
    return StoreURL(raw=url, scheme=scheme, host=parts.hostname or "", port=port, path=path, params=params)


def collection_name(hint: str, fingerprint: str = "") -> str:
    """A collection name valid in Milvus and Qdrant from a hint (the index folder's name)."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", hint).strip("_") or "index"
    if not re.match(r"[A-Za-z_]", base):
        base = "g_" + base
    name = f"gaji_{base}"[:200]
    return f"{name}_{fingerprint[:8]}" if fingerprint else name


class DenseStore:
    """One collection of (row id, unit vector) pairs in a vector database; inner-product search.

    Backends implement `create`, `insert`, `delete`, `search`, `count`, `drop`, `close`."""

    name = "store"
    remote = True  # behind a network server (calls get the store deadline); False: in-process

    def __init__(self, url: StoreURL, collection: str):
        self.url = url
        self.collection = collection
        self.dim = 0
        self.deadline_s = default_deadline_s()  # per call, the client's own retries included

    @property
    def location(self) -> str:
        """The URL to record in the manifest (with the collection)."""
        return self.url.with_collection(self.collection)

    def exists(self) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def create(self, dim: int, replace: bool = False) -> None:  # pragma: no cover - interface
        """Create the collection for `dim`-dimensional vectors (replace = drop an existing one first)."""
        raise NotImplementedError

    def load(self) -> None:
        """Make the collection searchable (Milvus loads it into memory); default: nothing to do."""

    def insert(self, rows: np.ndarray, vectors: np.ndarray) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def delete(self, rows: np.ndarray) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:  # pragma: no cover - interface
        raise NotImplementedError

    def count(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def drop(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"store": self.name, "url": self.location, "collection": self.collection, "dim": self.dim}

    # -- helpers shared by backends ------------------------------------------------------------
    title = "store"  # "Milvus", "Qdrant": how errors name the engine
    where = ""  # the server URL or local folder errors name; set by each backend

    def _call(self, what: str, fn, *a, **kw):
        """Run one client call within the store deadline (`deadline_s`; collection-wide operations get
        SLOW_CALL_FACTOR times it); any client error, or no answer in time, becomes an IndexUnusableError naming
        the engine, server and collection. The call runs on a worker thread so that a client stuck in its
        own retries or reads cannot hold the caller past the deadline."""
        from gaji.errors import ConfigError, IndexUnusableError

        deadline = within(self.deadline_s * (SLOW_CALL_FACTOR if what in SLOW_CALLS else 1))
        assert deadline is not None
        fut = None
        try:
            if not self.remote:  # an in-process engine: no server to hang, and its handles may be per-thread
                return fn(*a, **kw)
            fut = _pool().submit(contextvars.copy_context().run, fn, *a, **kw)
            return fut.result(timeout=deadline.remaining())
        except cf.TimeoutError:  # (also a client's own TimeoutError: the same story for the caller)
            if fut is not None:
                fut.cancel()
            raise IndexUnusableError(f"{self.title} {self.where} collection {self.collection!r}: {what}: no answer within "
                              f"{deadline.budget_s:g} s (the store deadline; raise it with GAJI_DEADLINE_S)") from None
        except Exception as e:  # noqa: BLE001 - client libraries raise their own types
            if isinstance(e, (ConfigError, IndexUnusableError)):
                raise
            raise IndexUnusableError(f"{self.title} {self.where} collection {self.collection!r}: {what} failed: {e}") from None

    def insert_all(self, vectors: np.ndarray, live: np.ndarray | None = None) -> int:
        """Insert every (live) row of `vectors`, in batches; returns the number inserted."""
        rows = np.arange(vectors.shape[0], dtype=np.int64)
        if live is not None:
            rows = rows[live]
        for start in range(0, len(rows), INSERT_BATCH):
            r = rows[start : start + INSERT_BATCH]
            self.insert(r, np.ascontiguousarray(vectors[r], dtype=np.float32))
        return int(len(rows))

    def search_many(self, qs: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        return [self.search(q, k) for q in qs]


class StoreDenseIndex:
    """What `Index.dense` returns for an index whose vectors live in a store: same search contract as
    gaji.index.dense.DenseIndex (rows + cosine scores, best first)."""

    backend_name = "store"

    def __init__(self, store: DenseStore, dim: int, rows: int):
        self.store = store
        self._dim = int(dim)
        self._rows = int(rows)
        store.load()

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return self._rows

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        if k <= 0:
            return []
        return self.store.search(np.asarray(q, dtype=np.float32), int(k))

    def close(self) -> None:
        self.store.close()
