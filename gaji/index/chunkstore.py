"""The chunk store of an index folder: one JSON row per chunk, read on demand through mmap + offsets.

A deleted row holds `null` (row numbers never move, so BM25 and vector rows stay valid); file names in
gaji.index.layout.
"""
from __future__ import annotations

import io
import json
import mmap
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from gaji.io import atomic_write_bytes, atomic_write_json
from gaji.types import Chunk

from .layout import CHUNKS, IDS, OFFSETS

__all__ = ["ChunkStore"]


class ChunkStore:
    """Rows of chunks on disk, read on demand (mmap + offsets); deleted rows read as None."""

    def __init__(self, index_dir: str | Path):
        self.dir = Path(index_dir)
        self._offsets = np.load(self.dir / OFFSETS)
        self._file = open(self.dir / CHUNKS, "rb")
        size = os.fstat(self._file.fileno()).st_size
        self._mm = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._ids: list[list[str] | None] | None = None
        self._row_of: dict[str, int] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def close(self) -> None:
        if isinstance(self._mm, mmap.mmap):
            self._mm.close()
        self._file.close()

    def get(self, row: int) -> Chunk | None:
        if not 0 <= row < len(self):
            raise IndexError(row)
        raw = self._mm[int(self._offsets[row]) : int(self._offsets[row + 1])]
        d = json.loads(raw)
        return Chunk.from_dict(d) if d is not None else None

    def _load_ids(self) -> None:
        with self._lock:
            if self._ids is None:
                ids = json.loads((self.dir / IDS).read_text(encoding="utf-8"))
                self._row_of = {e[0]: i for i, e in enumerate(ids) if e is not None}
                self._ids = ids

    def row_of(self, chunk_id: str) -> int | None:
        self._load_ids()
        assert self._row_of is not None
        return self._row_of.get(chunk_id)

    def id_pairs(self) -> list[list[str] | None]:
        """[chunk_id, doc_id] per row (None for deleted rows)."""
        self._load_ids()
        assert self._ids is not None
        return self._ids

    def live_mask(self) -> np.ndarray:
        return np.array([e is not None for e in self.id_pairs()], dtype=bool)

    def rows(self) -> list[Chunk | None]:
        """Every row in order, None for deleted rows."""
        return [self.get(r) for r in range(len(self))]

    def __iter__(self) -> Iterator[Chunk]:
        for r in range(len(self)):
            c = self.get(r)
            if c is not None:
                yield c

    @staticmethod
    def write(index_dir: str | Path, rows: Iterable[Chunk | None]) -> int:
        """Write the chunk files for `rows` (None = deleted row); returns the number of rows."""
        d = Path(index_dir)
        d.mkdir(parents=True, exist_ok=True)
        offsets = [0]
        ids: list[list[str] | None] = []
        tmp = d / f".{CHUNKS}.tmp"
        with open(tmp, "wb") as f:
            for c in rows:
                if c is None:
                    line = b"null\n"
                    ids.append(None)
                else:
                    line = (json.dumps(c.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
                    ids.append([c.id, c.doc_id])
                f.write(line)
                offsets.append(offsets[-1] + len(line))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, d / CHUNKS)
        buf = io.BytesIO()
        np.save(buf, np.asarray(offsets, dtype=np.int64))
        atomic_write_bytes(d / OFFSETS, buf.getvalue())
        atomic_write_json(d / IDS, ids, indent=None)
        return len(ids)
