"""Test doubles for control-flow tests: a retriever over an in-memory list of passages.

Answers in tests always come from `gaji.llm.scripted.ScriptedLLM`; this only stands in for an index.
"""
from __future__ import annotations

import re

from gaji.index.base import Retriever
from gaji.types import Passage

_WORD = re.compile(r"\w+", re.U)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


class ListRetriever(Retriever):
    """Ranks passages by word overlap with the query (ties keep list order). Records its queries."""

    name = "list"

    def __init__(self, passages: list[Passage] | list[tuple[str, str, str]]):
        self.passages = [p if isinstance(p, Passage) else Passage(id=p[0], doc_id=p[0], title=p[1], text=p[2]) for p in passages]
        self.queries: list[str] = []

    def search(self, query: str, k: int = 5) -> list[Passage]:
        self.queries.append(query)
        q = _words(query)
        scored = [(len(q & _words(p.title + " " + p.text)), -i, p) for i, p in enumerate(self.passages)]
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        out = []
        for rank, (s, _, p) in enumerate(scored[:k], 1):
            out.append(Passage(id=p.id, doc_id=p.doc_id, title=p.title, text=p.text, score=float(s), rank=rank, source=self.name))
        return out


def closed_port() -> int:
    """A loopback TCP port with nothing listening (bound, then released): for unreachable-server tests."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
