"""Pointing a built index at a vector database (`gaji index attach-store`): its vectors are loaded into
the store as they are (no re-embedding) and its searches go there from then on.

    attach_store(".gaji/bench/hotpotqa", "milvus://127.0.0.1:19530", out="runs/hotpot-milvus")
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np

from gaji.errors import ConfigError
from gaji.stores.sync import push_vectors

from .chunkstore import ChunkStore
from .layout import DENSE_DIR, MANIFEST, VECTORS
from .manifest import read_manifest, write_manifest

__all__ = ["attach_store"]


def _copy_to(src: Path, out: str | Path) -> Path:
    target = Path(out)
    if target.exists():
        if not (target / MANIFEST).exists():
            raise ConfigError(f"{target} exists and is not a gaji index: refusing to overwrite it")
        shutil.rmtree(target)
    shutil.copytree(src, target)
    return target


def attach_store(index_dir: str | Path, url: str, out: str | Path | None = None) -> str:
    """Load an existing index's vectors (dense/vectors.npy: no re-embedding) into a store and point the
    index at it. With `out`, the index folder is copied there first and the copy is changed (the
    original keeps searching its own vectors). Returns the store location."""
    src = Path(index_dir)
    m = read_manifest(src)
    if not m.has_dense:
        raise ConfigError(f"{src}: this index has no dense part to put in a store")
    if m.vectors_pending:
        raise ConfigError(f"{src}: its vectors are still being computed; finish them first: gaji index fill {src}")
    target = _copy_to(src, out) if out is not None else src
    vectors = np.load(target / DENSE_DIR / VECTORS, mmap_mode="r")
    live = None
    if m.counts.get("deleted"):
        cs = ChunkStore(target)
        live = cs.live_mask()
        cs.close()
    fp = str(m.created or "") + str(m.counts.get("rows"))
    loc = push_vectors(url, target.resolve().name, hashlib.sha256(fp.encode()).hexdigest(), vectors, live)
    m.config["dense_store"] = loc
    write_manifest(target, m)
    return loc
