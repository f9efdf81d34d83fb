"""Opening a dense store by URL, moving an index's vectors into it and keeping them in step. The index
hands over arrays and rows; this module knows no index folder.

    store = open_dense_store("qdrant+local:runs/qdrant?collection=notes")           # backend by URL scheme
    check_store("milvus://127.0.0.1:19530")                                          # before a build embeds
    loc = push_vectors("milvus://127.0.0.1:19530", "hotpot", fingerprint, vectors)  # build, attach-store
    sync_rows(loc, changed_rows, changed_vectors, deleted_rows)                       # Index.add
    open_store_index(loc, dim, rows)                                                  # Index.dense
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from gaji.errors import ConfigError, IndexUnusableError
from gaji.registry import DENSE_STORES

from .base import DenseStore, StoreDenseIndex, collection_name, parse_store_url

__all__ = ["open_dense_store", "check_store", "push_vectors", "sync_rows", "open_store_index"]


# The lookup lives here, not in base.py: the backends import base.py, and the registry imports the backends.
def open_dense_store(url: str, collection: str | None = None) -> DenseStore:
    """The store for `url` (backend from the registry by scheme); `collection` overrides the URL's."""
    u = parse_store_url(url)
    name = collection or u.collection
    if not name:
        raise ConfigError(f"dense store URL {url!r} names no collection (add ?collection=NAME)")
    return DENSE_STORES.get(u.scheme)(u, name)


def check_store(url: str) -> None:
    """Before a build spends time embedding: the URL parses, names a known store, and its server (if it has
    one) answers within a few seconds. Opening the store does it: each backend checks its server with one
    bounded TCP connect before its client is made (IndexUnusableError naming the address otherwise)."""
    open_dense_store(url, parse_store_url(url).collection or "gaji_check")


def push_vectors(url: str, hint: str, fingerprint: str, vectors: np.ndarray, live: np.ndarray | None = None,
                 stats: dict[str, Any] | None = None) -> str:
    """(Re)create the collection for this index in the store at `url` and insert every live row.
    Returns the store location (URL with the collection) for the manifest."""
    u = parse_store_url(url)
    name = u.collection or collection_name(hint, fingerprint)
    store = open_dense_store(url, name)
    t0 = time.perf_counter()
    store.create(int(vectors.shape[1]), replace=True)
    n = store.insert_all(vectors, live)
    if hasattr(store, "flush"):
        store.flush()
    store.load()
    got = store.count()
    if got != n:
        raise IndexUnusableError(f"{store.location}: inserted {n} vectors but the store holds {got}")
    if stats is not None:
        stats["dense_store_insert_s"] = time.perf_counter() - t0
        stats["dense_store_rows"] = n
    return store.location


def sync_rows(location: str, rows: np.ndarray, vectors: np.ndarray, deleted: np.ndarray) -> None:
    """Apply an `Index.add` to the store: delete removed and replaced rows, insert the (re)embedded ones."""
    store = open_dense_store(location)
    gone = np.union1d(np.asarray(deleted, dtype=np.int64), np.asarray(rows, dtype=np.int64))
    if len(gone):
        store.delete(gone)
    if len(rows):
        store.insert(np.asarray(rows, dtype=np.int64), vectors)
    if hasattr(store, "flush"):
        store.flush()


def open_store_index(location: str, dim: int, rows: int) -> StoreDenseIndex:
    return StoreDenseIndex(open_dense_store(location), dim, rows)
