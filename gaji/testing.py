"""Test doubles for control-flow tests: a retriever over an in-memory list of passages, `any_llm`, a
ScriptedLLM that gives every method's prompts a well-formed reply, and a server that accepts connections and
then stalls (for deadline tests); a tiny random E5 encoder and the multi-task model's fixture chunks.

Answers in tests always come from `gaji.llm.scripted.ScriptedLLM`; these only stand in for an index and a model.
"""
from __future__ import annotations

import itertools
import json
import re
import socket
import threading
from typing import TYPE_CHECKING, Any

from gaji.expand.multitask import ChunkExample
from gaji.types import Passage, Retriever

if TYPE_CHECKING:
    from gaji.llm.scripted import ScriptedLLM

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


def any_llm() -> "ScriptedLLM":
    """Answers any method's prompts: schema-valid JSON for JSON calls (the middle enum value, each boolean
    field false, true, false, … so trees both grow and stop; two distinct strings per list), an
    "answer is:" sentence for text calls."""
    n = itertools.count(1)
    flips: dict[str, itertools.cycle] = {}

    def fill(schema: dict, key: str = "") -> Any:
        if "enum" in schema:
            return schema["enum"][len(schema["enum"]) // 2]
        t = schema.get("type")
        if t == "object":
            return {k: fill(s, k) for k, s in schema.get("properties", {}).items()}
        if t == "array":
            size = max(schema.get("minItems", 0), min(2, schema.get("maxItems", 2)))
            return [fill(schema.get("items", {"type": "string"}), key) for _ in range(size)]
        if t == "boolean":
            return next(flips.setdefault(key, itertools.cycle([False, True])))
        if t in ("integer", "number"):
            lo, hi = schema.get("minimum", 1), schema.get("maximum", 1)
            return (lo + hi) // 2
        # questions name the battles, one then the other, as a split must (decomposer.lost_names)
        i = next(n)
        return f"When was the Battle of {'Guam' if i % 2 else 'Manila'} fought? ({i})"[: schema.get("maxLength", 200)]

    def reply(req) -> str:
        if req.json_schema is not None:
            return json.dumps(fill(req.json_schema))
        return "The Battle of Guam came first. So the answer is: Battle of Guam."

    from gaji.llm.scripted import ScriptedLLM

    return ScriptedLLM(default=reply)


def closed_port() -> int:
    """A loopback TCP port with nothing listening (bound, then released): for unreachable-server tests."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class StallingServer:
    """A TCP server on 127.0.0.1 that accepts connections and then never answers (`drip_s=None`), or
    answers one byte of an endless HTTP response every `drip_s` seconds: what a hung or hostile LLM
    server looks like to a client with only per-read timeouts."""

    def __init__(self, drip_s: float | None = None) -> None:
        self.drip_s = drip_s
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self._stop = threading.Event()
        self._conns: list[Any] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self._conns.append(conn)
            if self.drip_s is not None:
                threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: Any) -> None:
        reply = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        i = 0
        while not self._stop.wait(self.drip_s):
            try:
                conn.sendall(reply[i:i + 1] if i < len(reply) else b" ")
            except OSError:
                return
            i += 1

    def close(self) -> None:
        self._stop.set()
        for c in [self.sock, *self._conns]:
            try:
                c.close()
            except OSError:
                pass


def tiny_e5_encoder(tokenizer: Any, seed: int = 0) -> Any:
    """A 2-layer, 32-wide E5 encoder with random weights over the real vocabulary of `tokenizer` (an
    `E5Tokenizer`): fast stand-in for the trained models' tests. Needs torch (the extra `train`)."""
    import torch

    from gaji.index.e5_torch import E5Config, E5Encoder

    torch.manual_seed(seed)
    cfg = E5Config(hidden=32, layers=2, heads=4, ffn=64, vocab=len(tokenizer.pieces) + 35, max_positions=128, eps=1e-12)
    return E5Encoder(cfg, tokenizer, {"variant": "original", "kind": "random-test"})


# chunks with their teacher title and questions, Korean and English (the multi-task model's fixture)
MULTITASK_CHUNKS = [
    ChunkExample("경복궁은 1395년에 지어진 조선의 법궁이다.", "경복궁의 창건",
                 ["경복궁은 언제 지어졌나?", "경복궁은 무엇인가?", "법궁은 무엇인가?"]),
    ChunkExample("The Eiffel Tower was completed in 1889.", "The Eiffel Tower",
                 ["When was the Eiffel Tower completed?", "What is the Eiffel Tower?", "When was it built?"]),
]
