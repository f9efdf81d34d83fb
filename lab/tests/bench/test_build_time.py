"""`gaji bench build` (gaji_lab.bench.build_time): a real `gaji index build` process, timed to BM25-searchable."""
from __future__ import annotations

import json

from gaji_lab.bench.build_time import markdown, run_build_bench


def test_a_small_build_is_timed_to_bm25_searchable(tmp_path):
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": f"d{i}", "title": f"Topic {i}", "text": f"Passage {i} is about topic number {i}."} for i in range(20)]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = run_build_bench(str(corpus), tmp_path / "work" / "idx", korean_analyzer="bigram", extra=["--no-dense"])
    assert res["passages"] == 20 and res["query"] == "Topic 0" and res["build_exit_code"] == 0
    assert 0 < res["bm25_searchable_s"] < 120 and res["met"] == (res["bm25_searchable_s"] < 30)
    assert res["hybrid_s"] is None and res["fill_stopped_after_s"] is None  # no dense part: nothing to wait for
    assert "searchable_s" in res["build_stats"] and (tmp_path / "work" / "idx.log").exists()
    assert f"| {corpus} | 20 | {res['bm25_searchable_s']}" in markdown(res)


def test_a_stopped_fill_reports_its_rate_and_an_estimate():
    res = {"command": "gaji index build hotpotqa --out w", "date": "d", "machine": {"cores": 2},
           "load_before": [1.0], "load_after": [2.0], "corpus": "hotpotqa", "passages": 6642,
           "bm25_searchable_s": 12.5, "met": True, "hybrid_s": None, "fill_stopped_after_s": 60.0,
           "fill": {"stage": "embedding", "done": 300, "total": 6642, "rate": 5.0, "eta_s": 1268.4},
           "hybrid_estimated_s": 1340.9, "build_stats": {"searchable_s": 11.0}}
    md = markdown(res)
    assert "12.5 (met)" in md and "fill stopped after 60.0 s at 300/6642 passages; estimated 1340.9 s" in md
    assert "5.00 passages/s" in md
