"""Keeping a vector database in step with the index across crashes.

A vector database (gaji/stores/) has no generations: a writer changes its collection in place, before it
commits the index's next generation. So the writer first leaves ``store-pending.json`` in the index
folder and removes it after the commit; a writer that finds it (its predecessor died in between) loads
the committed generation's vectors (dense/vectors.npy, always kept) into the collection again.

    store_pending(root); sync_rows(...); commit(...); store_synced(root)     # gaji.index.update
    redo_store(root, parts_dir, manifest)                                    # gaji.index.generations.writing
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from gaji.io import atomic_write_json
from gaji.stores.sync import push_vectors

from .chunkstore import ChunkStore
from .layout import DENSE_DIR, STORE_PENDING, VECTORS
from .manifest import Manifest, utc_now

__all__ = ["store_pending", "store_synced", "redo_store", "live_rows"]


def store_pending(root: str | Path) -> None:
    """Say that the vector database is about to run ahead of the committed generation."""
    atomic_write_json(Path(root) / STORE_PENDING, {"since": utc_now(), "pid": os.getpid()})


def store_synced(root: str | Path) -> None:
    (Path(root) / STORE_PENDING).unlink(missing_ok=True)


def live_rows(parts_dir: str | Path, m: Manifest) -> np.ndarray | None:
    """The mask of rows holding a chunk (None when every row does)."""
    if not m.counts.get("deleted"):
        return None
    cs = ChunkStore(parts_dir)
    try:
        return cs.live_mask()
    finally:
        cs.close()


def redo_store(root: str | Path, parts_dir: str | Path, m: Manifest) -> bool:
    """After a writer died while changing the vector database: load the committed generation's vectors
    into its collection again. Returns whether there was anything to redo."""
    if not (Path(root) / STORE_PENDING).exists():
        return False
    loc = m.config.get("dense_store")
    if loc and m.has_dense:
        vectors = np.load(Path(parts_dir) / DENSE_DIR / VECTORS, mmap_mode="r")
        push_vectors(str(loc), "", "", vectors, live_rows(parts_dir, m))
    store_synced(root)
    return True
