"""Dense stores that are down fail in seconds with one line naming the address and what to check: an index
build (before any embedding), and `gaji index search` / `gaji ask` on an index attached to a Milvus that is
no longer there (pymilvus alone would wait 60 s; no traceback either way)."""
from __future__ import annotations

import json
import time

import pytest

from gaji.cli.main import main
from gaji.errors import IndexUnusableError
from gaji.testing import closed_port

ROWS = [
    {"id": "guam", "title": "Battle of Guam", "text": "The Second Battle of Guam was fought in 1944."},
    {"id": "kimchi", "title": "김치", "text": "김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."},
]


def _corpus(tmp_path):
    c = tmp_path / "c.jsonl"
    c.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    return c


def _one_line_error(capsys, *needles: str) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err, err
    for n in needles:
        assert n in err, (n, err)
    return err


@pytest.mark.parametrize("scheme,needs", [("milvus", "pymilvus"), ("qdrant", "qdrant_client")])
def test_build_fails_before_embedding(scheme, needs, tmp_path, word_embedder, monkeypatch):
    pytest.importorskip(needs, reason=f"{needs} is not installed: pip install 'gaji[scale]'")
    from gaji.index.build import build_index

    port = closed_port()
    calls = []
    monkeypatch.setattr(word_embedder, "embed_passages", lambda texts: calls.append(texts))
    t0 = time.perf_counter()
    with pytest.raises(IndexUnusableError) as e:
        build_index([str(_corpus(tmp_path))], tmp_path / "idx", embedder=word_embedder,
                    dense_store=f"{scheme}://127.0.0.1:{port}", progress=False)
    assert time.perf_counter() - t0 < 5 and calls == []
    assert f"127.0.0.1:{port}" in str(e.value) and "connection refused" in str(e.value)
    assert "--dense-store" in str(e.value)
    assert not (tmp_path / "idx").exists()


def test_cli_build_with_a_milvus_that_is_down(tmp_path, capsys):
    pytest.importorskip("pymilvus", reason="pymilvus is not installed: pip install 'gaji[scale]'")
    port = closed_port()
    t0 = time.perf_counter()
    rc = main(["index", "build", str(_corpus(tmp_path)), "--out", str(tmp_path / "idx"), "--no-progress",
               "--dense-store", f"milvus://127.0.0.1:{port}"])
    assert rc == 2 and time.perf_counter() - t0 < 10
    _one_line_error(capsys, f"127.0.0.1:{port}", "is the Milvus server running", "--dense-store")


def test_search_and_ask_on_an_index_whose_milvus_is_down(tmp_path, capsys, word_embedder):
    """An index attached to a Milvus that has stopped (built here with Qdrant local mode, then pointed at a
    closed port: the same manifest field an attached Milvus index has)."""
    pytest.importorskip("pymilvus", reason="pymilvus is not installed: pip install 'gaji[scale]'")
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed: pip install 'gaji[scale]'")
    from gaji.index.build import build_index
    from gaji.stores.qdrant import close_clients

    idx = build_index([str(_corpus(tmp_path))], tmp_path / "idx", embedder=word_embedder,
                      dense_store=f"qdrant+local:{tmp_path / 'q'}", progress=False)
    idx.close()
    close_clients()
    port = closed_port()
    mf = tmp_path / "idx" / "manifest.json"
    m = json.loads(mf.read_text(encoding="utf-8"))
    m["config"]["dense_store"] = f"milvus://127.0.0.1:{port}?collection=gaji_idx"
    mf.write_text(json.dumps(m), encoding="utf-8")

    for args in (["index", "search", str(tmp_path / "idx"), "배추로 만든 음식", "--retriever", "dense"],
                 ["ask", "김치는 무엇으로 만드나?", "--index", str(tmp_path / "idx"), "--retriever", "dense",
                  "--llm", "scripted:배추", "--no-cache"],
                 ["ask", "What was fought in 1944?", "--index", str(tmp_path / "idx"), "--retriever", "hybrid",
                  "--llm", "scripted:Guam", "--no-cache"]):
        t0 = time.perf_counter()
        assert main(args) == 2, args
        assert time.perf_counter() - t0 < 10
        _one_line_error(capsys, f"cannot reach Milvus at http://127.0.0.1:{port}", "is the Milvus server running")
