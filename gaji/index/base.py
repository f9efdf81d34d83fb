"""The retriever contract every search backend meets (BM25, dense, hybrid, ConTRe, servers).

    r = index.retriever("hybrid")
    passages = r.search("Which battle occurred first?", k=5)   # list[Passage], best first

Retrievers are registered in `gaji.registry.RETRIEVERS` by name; an on-disk index
(`gaji.index.store.Index`) builds them from what it holds.
"""
from __future__ import annotations

from gaji.types import Passage


class Retriever:
    name: str = "retriever"

    def search(self, query: str, k: int = 5) -> list[Passage]:  # pragma: no cover - interface
        raise NotImplementedError

    def search_many(self, queries: list[str], k: int = 5) -> list[list[Passage]]:
        return [self.search(q, k) for q in queries]

    def describe(self) -> dict:
        return {"name": self.name}
