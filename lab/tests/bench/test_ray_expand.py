"""`gaji bench ray-expand` end to end on a tiny corpus with the scripted LLM (the timing is not checked, the
wiring is: both runs expand every chunk, the expansions agree, the accounting and the report are written)."""
from __future__ import annotations

import json

import pytest

from gaji.cli.main import main


def test_ray_expand_bench_writes_its_report(tmp_path, capsys):
    from gaji.distributed.cluster import ray_available  # first: it sets Ray's auth mode before Ray is imported

    if ray_available():
        pytest.skip(ray_available())
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        {"id": "a", "text": "서울은 대한민국의 수도이다."}, {"id": "b", "text": "Paris is the capital of France."},
        {"id": "c", "text": "부산은 항구 도시이다."}]), encoding="utf-8")
    llm = 'scripted:{"title": "제목", "questions": ["What?", "무엇?", "Why?"]}'
    assert main(["bench", "ray-expand", "--corpus", str(corpus), "--limit", "3", "--workers", "2", "--llm", llm,
                 "--out", str(tmp_path / "out"), "--label", "t"]) == 0
    res = json.loads((tmp_path / "out" / "t.json").read_text(encoding="utf-8"))
    assert res["chunks"] == 3 and res["identical_expansions"] == "3/3" and res["settings"]["parallel"] == 1
    one, par = res["runs"]["1 process x 1 thread"], res["runs"]["Ray, 2 workers x 1 thread"]
    assert one["generated"] == par["generated"] == 3 and one["failed"] == par["failed"] == 0
    assert one["prompt_tokens"] == par["prompt_tokens"] > 0
    assert sum(w["chunks"] for w in par["per_worker"]) == 3 and len(par["per_worker"]) == 2
    assert "Identical expansions (title + questions): 3/3" in (tmp_path / "out" / "t.md").read_text(encoding="utf-8")
    assert "load average before" in capsys.readouterr().out
