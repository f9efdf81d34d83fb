"""Hostile files sent to POST /api/indexes/{name}/files are read in a limited worker process: the server keeps
answering /api/health while one is read, and the refusal names the limit in the request's language."""
from __future__ import annotations

import base64
import threading
import time
from importlib import resources

import httpx
import pytest

from gaji.corpus.bombs import CASES
from gaji.config import Settings
from gaji.corpus.formats import ReadLimits
from gaji.llm.scripted import ScriptedLLM
from servefakes import TEST_HOSTS

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip


@pytest.fixture(scope="module")
def demo_index(tmp_path_factory):
    out = tmp_path_factory.mktemp("bombs") / "demo-index"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")
    return out


def _app(index, limits: ReadLimits):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    llm = ScriptedLLM(default="Answer: 근거\nSources: [1]")
    indexes = IndexSet.from_specs([f"demo={index}"], Settings(retriever="bm25", retries=0), llm)
    return create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS, read_limits=limits))


def _body(path) -> dict:
    return {"files": [{"name": path.name, "content_base64": base64.b64encode(path.read_bytes()).decode()}]}


def test_health_answers_while_a_bomb_is_read(demo_index, live_server, tmp_path):
    # the depth check lifted so the page reaches the quadratic HTML tree builder: the worker is killed at 4 s
    bomb = next(c for c in CASES if c.filename == "slow.html").build(tmp_path)
    app = _app(demo_index, ReadLimits.from_options({"depth": "100000", "seconds": "4"}))
    with live_server(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        quiet = []
        for _ in range(20):  # the quiet server's answers, on this (possibly loaded) machine
            t0 = time.monotonic()
            client.get("/api/health").raise_for_status()
            quiet.append(time.monotonic() - t0)
            time.sleep(0.05)
        done: dict = {}

        def upload() -> None:
            done["r"] = client.post("/api/indexes/demo/files", json=_body(bomb), headers={"Accept-Language": "ko-KR"})

        t = threading.Thread(target=upload)
        t.start()
        waits = []
        while t.is_alive():
            t0 = time.monotonic()
            assert client.get("/api/health").status_code == 200
            waits.append(time.monotonic() - t0)
            time.sleep(0.05)
        t.join()
    r = done["r"]
    assert r.status_code == 422, r.text
    assert r.json()["files"][0]["reason"] == "읽는 데 4초보다 오래 걸려 중단했습니다"
    # 1 s, or three times the quiet server's slowest answer where the machine is loaded enough to need more
    assert len(waits) >= 10 and max(waits) < max(1.0, 3 * max(quiet)), (len(waits), max(waits), max(quiet))


@pytest.mark.parametrize("lang,reason", [
    ("en", "word/document.xml declares XML entities, which documents of this kind never do (an entity-expansion bomb?)"),
    ("ko,en;q=0.5", "word/document.xml에 이런 문서에는 없는 XML 엔티티 선언이 있습니다 (엔티티 확장 폭탄일 수 있습니다)"),
])
def test_a_refusal_in_the_requests_language(demo_index, tmp_path, lang, reason):
    from fastapi.testclient import TestClient

    laughs = next(c for c in CASES if c.filename == "laughs.docx").build(tmp_path)
    with TestClient(_app(demo_index, ReadLimits())) as client:
        r = client.post("/api/indexes/demo/files", json=_body(laughs), headers={"Accept-Language": lang})
    assert r.status_code == 422, r.text
    assert r.json()["files"][0]["reason"] == reason
