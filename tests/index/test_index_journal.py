"""A vector database kept in step with the index (gaji.index.journal): removal reaches it, and a writer that
died between changing it and committing is redone by the next writer."""
from __future__ import annotations

import numpy as np
import pytest

from gaji.index.journal import store_pending
from gaji.index.store import open_index
from gaji.stores.sync import open_dense_store

from fakes_index import DOCS, build_small

pytest.importorskip("qdrant_client")


def test_remove_reaches_the_store_and_a_dead_writers_change_is_redone(tmp_path):
    out = tmp_path / "idx"
    url = f"qdrant+local:{tmp_path / 'qdrant'}?collection=journal"
    build_small(out, dense_store=url)
    idx = open_index(out)
    loc = idx.manifest.config["dense_store"]
    assert open_dense_store(loc).count() == 5
    idx.remove(["python"])
    assert open_dense_store(loc).count() == 4
    assert all(p.id != "python" for p in open_index(out).retriever("dense").search("Guido van Rossum", 4))
    # a writer changed the store, then was killed before its commit: the store runs ahead of the index
    store_pending(out)
    st = open_dense_store(loc)
    st.delete(np.array([0, 1], dtype=np.int64))
    assert st.count() == 2
    del st
    open_index(out).remove(["atlantis"], missing_ok=True)  # any writer redoes it first
    assert not (out / "store-pending.json").exists() and open_dense_store(loc).count() == 4
    assert open_index(out).retriever("dense").search("Battle of Guam 1944", 1)[0].id == "guam"


def test_attach_store_in_place_is_a_new_generation(tmp_path):
    from gaji.index.attach import attach_store

    out = tmp_path / "idx"
    build_small(out, lexical=False)
    reader = open_index(out)
    loc = attach_store(out, f"qdrant+local:{tmp_path / 'qdrant'}?collection=attached")
    assert not reader.is_current() and "dense_store" not in reader.manifest.config
    idx = reader.reopen()
    assert idx.generation == reader.generation + 1 and idx.dir == reader.dir and idx.manifest.config["dense_store"] == loc
    assert type(idx.dense).__name__ == "StoreDenseIndex" and open_dense_store(loc).count() == 5
    assert idx.retriever("dense").search("Guido van Rossum programming language", 1)[0].id == "python"
