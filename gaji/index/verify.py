"""Whether the parts of an opened index agree with each other: the crash harness's invariants.

    problems = verify(open_index("runs/idx"))        # [] when consistent

Checked: the manifest's counts against the chunk store (rows, deleted rows, chunks, documents); every row
of the chunk store against its id file; the BM25 part holds exactly the live rows; the vectors have
one row per chunk row, zero exactly at deleted rows, and an HNSW graph holds exactly the live rows (or,
while they are pending, a plan of them exists); documents.json names exactly the documents with chunks
(when the index keeps it).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .layout import DENSE_DIR, DOCUMENTS, HNSW_GRAPH, VECTORS
from .sources import read_records

__all__ = ["verify"]


def _store(idx: Any, problems: list[str]) -> tuple[list[int], set[str]]:
    """Live rows and their documents; problems of the chunk store and the manifest's counts."""
    store = idx.store
    pairs = store.id_pairs()
    if len(pairs) != len(store):
        problems.append(f"chunk ids list {len(pairs)} rows, the chunk store {len(store)}")
    live = []
    for r in range(len(store)):
        c = store.get(r)
        p = pairs[r] if r < len(pairs) else None
        if (c is None) != (p is None) or (c is not None and p != [c.id, c.doc_id]):
            problems.append(f"row {r}: chunk store {c.id if c else None!r}, id file {p!r}")
        if c is not None:
            live.append(r)
    docs = {pairs[r][1] for r in live if pairs[r]}
    want = {"rows": len(store), "deleted": len(store) - len(live), "chunks": len(live), "documents": len(docs)}
    got = {k: idx.manifest.counts.get(k) for k in want}
    if got != want:
        problems.append(f"manifest counts {got}, the chunk store {want}")
    return live, docs


def _dense(idx: Any, live: list[int], rows: int, problems: list[str]) -> None:
    vecs = np.load(idx.dir / DENSE_DIR / VECTORS, mmap_mode="r")
    if vecs.shape[0] != rows:
        problems.append(f"{vecs.shape[0]} vectors for {rows} chunk rows")
        return
    zero = ~np.asarray(vecs).any(axis=1)
    want = np.ones(rows, dtype=bool)
    want[live] = False
    if not np.array_equal(zero, want):
        problems.append(f"zero vectors at rows {np.flatnonzero(zero)[:10].tolist()}, deleted rows "
                        f"{np.flatnonzero(want)[:10].tolist()}")
    if idx.manifest.config.get("dense_backend") == "hnsw" and not idx.manifest.config.get("dense_store"):
        import faiss

        graph = faiss.read_index(str(idx.dir / DENSE_DIR / HNSW_GRAPH))
        ids = sorted(faiss.vector_to_array(graph.id_map).tolist())
        if ids != live:
            problems.append(f"the HNSW graph holds {len(ids)} rows, the chunk store {len(live)} live rows")


def verify(idx: Any) -> list[str]:
    """What disagrees between the parts of the opened index `idx` (gaji.index.store.Index); [] if nothing."""
    problems: list[str] = []
    live, docs = _store(idx, problems)
    if idx.manifest.has_lexical:
        got = idx.lexical.rows()
        if got != live:
            problems.append(f"BM25 holds {len(got)} rows, the chunk store {len(live)} live rows "
                            f"(first differences: {sorted(set(got) ^ set(live))[:10]})")
    if idx.manifest.vectors_pending:  # no dense part to check yet: its plan must be there
        from .fillplan import FillPlan

        if FillPlan.load(idx.dir) is None:
            problems.append("the manifest says the vectors are pending, but there is no plan of them")
    elif idx.manifest.has_dense:
        _dense(idx, live, len(idx.store), problems)
    if (idx.dir / DOCUMENTS).exists():
        recorded = set(read_records(idx.dir))
        if recorded != docs:
            problems.append(f"documents.json names {len(recorded)} documents, the chunks belong to {len(docs)} "
                            f"(first differences: {sorted(recorded ^ docs)[:10]})")
    return problems
