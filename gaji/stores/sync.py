"""Moving an index's vectors into a dense store and keeping them in step (used by gaji.index.store).

    loc = push_vectors("milvus://127.0.0.1:19530", "hotpot", fingerprint, vectors)  # build
    sync_rows(loc, changed_rows, changed_vectors, deleted_rows)                       # Index.add
    attach_store(".gaji/bench/hotpotqa", "milvus://127.0.0.1:19530", out="runs/hotpot-milvus")
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from gaji.errors import ConfigError, IndexError_

from .base import StoreDenseIndex, collection_name, open_dense_store, parse_store_url

__all__ = ["check_store", "push_vectors", "sync_rows", "attach_store", "open_store_index"]


def check_store(url: str) -> None:
    """Before a build spends time embedding: the URL parses, names a known store, and its server (if it has
    one) answers within a few seconds. Opening the store does it: each backend checks its server with one
    bounded TCP connect before its client is made (IndexError_ naming the address otherwise)."""
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
        raise IndexError_(f"{store.location}: inserted {n} vectors but the store holds {got}")
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


def attach_store(index_dir: str | Path, url: str, out: str | Path | None = None) -> str:
    """Load an existing index's vectors (dense/vectors.npy: no re-embedding) into a store and point the
    index at it. With `out`, the index folder is copied there first and the copy is changed (the
    original keeps searching its own vectors). Returns the store location."""
    from gaji.index.manifest import read_manifest, write_manifest
    from gaji.index.store import DENSE_DIR

    src = Path(index_dir)
    m = read_manifest(src)
    if not m.has_dense:
        raise ConfigError(f"{src}: this index has no dense part to put in a store")
    target = src
    if out is not None:
        target = Path(out)
        if target.exists():
            if not (target / "manifest.json").exists():
                raise ConfigError(f"{target} exists and is not a gaji index: refusing to overwrite it")
            shutil.rmtree(target)
        shutil.copytree(src, target)
    vectors = np.load(target / DENSE_DIR / "vectors.npy", mmap_mode="r")
    live = None
    if m.counts.get("deleted"):
        from gaji.index.store import ChunkStore

        cs = ChunkStore(target)
        live = cs.live_mask()
        cs.close()
    fp = str(m.created or "") + str(m.counts.get("rows"))
    import hashlib

    loc = push_vectors(url, target.resolve().name, hashlib.sha256(fp.encode()).hexdigest(), vectors, live)
    m.config["dense_store"] = loc
    write_manifest(target, m)
    return loc
