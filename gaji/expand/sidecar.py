"""The files chunk expansion keeps with an index's parts, in ``expand/`` of the generation folder
(gaji.index.layout): the expansions used by the build and the chunk keywords of `gaji expand
chunk-keywords`. They go with the chunks from generation to generation, and lose the entries of chunks
that leave the index (`prune`, the composition's `ChunkTexts.prune`).

    parts = index_parts(index)                  # an opened Index's generation, or an index folder's current one
    parts / EXPAND_DIR / EXPANSIONS_FILE
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gaji.index.generations import parts_dir
from gaji.io import atomic_write_text

__all__ = ["EXPAND_DIR", "EXPANSIONS_FILE", "KEYWORDS_FILE", "index_parts", "prune"]

EXPAND_DIR = "expand"
EXPANSIONS_FILE = "expansions.jsonl"  # records keyed by "chunk_id"
KEYWORDS_FILE = "keywords.jsonl"  # a header line, then records keyed by "id"


def index_parts(index: Any) -> Path:
    """Where the parts of `index` are: an opened Index's own generation (`Index.dir`), else the committed
    generation of the index folder `index` (or `index.path`)."""
    d = getattr(index, "dir", None)
    if isinstance(d, Path):
        return d
    return parts_dir(getattr(index, "path", index))


def _prune_jsonl(path: Path, key: str, chunk_ids: set[str]) -> None:
    if not path.exists():
        return
    kept = []
    dropped = 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            rec = json.loads(line)
        except ValueError:  # a torn line: the readers skip it, so can we
            kept.append(line)
            continue
        if isinstance(rec, dict) and rec.get(key) in chunk_ids:
            dropped += 1
        else:
            kept.append(line)
    if dropped:
        atomic_write_text(path, "".join(kept))


def prune(parts: Path, chunk_ids: set[str]) -> None:
    """Drop the expansions and keywords of `chunk_ids` from the expansion files in `parts` (a writer's
    copy of a generation)."""
    _prune_jsonl(parts / EXPAND_DIR / EXPANSIONS_FILE, "chunk_id", chunk_ids)
    _prune_jsonl(parts / EXPAND_DIR / KEYWORDS_FILE, "id", chunk_ids)
