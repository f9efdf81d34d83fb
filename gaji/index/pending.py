"""Searching an index whose vectors are still being computed: BM25 answers, and says so.

    r = index.retriever("hybrid")    # vectors pending: a BM25UntilVectors, r.name == "bm25" until they are done
    vectors_status(index)            # {"state": "pending", "done": 1200, "total": 6642, "rate": 5.1, "eta_s": ..}
    vectors_note(index)              # what `gaji ask` prints while they are pending, else None

The switch to the retriever that was asked for (hybrid, dense, ...) happens by itself: while the
manifest says pending, every search first looks whether the manifest on disk has changed (one `stat`),
and once a fill has completed the vectors the requested retriever is built and answers from then on.
`name` is the retriever actually answering, so a trace records "bm25" while the vectors are pending.
Both are found by name in `gaji.registry.RETRIEVERS` (gaji/retrieve/): the index never imports a retriever.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

from gaji.errors import IndexUnusableError
from gaji.registry import RETRIEVERS
from gaji.types import Passage, Retriever

from .layout import MANIFEST
from .manifest import read_manifest
from .progress_file import format_eta, read_progress

__all__ = ["VectorsPending", "BM25UntilVectors", "still_pending", "vectors_status", "vectors_note"]


class VectorsPending(IndexUnusableError):
    """The index's vectors are still being computed: search it with BM25 meanwhile."""


_seen: "weakref.WeakKeyDictionary[Any, tuple[int, int]]" = weakref.WeakKeyDictionary()  # index -> manifest stat


def still_pending(index: Any) -> bool:
    """Whether the vectors of `index` (an Index whose manifest says pending) are still pending on disk.
    When a fill has completed them, the index reads the generation the fill committed (`Index.vectors_filled`)."""
    try:
        st = (index.path / MANIFEST).stat()
    except OSError:
        return True
    key = (st.st_mtime_ns, st.st_size)
    if _seen.get(index) == key:
        return True
    try:
        m = read_manifest(index.path)
    except IndexUnusableError:
        return True
    _seen[index] = key
    if m.vectors_pending or m.counts.get("rows") != index.manifest.counts.get("rows"):
        return True  # (other changes, e.g. an add, are for a reopened Index to show)
    return not index.vectors_filled(m)


class BM25UntilVectors(Retriever):
    """The retriever `requested` over `index`, answered by BM25 while the index's vectors are pending."""

    def __init__(self, index: Any, requested: str, options: dict[str, Any]):
        if not index.has_lexical:
            raise VectorsPending(f"{index.path}: the vectors are still being computed and this index has no BM25 "
                                 f"part to answer meanwhile; search it once `gaji index fill {index.path}` is done")
        self.index = index
        self.requested = requested
        self.options = dict(options)
        self.bm25 = RETRIEVERS.get("bm25")(index)
        self._ready: Retriever | None = None
        self._lock = threading.Lock()

    def current(self) -> Retriever:
        """The retriever answering now: BM25 while the vectors are pending, the requested one after."""
        if self._ready is not None:
            return self._ready
        if self.index.vectors_pending:
            return self.bm25
        with self._lock:
            if self._ready is None:
                self._ready = RETRIEVERS.get(self.requested)(self.index, **self.options)
            return self._ready

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.current().name

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return self.current().search(query, k)

    def search_many(self, queries: list[str], k: int = 5) -> list[list[Passage]]:
        return self.current().search_many(queries, k)

    def describe(self) -> dict:
        r = self.current()
        if r is not self.bm25:
            return r.describe()
        return {**r.describe(), "requested": self.requested, "vectors": vectors_status(self.index)}


def vectors_status(index: Any) -> dict[str, Any]:
    """The state of the index's vectors: complete, none (no dense part) or pending with the fill's progress
    (done, total, rate per second, eta_s, running: whether a process is filling them now)."""
    if not index.has_dense:
        return {"state": "none"}
    if not index.vectors_pending:
        return {"state": "complete"}
    v = index.manifest.vectors
    out: dict[str, Any] = {"state": "pending", "done": 0, "total": int(v.get("pending", 0)), "rate": None,
                           "eta_s": None, "running": False}
    prog = read_progress(index.path) or {}
    if prog.get("stage") in ("embedding", "vectors") or prog.get("stopped_in") == "embedding":
        out.update({k: prog.get(k) for k in ("done", "total", "rate", "eta_s", "running")})
    return out


def vectors_note(index: Any) -> str | None:
    """One sentence for a person while the vectors are pending (None once they are complete)."""
    s = vectors_status(index)
    if s["state"] != "pending":
        return None
    where = f"{s['done'] or 0:,} of {s['total'] or 0:,} passages"
    if s.get("running") and s.get("eta_s") is not None:
        where += f", about {format_eta(s['eta_s'])} left"
    elif not s.get("running"):
        where += f"; no fill is running: `gaji index fill {index.path}` resumes it"
    return f"vectors are still being computed ({where}): BM25 answers meanwhile, hybrid search switches on when they are done"
