"""A running server and other writers of its index: it answers over the newest generation, its uploads and
removals never lose what `gaji index add` wrote from a shell, a busy index is 503 and ids are checked."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from servefakes import NDJSON, TEST_HOSTS

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip

ROOT = Path(__file__).resolve().parents[2]
FIVE = [{"id": f"outside-{i}", "title": f"바깥 {i}", "text": f"바깥에서 더한 문서 {i}: 펭귄{i}은 남극에 산다."}
        for i in range(5)]


@pytest.fixture
def served(tmp_path):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    out = tmp_path / "demo-index"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")
    llm = ScriptedLLM(default="Answer: 1446년\nSources: [1]")
    indexes = IndexSet.from_specs([f"demo={out}"], Settings(retriever="bm25", retries=0), llm)
    with TestClient(create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS))) as c:
        c.index_dir = out
        yield c


def _ask_ids(client, question, k=3):
    r = client.post("/api/ask", json={"question": question, "method": "oner", "options": {"k": k}})
    assert r.status_code == 200, r.text
    return r.json()["trace"]["root"]["passage_ids"]


def test_an_outside_add_is_seen_and_a_later_upload_keeps_it(served, tmp_path):
    assert _ask_ids(served, "훈민정음은 몇 년에 반포되었나요?")  # the server has opened its index
    five = tmp_path / "five.jsonl"
    five.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in FIVE), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "gaji.cli.main", "index", "add", str(served.index_dir), str(five),
                        "--no-progress"], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    # the next request sees the outside documents
    assert _ask_ids(served, "펭귄3은 어디에 사나요?", k=1) == ["outside-3"]
    doc = {"id": "hangul-day", "title": "한글날", "text": "한글날은 10월 9일로, 훈민정음 반포를 기념하는 날이다."}
    r = served.post("/api/indexes/demo/documents", content=json.dumps(doc, ensure_ascii=False).encode(),
                    headers=NDJSON)
    assert r.status_code == 200 and r.json()["status"]["chunks"] == 16 + 5 + 1
    from gaji.index.store import open_index

    idx = open_index(served.index_dir)
    assert all(f"outside-{i}" in idx for i in range(5)) and "hangul-day" in idx and idx.chunks == 22
    assert [h["action"] for h in idx.manifest.history] == ["build", "add", "add"]
    p = subprocess.run([sys.executable, "-m", "gaji.cli.main", "index", "search", str(served.index_dir), "펭귄0",
                        "--retriever", "bm25", "-k", "1"], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "outside-0" in p.stdout, p.stderr


def test_remove_over_http(served):
    assert "ko-hunminjeongeum" in _ask_ids(served, "훈민정음은 몇 년에 반포되었나요?")
    r = served.delete("/api/indexes/demo/documents", params={"id": ["ko-hunminjeongeum", "nope"]})
    assert r.status_code == 404 and r.json()["ids"] == ["nope"] and str(served.index_dir) not in r.text
    r = served.delete("/api/indexes/demo/documents", params={"id": ["ko-hunminjeongeum"]})
    body = r.json()
    assert r.status_code == 200 and body["removed"] == ["ko-hunminjeongeum"] and body["status"]["chunks"] == 15
    assert body["chunks"]["removed"] == 1 and body["generation"] == 2
    assert "ko-hunminjeongeum" not in _ask_ids(served, "훈민정음은 몇 년에 반포되었나요?", k=5)
    assert served.delete("/api/indexes/demo/documents").status_code in (400, 422)
    assert served.delete("/api/indexes/nope/documents", params={"id": ["a"]}).status_code == 404
    cross = served.delete("/api/indexes/demo/documents", params={"id": ["ko-sejong"]},
                          headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403  # a page on another site cannot remove documents


def test_an_id_of_the_form_of_a_chunk_id_is_400_naming_the_line(served):
    data = b'{"id": "fine", "text": "ok"}\n{"id": "ko-hunminjeongeum#1", "text": "no"}\n'
    r = served.post("/api/indexes/demo/documents", content=data, headers=NDJSON)
    assert r.status_code == 400 and r.json()["line"] == 2 and r.json()["field"] == "id"
    assert "form of chunk ids" in r.json()["error"]


def test_a_busy_index_is_503_with_retry_after(served, monkeypatch):
    from gaji.index.lock import writer_lock

    monkeypatch.setenv("GAJI_INDEX_WAIT_S", "0.3")
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom gaji.index.lock import writer_lock\n"
                               "with writer_lock(sys.argv[1], action='add'):\n    print('held', flush=True)\n"
                               "    time.sleep(60)\n", str(served.index_dir)],
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        r = served.post("/api/indexes/demo/documents", content=b'{"id": "x", "text": "y"}\n', headers=NDJSON)
        assert r.status_code == 503 and r.headers["retry-after"] == "5"
        assert f"pid {holder.pid}" in r.json()["error"] and str(served.index_dir) not in r.text
        assert _ask_ids(served, "훈민정음은 몇 년에 반포되었나요?")  # questions go on meanwhile
    finally:
        holder.kill()
        holder.wait()
    with writer_lock(served.index_dir, wait_s=5):
        pass
