"""Every call to a dense-store server ends by the store deadline (GAJI_DEADLINE_S), whatever the client
library's own timeouts and retries do: a server that drips its answer fails the call with an IndexUnusableError
naming the engine, the server and the collection."""
from __future__ import annotations

import time

import numpy as np
import pytest

from gaji.errors import IndexUnusableError
from gaji.stores.base import DenseStore, parse_store_url
from gaji.testing import StallingServer


class HangingStore(DenseStore):
    title, where = "Fake", "http://127.0.0.1:1"

    def search(self, q, k):
        return self._call("search", time.sleep, 30)

    def count(self):
        return self._call("count", lambda: 3)

    def exists(self):
        return self._call("has_collection", self._boom)

    @staticmethod
    def _boom():
        raise RuntimeError("grpc said no")


def test_a_hanging_client_call_ends_at_the_deadline(monkeypatch):
    monkeypatch.setenv("GAJI_DEADLINE_S", "0.5")
    store = HangingStore(parse_store_url("milvus://127.0.0.1:1"), "c")
    assert store.deadline_s == 0.5 and store.count() == 3
    t0 = time.perf_counter()
    with pytest.raises(IndexUnusableError, match=r"Fake http://127.0.0.1:1 collection 'c': search: no answer within 0.5 s"):
        store.search(np.zeros(4), 1)
    assert time.perf_counter() - t0 < 1.5
    with pytest.raises(IndexUnusableError, match="has_collection failed: grpc said no"):
        store.exists()


def test_qdrant_over_a_dripping_server_fails_within_the_deadline(monkeypatch):
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed: pip install 'gaji[scale]'")
    from gaji.stores.qdrant import QdrantStore

    srv = StallingServer(drip_s=0.2)
    try:
        monkeypatch.setenv("GAJI_DEADLINE_S", "1")
        store = QdrantStore(parse_store_url(srv.url.replace("http", "qdrant")), "gaji_drip")
        t0 = time.perf_counter()
        with pytest.raises(IndexUnusableError, match=r"Qdrant http://127.0.0.1:\d+ collection 'gaji_drip': query_points: "
                                               r"no answer within 1 s"):
            store.search(np.zeros(4, dtype=np.float32), 1)
        assert time.perf_counter() - t0 < 2.5
    finally:
        srv.close()
