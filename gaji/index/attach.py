"""Pointing a built index at a vector database (`gaji index attach-store`): its vectors are loaded into
the store as they are (no re-embedding) and its searches go there from then on.

    attach_store(".gaji/bench/hotpotqa", "milvus://127.0.0.1:19530", out="runs/hotpot-milvus")

Without `out` the index itself changes: under its writer lock, a new generation that differs only in
its manifest. With `out` the committed generation is copied there as a new index (or as the next
generation of the index already there) and the copy changes.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from gaji.errors import ConfigError
from gaji.stores.sync import push_vectors

from .folders import check_target, empty_build_dir
from .generations import Snapshot, commit_manifest, copy_parts, install, snapshot
from .journal import live_rows
from .layout import DENSE_DIR, VECTORS, building_dir
from .lock import writer_lock
from .manifest import Manifest
from .session import writing

__all__ = ["attach_store"]


def _push(parts: Path, m: Manifest, url: str, name: str) -> str:
    if not m.has_dense:
        raise ConfigError(f"{name}: this index has no dense part to put in a store")
    if m.vectors_pending:
        raise ConfigError(f"{name}: its vectors are still being computed; finish them first: gaji index fill {name}")
    vectors = np.load(parts / DENSE_DIR / VECTORS, mmap_mode="r")
    fp = str(m.created or "") + str(m.counts.get("rows"))
    return push_vectors(url, name, hashlib.sha256(fp.encode()).hexdigest(), vectors, live_rows(parts, m))


def _attach_in_place(src: Path, url: str, wait_s: float | None) -> str:
    with writing(src, "attach-store", wait_s) as snap:
        loc = _push(snap.dir, snap.manifest, url, src.resolve().name)
        m = Manifest.from_dict(snap.manifest.to_dict())
        m.config["dense_store"] = loc
        m.generation += 1  # the same parts, searched elsewhere: readers reopen
        commit_manifest(src, m)
    return loc


def _attach_copy(snap: Snapshot, target: Path, url: str, wait_s: float | None) -> str:
    if not snap.manifest.has_dense:
        raise ConfigError(f"{snap.root}: this index has no dense part to put in a store")
    with writer_lock(target, wait_s, "attach-store"):
        check_target(target)
        work = building_dir(target)  # put in place like a finished build
        empty_build_dir(work)
        try:
            copy_parts(snap.dir, work, snap.root)
            m = Manifest.from_dict(snap.manifest.to_dict())
            m.config["dense_store"] = _push(work, m, url, target.resolve().name)
            install(work, target, m)
        except BaseException:
            empty_build_dir(work)
            raise
    return str(m.config["dense_store"])


def attach_store(index_dir: str | Path, url: str, out: str | Path | None = None, wait_s: float | None = None) -> str:
    """Load an existing index's vectors (dense/vectors.npy: no re-embedding) into a store and point the
    index at it. With `out`, the index is copied there first and the copy is changed (the original keeps
    searching its own vectors). Returns the store location."""
    src = Path(index_dir)
    if out is None:
        return _attach_in_place(src, url, wait_s)
    snap = snapshot(src)
    try:
        return _attach_copy(snap, Path(out), url, wait_s)
    finally:
        snap.release()
