"""Fixtures for the server tests: a ScriptedLLM, an in-memory index and a tiny tree-building method."""
from __future__ import annotations

import re
import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import pytest

try:
    import fastapi  # noqa: F401
    import httpx  # noqa: F401
except ImportError:  # the `serve` extra is not installed: nothing here can run
    collect_ignore_glob = ["test_*.py"]

from gaji.api import Gaji
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from gaji.testing import ListRetriever
from gaji.types import Chunk, Document, Passage
from servefakes import TEST_HOSTS
from tree_double import TreeDouble  # noqa: F401 - registers the test_tree method once per process


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives headless Chromium (skipped when it is not installed)")


DOCS = [
    ("ko-hunmin", "훈민정음", "훈민정음은 세종이 1443년에 창제하고 1446년에 반포한 문자 체계이다."),
    ("ko-sejong", "세종", "세종은 조선의 제4대 국왕으로 1397년에 태어나 1418년부터 1450년까지 재위하였다."),
    ("en-guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("en-manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
]


class FakeIndex:
    """Stands in for gaji.index.store.Index: one in-memory retriever, `add`, `status`."""

    def __init__(self, docs: list[tuple[str, str, str]] = DOCS):
        self.retr = ListRetriever(docs)
        self.config = {"retriever": "list", "dir": "/secret/path/to/index", "note": "built in /secret/path/x"}

    def retriever(self, name: str, get_llm: Any = None) -> ListRetriever:
        return self.retr

    def add(self, docs: list[Document]) -> None:
        self.retr.passages.extend(Passage(id=d.id, doc_id=d.id, title=d.title, text=d.text) for d in docs)

    def get_chunk(self, chunk_id: str) -> Chunk:
        """The chunk a passage page shows (KeyError when absent, as Index.get_chunk)."""
        for p in self.retr.passages:
            if p.id == chunk_id:
                return Chunk(id=p.id, doc_id=p.doc_id, text=p.text, title=p.title, location=p.location)
        raise KeyError(chunk_id)

    def info(self) -> dict:
        n = len(self.retr.passages)
        return {"chunks": n, "documents": n, "path": "/secret/path/to/index", "config": self.config,
                "sources": ["/secret/corpus.jsonl"]}


def _scripted(**overrides: Any) -> ScriptedLLM:
    """Answers the test_tree prompts and oner prompts, in Korean or English."""
    rules: list[tuple[str, Any]] = [
        (r"DECOMPOSE: 훈민정음", "훈민정음은 누가 창제했나? | #1은 언제 반포했나?"),
        (r"DECOMPOSE:", "When was the Battle of Guam? | When was the Battle of Manila?"),
        (r"SUBQ: 훈민정음은 누가", "세종"),
        (r"SUBQ: .*반포", "1446년"),
        (r"SUBQ: When was the Battle of Guam", "1944"),
        (r"SUBQ:", "1945"),
        (r"COMBINE: 훈민", "1446년 [1, 3]"),
        (r"COMBINE:", "Battle of Guam [1]"),
        (r"(?:Question|질문):", "Answer: Battle of Guam\nSources: [1]"),
    ]
    rules = [(p, overrides.get(p, r)) for p, r in rules]
    return ScriptedLLM(list(overrides.get("_extra", [])) + rules, name="scripted-test")


def make_indexes(llm: Any, names: tuple[str, ...] = ("demo",)) -> Any:
    from gaji.serve.indexes import IndexSet

    gajis = {}
    for n in names:
        g = Gaji(llm=llm, settings=Settings(retries=0, method="oner", k=2))
        g._index = FakeIndex()  # the way gaji demo hands a Gaji an opened index
        gajis[n] = g
    fallback = Gaji(llm=llm, settings=Settings(retries=0, k=2))
    return IndexSet(gajis, fallback=fallback)


def _make_app(llm: Any = None, names: tuple[str, ...] = ("demo",), **cfg: Any):
    """create_app over in-memory indexes `names` with `llm` (default: the scripted one); cfg -> ServeConfig."""
    from gaji.serve.app import ServeConfig, create_app

    llm = llm or _scripted()
    cfg.setdefault("default_method", "oner")
    cfg.setdefault("allowed_hosts", TEST_HOSTS)
    return create_app(make_indexes(llm, names), ServeConfig(**cfg))


@pytest.fixture(scope="session")
def make_app():
    """Factory: make_app(llm=None, names=("demo",), **ServeConfig fields) -> FastAPI app."""
    return _make_app


@pytest.fixture
def scripted():
    """Factory: scripted(**{pattern: reply}) -> a ScriptedLLM answering the test prompts."""
    return _scripted


@contextmanager
def _live_server(app: Any) -> Iterator[str]:
    """Run `app` with uvicorn on 127.0.0.1 at a free port in a thread; yields its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="session")
def live_server():
    """Context manager: `with live_server(app) as url:` serves app on loopback for the block."""
    return _live_server
