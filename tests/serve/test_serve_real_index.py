"""The server over a real on-disk index (BM25 only, built from the demo corpus): status, upload, ask."""
from __future__ import annotations

import json
from importlib import resources

import pytest
from fastapi.testclient import TestClient

from servefakes import NDJSON, TEST_HOSTS
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    out = tmp_path_factory.mktemp("idx") / "demo-index"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")  # no Kiwi load: fast
    llm = ScriptedLLM(default="Answer: 1446년\nSources: [1]")
    indexes = IndexSet.from_specs([f"demo={out}"], Settings(retriever="bm25", retries=0), llm)
    with TestClient(create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS))) as c:
        c.index_dir = str(out)
        yield c


def test_status_upload_and_ask_over_a_real_index(client):
    st = client.get("/api/indexes/demo").json()
    assert st["status"] == "ok" and st["chunks"] == 16 and st["config"]["lexical"] is True
    assert client.index_dir not in json.dumps(st) and "/" not in "".join(st["config"].get("sources", []))

    r = client.post("/api/ask", json={"question": "훈민정음은 몇 년에 반포되었나요?", "options": {"k": 3}})
    assert r.status_code == 200 and r.json()["citations"][0]["id"] == "ko-hunminjeongeum"

    doc = {"id": "hangul-day", "title": "한글날", "text": "한글날은 10월 9일로, 훈민정음 반포를 기념하는 날이다."}
    r = client.post("/api/indexes/demo/documents", content=json.dumps(doc, ensure_ascii=False).encode(), headers=NDJSON)
    assert r.status_code == 200 and r.json()["added"] == 1 and r.json()["status"]["chunks"] == 17
    assert r.json()["chunks"]["added"] == 1
    r = client.post("/api/ask", json={"question": "한글날은 언제인가요?", "options": {"k": 1}})
    assert r.json()["trace"]["root"]["passage_ids"] == ["hangul-day"]


def test_a_retriever_the_index_lacks_is_400_without_the_path(client):
    r = client.post("/api/ask", json={"question": "한글날은 언제인가요?", "retriever": "dense"})
    assert r.status_code == 400 and "no dense part" in r.json()["error"]
    assert client.index_dir not in r.text


def test_an_option_the_index_refuses_mid_run_is_400_not_502(client):
    """k=-5 is the client's mistake (400 naming it), not a failed LLM (502): refused by the method's options
    before the run where they check k (the default method, auto), else by the index during the run."""
    r = client.post("/api/ask", json={"question": "한글날은 언제인가요?", "options": {"k": -5}})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert ("k must be >= 0, got -5" in err and r.json()["trace"]["status"] == "failed") or (
        "option k of method" in err and "-5" in err)
    assert client.get("/api/metrics").json()["questions"]["by_outcome"].get("bad_request", 0) >= 1


def test_citations_of_a_document_folder_say_where(tmp_path):
    from gaji.corpus.docgen import write_pptx
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    docs = tmp_path / "docs"
    docs.mkdir()
    write_pptx(docs / "발표.pptx", [("현황", ["올해 목표를 정리했다."], None),
                                  ("성과", ["반딧불 앱의 월간 사용자는 340만 명이다."], None)])
    out = tmp_path / "idx"
    build.build_index([str(docs)], out, dense=False, progress=False, korean_analyzer="bigram")
    llm = ScriptedLLM(default="Answer: 340만 명\nSources: [1]")
    indexes = IndexSet.from_specs([f"docs={out}"], Settings(retriever="bm25", retries=0), llm)
    with TestClient(create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS))) as c:
        r = c.post("/api/ask", json={"question": "반딧불 앱의 월간 사용자는?", "options": {"k": 1}})
    cite = r.json()["citations"][0]
    assert cite["id"] == "발표.pptx#slide2"
    assert cite["location"]["file"] == "발표.pptx" and cite["location"]["slide"] == 2
    assert r.json()["trace"]["passages"][cite["id"]]["location"]["section"] == ["성과"]


def test_an_index_built_routing_by_language_says_a_rebuild_switches_it(tmp_path, monkeypatch):
    import gaji.text.analyzers as analyzers
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    legacy = analyzers.MultiAnalyzer(analyzers.BigramAnalyzer(), routing="lang")
    monkeypatch.setattr(analyzers, "default_analyzer", lambda korean="auto": legacy)  # what an older gaji built
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], tmp_path / "old", dense=False, progress=False)
        monkeypatch.undo()
        build.build_index([str(corpus)], tmp_path / "new", dense=False, progress=False, korean_analyzer="bigram")
    indexes = IndexSet.from_specs([f"old={tmp_path / 'old'}", f"new={tmp_path / 'new'}"],
                                  Settings(retriever="bm25", retries=0), ScriptedLLM(default="x"))
    with TestClient(create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS))) as c:
        old, new = c.get("/api/indexes/old").json()["config"], c.get("/api/indexes/new").json()["config"]
    assert old["analyzer"] == legacy.name and "switches it to analysis by script" in old["analyzer_note"]
    assert new["analyzer_note"] is None
