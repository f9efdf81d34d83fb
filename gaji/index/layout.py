"""The on-disk layout of an index folder: the names of its files and folders, and of the work folders
beside it. Names only; what the files hold is described by the modules that write them.

    manifest.json         written last (gaji.index.manifest); no complete manifest = no index
    chunks.jsonl          row i = chunk i as JSON; a deleted row is `null`       (gaji.index.chunkstore)
    chunks.offsets.npy    int64 byte offsets of the rows (O(1) random access through mmap)
    chunks.ids.json       [[chunk_id, doc_id] | null] per row
    lexical/              tantivy BM25 index (optional)                           (gaji.index.lexical)
    dense/vectors.npy     float32 [rows x dim] (optional), dense/hnsw.faiss for HNSW (gaji.index.dense)
    dense-fill/           vectors still to compute: plan.json + checkpoints   (gaji.index.fillplan)
    progress.json         what a build / add / fill is doing right now          (gaji.index.progress_file)

Beside an index folder ``NAME``: ``.NAME.building`` (a build in progress, with build-state.json and
dense-parts/ for resuming), ``.NAME.adding`` (an add in progress), ``.NAME.old`` (the previous
index during the swap of a finished folder into place) and ``.NAME.fill.lock`` (held by the one process
filling the vectors; beside the folder because a swap replaces the folder).
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["MANIFEST", "CHUNKS", "OFFSETS", "IDS", "LEXICAL_DIR", "DENSE_DIR", "VECTORS", "HNSW_GRAPH",
           "PARTS_DIR", "STATE", "FILL_DIR", "FILL_PLAN", "PROGRESS", "building_dir", "adding_dir", "backup_dir",
           "fill_lock"]

MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
OFFSETS = "chunks.offsets.npy"
IDS = "chunks.ids.json"
LEXICAL_DIR = "lexical"
DENSE_DIR = "dense"
VECTORS = "vectors.npy"  # inside DENSE_DIR
HNSW_GRAPH = "hnsw.faiss"  # inside DENSE_DIR
PARTS_DIR = "dense-parts"  # embedding checkpoints of an unfinished build
STATE = "build-state.json"  # what an unfinished build may resume
FILL_DIR = "dense-fill"  # a published index's missing vectors: FILL_PLAN + checkpoint folders
FILL_PLAN = "plan.json"  # inside FILL_DIR
PROGRESS = "progress.json"


def _beside(index_dir: str | Path, suffix: str) -> Path:
    p = Path(index_dir)
    return p.parent / f".{p.name}.{suffix}"


def building_dir(index_dir: str | Path) -> Path:
    """Where a build of `index_dir` writes until it is complete."""
    return _beside(index_dir, "building")


def adding_dir(index_dir: str | Path) -> Path:
    """Where `Index.add` changes a copy of `index_dir`."""
    return _beside(index_dir, "adding")


def backup_dir(index_dir: str | Path) -> Path:
    """Where the old index waits while a finished folder is swapped in."""
    return _beside(index_dir, "old")


def fill_lock(index_dir: str | Path) -> Path:
    """The lock file of the process that fills the vectors of `index_dir`."""
    p = Path(index_dir)
    return p.parent / f".{p.name}.fill.lock"
