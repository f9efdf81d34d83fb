"""`gaji index build --dense-store` and `gaji index attach-store` through gaji.cli.main.main (Qdrant local
mode: no server needed; the Milvus path is the same code, exercised in test_stores_contract.py)."""
from __future__ import annotations

import json

import pytest

from gaji.cli.main import main

ROWS = [
    {"id": "guam", "title": "Battle of Guam", "text": "The Second Battle of Guam was fought in 1944."},
    {"id": "kimchi", "title": "김치", "text": "김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."},
    {"id": "python", "title": "Python", "text": "Python is a programming language."},
]


def test_build_with_dense_store_then_attach(tmp_path, capsys):
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed: pip install 'gaji[scale]'")
    from gaji.stores.qdrant import close_clients

    c = tmp_path / "c.jsonl"
    c.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    store = f"qdrant+local:{tmp_path / 'q'}"
    try:
        assert main(["index", "build", str(c), "--out", str(tmp_path / "idx"), "--no-progress", "--dense-store", store]) == 0
        capsys.readouterr()
        assert main(["index", "info", str(tmp_path / "idx"), "--json"]) == 0
        cfg = json.loads(capsys.readouterr().out)["config"]
        assert cfg["dense_store"].startswith(store) and "collection=gaji_idx_" in cfg["dense_store"]
        assert main(["index", "search", str(tmp_path / "idx"), "배추로 만든 음식", "--retriever", "dense", "--json"]) == 0
        first = json.loads(capsys.readouterr().out.splitlines()[0])
        assert first["id"] == "kimchi" and first["source"] == "dense"

        assert main(["index", "build", str(c), "--out", str(tmp_path / "plain"), "--no-progress", "--no-lexical"]) == 0
        assert main(["index", "attach-store", str(tmp_path / "plain"), "--dense-store", store,
                     "--out", str(tmp_path / "attached")]) == 0
        assert "now searched in qdrant+local:" in capsys.readouterr().out
        assert main(["index", "search", str(tmp_path / "attached"), "Guam 1944", "--retriever", "dense", "--json"]) == 0
        assert json.loads(capsys.readouterr().out.splitlines()[0])["id"] == "guam"
        assert main(["index", "attach-store", str(tmp_path / "plain"), "--dense-store", "nosuch://x"]) == 2
        assert "unknown dense store 'nosuch'" in capsys.readouterr().err
    finally:
        close_clients()
