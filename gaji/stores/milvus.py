"""Milvus as the dense store (pymilvus client; tested against the Milvus 2.3.5 standalone server that the
PyPI package `milvus` ships, started on 127.0.0.1 by gaji.stores.milvus_server).

    milvus://127.0.0.1:19530?collection=NAME            FLAT index, inner product: exact, same ranking as
                                                          the embedded numpy search
    milvus://127.0.0.1:19530?collection=NAME&index=HNSW  approximate (M=32, efConstruction=80, ef=128)
    ...&consistency=Bounded                               faster reads that may miss writes of the last
                                                          seconds (default Strong)

Schema: ``id`` INT64 primary key (the index row, not auto-generated) + ``vector`` FLOAT_VECTOR(dim).
Reads are Strong-consistency by default, so a search right after an insert or delete sees it; that
waits for the server's time tick (~0.2-0.3 s per search measured here), Bounded does not.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from gaji.errors import ConfigError, IndexUnusableError
from gaji.registry import DENSE_STORES

from .base import DenseStore, StoreURL

__all__ = ["MilvusStore", "INDEX_TYPES"]

INDEX_TYPES = ("FLAT", "HNSW")
CONSISTENCY = ("Strong", "Bounded", "Session", "Eventually")
HNSW_PARAMS = {"M": 32, "efConstruction": 80}
HNSW_EF = 128
TIMEOUT_S = 60.0

_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def _client(uri: str):
    """One pymilvus client per server URI per process (clients are thread-safe)."""
    try:
        from pymilvus import MilvusClient
    except ImportError:
        raise ConfigError("the milvus dense store needs pymilvus: pip install 'gaji[scale]'") from None
    with _clients_lock:
        c = _clients.get(uri)
        if c is None:
            check_server(uri)
            try:
                c = MilvusClient(uri=uri, timeout=TIMEOUT_S)
            except Exception as e:  # noqa: BLE001 - pymilvus raises its own types; say what failed
                raise IndexUnusableError(f"cannot reach Milvus at {uri}: {type(e).__name__}: {e}") from None
            _clients[uri] = c
        return c


def check_server(uri: str) -> None:
    """Fail in seconds, not after pymilvus' 60 s connect timeout, when nothing listens at `uri`."""
    import urllib.parse

    from gaji.netcheck import unreachable

    parts = urllib.parse.urlsplit(uri)
    why = unreachable(parts.hostname or "", parts.port or 19530)
    if why:
        raise IndexUnusableError(f"cannot reach Milvus at {uri}: {why}; is the Milvus server running there? "
                          "(check the milvus://HOST:PORT of --dense-store, or the index's manifest dense_store)")


def forget_client(uri: str) -> None:
    """Drop the cached client for `uri` (after its server stopped)."""
    with _clients_lock:
        c = _clients.pop(uri, None)
    if c is not None:
        try:
            c.close()
        except Exception:  # noqa: BLE001 - closing a dead connection
            pass


class MilvusStore(DenseStore):
    title = "Milvus"
    name = "milvus"

    def __init__(self, url: StoreURL, collection: str):
        super().__init__(url, collection)
        if not url.host:
            raise ConfigError(f"milvus store URL {url.raw!r} needs a host: milvus://127.0.0.1:19530")
        self.uri = self.where = f"http://{url.host}:{url.port or 19530}"
        self.index_type = url.params.get("index", "FLAT").upper()
        if self.index_type not in INDEX_TYPES:
            raise ConfigError(f"milvus index {self.index_type!r} not supported; use {', '.join(INDEX_TYPES)}")
        self.consistency = url.params.get("consistency", "Strong").capitalize()
        if self.consistency not in CONSISTENCY:
            raise ConfigError(f"milvus consistency {self.consistency!r} not supported; use {', '.join(CONSISTENCY)}")
        self.client = _client(self.uri)
        self._loaded = False

    def exists(self) -> bool:
        return bool(self._call("has_collection", self.client.has_collection, self.collection))

    def create(self, dim: int, replace: bool = False) -> None:
        from pymilvus import DataType, MilvusClient

        if self.exists():
            if not replace:
                raise IndexUnusableError(f"Milvus collection {self.collection!r} already exists at {self.uri}")
            self.drop()
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=int(dim))
        ip = self.client.prepare_index_params()
        params = HNSW_PARAMS if self.index_type == "HNSW" else {}
        ip.add_index(field_name="vector", index_type=self.index_type, metric_type="IP", params=params)
        self._call("create_collection", self.client.create_collection, self.collection, schema=schema,
                   index_params=ip, consistency_level="Strong")
        self.dim = int(dim)
        self._loaded = False

    def load(self) -> None:
        if not self._loaded:
            if not self.exists():
                raise IndexUnusableError(
                    f"Milvus at {self.uri} has no collection {self.collection!r}: rebuild the index with "
                    "`gaji index build ... --dense-store milvus://...` or attach it again"
                )
            self._call("load_collection", self.client.load_collection, self.collection)
            self._loaded = True

    def insert(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        data = [{"id": int(r), "vector": v.tolist()} for r, v in zip(rows, np.asarray(vectors, dtype=np.float32))]
        if data:
            self._call("insert", self.client.insert, self.collection, data)

    def flush(self) -> None:
        self._call("flush", self.client.flush, self.collection)

    def delete(self, rows: np.ndarray) -> None:
        ids = [int(r) for r in rows]
        if ids:
            self._call("delete", self.client.delete, self.collection, ids=ids)

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        self.load()
        params: dict[str, Any] = {"metric_type": "IP"}
        if self.index_type == "HNSW":
            params["params"] = {"ef": max(HNSW_EF, k)}
        res = self._call("search", self.client.search, self.collection, [np.asarray(q, dtype=np.float32).tolist()],
                         limit=int(k), search_params=params, consistency_level=self.consistency)
        hits = res[0] if res else []
        out = [(int(h["id"]), float(h["distance"])) for h in hits]
        out.sort(key=lambda t: (-t[1], t[0]))  # score desc, then row asc: the embedded index's tie order
        return out

    def count(self) -> int:
        res = self._call("count", self.client.query, self.collection, filter="", output_fields=["count(*)"],
                         consistency_level="Strong")
        return int(res[0]["count(*)"]) if res else 0

    def drop(self) -> None:
        self._call("drop_collection", self.client.drop_collection, self.collection)
        self._loaded = False

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["index"] = self.index_type
        d["consistency"] = self.consistency
        return d


@DENSE_STORES.register("milvus", help="Milvus server (pymilvus): milvus://HOST:PORT[?collection=NAME&index=FLAT|HNSW]")
def _milvus(url: StoreURL, collection: str) -> MilvusStore:
    return MilvusStore(url, collection)
