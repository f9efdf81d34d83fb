"""The on-disk layout of an index folder: the names of its files and folders, and of the work folders
beside it. Names only; what the files hold is described by the modules that write them.

An index folder ``NAME`` holds one committed generation of the index (gaji.index.generations):

    manifest.json         the commit point, replaced atomically by every writer (gaji.index.manifest):
                          its "generation" counts commits, its "data" names the folder of the parts
                          ("" = the parts sit in NAME itself, as a fresh build leaves them)
    writer.lock           held (flock) by the one process writing the index, with its owner (gaji.index.lock)
    gen-000007/           the parts of a generation written after the first build:
      chunks.jsonl        row i = chunk i as JSON; a deleted row is `null`       (gaji.index.chunkstore)
      chunks.offsets.npy  int64 byte offsets of the rows (O(1) random access through mmap)
      chunks.ids.json     [[chunk_id, doc_id] | null] per row
      documents.json      {doc_id: {source, sha256, file_sha256, indexed?}}: where each document came from (sync)
      lexical/            tantivy BM25 index (optional)                           (gaji.index.lexical)
      dense/vectors.npy   float32 [rows x dim] (optional), dense/hnsw.faiss for HNSW (gaji.index.dense)
      dense-fill/plan.json  vectors still to compute                            (gaji.index.fillplan)
      (and what an extension keeps with the chunks, e.g. expand/)
    dense-fill-parts/     the fill's embedding checkpoints, one folder per plan (written while the
                          generation that holds the plan is committed: never inside a generation)
    progress.json         what a build / add / fill is doing right now          (gaji.index.progress_file)
    refused.json          the files a sync or an upload could not read, and why (gaji.index.refusals)
    originals/ab/<sha256> the original files, one copy per content, shared by generations (gaji.index.originals)
    .tmp-XXXX/            one writer's work folder (a unique name), renamed to gen-N when complete
    store-pending.json    a vector database being brought in step with the next generation

Beside an index folder: ``.NAME.building`` (a build in progress, with build-state.json and dense-parts/
for resuming; it also holds the writer lock while NAME does not exist yet), ``.NAME.fill.lock`` (held by
the one process filling the vectors) and ``.NAME.old`` (the previous index during an older gaji's swap of
a finished folder into place).
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["MANIFEST", "CHUNKS", "OFFSETS", "IDS", "DOCUMENTS", "LEXICAL_DIR", "DENSE_DIR", "VECTORS",
           "HNSW_GRAPH", "PARTS_DIR", "STATE", "FILL_DIR", "FILL_PLAN", "FILL_PARTS", "PROGRESS", "LOCK",
           "STORE_PENDING", "REFUSED", "ORIGINALS", "GEN_PREFIX", "TMP_PREFIX", "ROOT_ONLY", "generation_name", "is_root_only",
           "building_dir", "backup_dir", "fill_lock"]

MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
OFFSETS = "chunks.offsets.npy"
IDS = "chunks.ids.json"
DOCUMENTS = "documents.json"
LEXICAL_DIR = "lexical"
DENSE_DIR = "dense"
VECTORS = "vectors.npy"  # inside DENSE_DIR
HNSW_GRAPH = "hnsw.faiss"  # inside DENSE_DIR
PARTS_DIR = "dense-parts"  # embedding checkpoints of an unfinished build
STATE = "build-state.json"  # what an unfinished build may resume
FILL_DIR = "dense-fill"  # a published index's missing vectors: FILL_PLAN
FILL_PLAN = "plan.json"  # inside FILL_DIR
FILL_PARTS = "dense-fill-parts"  # in the index folder: checkpoints of the fill, parts-<plan id>/
PROGRESS = "progress.json"
REFUSED = "refused.json"
ORIGINALS = "originals"  # the original files, content-addressed (gaji.index.originals)
LOCK = "writer.lock"
STORE_PENDING = "store-pending.json"
GEN_PREFIX = "gen-"
TMP_PREFIX = ".tmp-"
ROOT_ONLY = (MANIFEST, LOCK, STORE_PENDING, PROGRESS, FILL_PARTS, REFUSED, ORIGINALS)  # the index folder's, never one generation's


def generation_name(n: int) -> str:
    """The folder of the parts written by the commit of generation `n`."""
    return f"{GEN_PREFIX}{n:06d}"


def is_root_only(name: str) -> bool:
    """Whether an entry of the index folder belongs to the folder itself (not to the parts sitting there)."""
    return name in ROOT_ONLY or name.startswith(GEN_PREFIX) or name.startswith(TMP_PREFIX)


def _beside(index_dir: str | Path, suffix: str) -> Path:
    p = Path(index_dir)
    return p.parent / f".{p.name}.{suffix}"


def building_dir(index_dir: str | Path) -> Path:
    """Where a build of `index_dir` writes until it is complete."""
    return _beside(index_dir, "building")


def backup_dir(index_dir: str | Path) -> Path:
    """Where the old index waits while a finished folder is swapped in."""
    return _beside(index_dir, "old")


def fill_lock(index_dir: str | Path) -> Path:
    """The lock file of the process that fills the vectors of `index_dir`."""
    p = Path(index_dir)
    return p.parent / f".{p.name}.fill.lock"
