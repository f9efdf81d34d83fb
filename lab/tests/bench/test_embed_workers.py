"""`gaji bench embed-workers` (gaji_lab.bench.embed_workers): one process and worker processes on the same passages."""
from __future__ import annotations

import json

import pytest

from gaji_lab.bench.embed_workers import markdown, run_embed_workers
from gaji.index.dense import E5Embedder, get_embedder

TEXTS = ["The Battle of Guam was fought in 1944.", "김치는 배추를 소금에 절여 만든다.",
         "Python is a programming language.", "세종은 조선의 제4대 국왕이다."]


def test_one_process_and_two_workers_side_by_side_with_identical_vectors(tmp_path):
    if not isinstance(get_embedder(), E5Embedder):
        pytest.skip("the bundled E5 model is not installed")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "title": f"T{i}", "text": t}, ensure_ascii=False) + "\n"
                              for i, t in enumerate(TEXTS)), encoding="utf-8")
    res = run_embed_workers(str(corpus), limit=4, workers=2)
    names = [r["run"] for r in res["runs"]]
    assert names == ["1 process (default threads)", "2 worker processes x 1 thread", "1 process again (default threads)"]
    assert res["passages"] == 4 and all(r.get("identical", True) for r in res["runs"])
    assert res["runs"][1]["startup_s"] >= 0 and max(r["speedup_vs_best_single"] for r in res["runs"][::2]) == 1.0
    md = markdown(res)
    assert "| 2 worker processes x 1 thread |" in md and "load before → after" in md
