"""Sharded `gaji eval` over Ray gives the same per-question results and summary as one process
(method oner over a real BM25 index of a small fixture, answers from the scripted LLM)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaji.config import Settings
from gaji.eval.runner import EvalConfig, EvalRun

DOCS = [
    ("d-guam", "Battle of Guam (1944)", "The Second Battle of Guam was fought from 21 July to 10 August 1944."),
    ("d-manila", "Battle of Manila (1945)", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("d-seoul", "서울", "서울은 대한민국의 수도이며 한강이 도시를 가로지른다."),
    ("d-busan", "부산", "부산은 대한민국 제2의 도시이자 가장 큰 항구 도시이다."),
    ("d-paris", "Paris", "Paris is the capital and largest city of France, on the Seine."),
    ("d-rome", "Rome", "Rome is the capital city of Italy."),
    ("d-han", "한강", "한강은 서울을 지나 황해로 흐르는 강이다."),
    ("d-other", "Other", "Nothing relevant here at all."),
]
QUESTIONS = [
    ("q1", "Which battle occurred first, the Battle of Manila or the Battle of Guam?", "Battle of Guam", ["d-guam", "d-manila"]),
    ("q2", "대한민국의 수도는 어디인가?", "서울", ["d-seoul"]),
    ("q3", "What river flows through Paris?", "Seine", ["d-paris"]),
    ("q4", "한강은 어느 도시를 지나는가?", "서울", ["d-han", "d-seoul"]),
    ("q5", "What is the capital of Italy?", "Rome", ["d-rome"]),
    ("q6", "부산은 어떤 도시인가?", "항구 도시", ["d-busan"]),
    ("q7", "When was the Battle of Guam fought?", "1944", ["d-guam"]),
]
TIMING = ("wall", "_ms", "_s", "per_hour", "finished_at", "elapsed")


def _write(tmp: Path) -> tuple[Path, Path]:
    corpus = tmp / "mini.corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "title": t, "text": x}, ensure_ascii=False) + "\n"
                              for d, t, x in DOCS), encoding="utf-8")
    qs = tmp / "mini.jsonl"
    qs.write_text("".join(json.dumps({"id": i, "question": q, "answers": [a],
                                      "supporting": [{"doc_id": d} for d in sup]}, ensure_ascii=False) + "\n"
                          for i, q, a, sup in QUESTIONS), encoding="utf-8")
    return corpus, qs


def _strip(rec: dict) -> dict:
    """A result line without what depends on timing."""
    out = {k: v for k, v in rec.items() if not any(t in k for t in TIMING) and k != "summary"}
    out["metrics"] = {k: v for k, v in rec["metrics"].items() if not any(t in k for t in TIMING)}
    return out


def _lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_sharded_eval_matches_single_process(ray_local, tmp_path):
    from gaji.distributed.eval import ShardedEval
    from gaji.index.build import build_index

    corpus, qs = _write(tmp_path)
    idx = build_index([str(corpus)], tmp_path / "idx", dense=False, progress=False)

    def settings() -> Settings:
        return Settings(llm="scripted:the Battle of Guam", index=str(idx.path), retriever="bm25", k=3,
                        cache=False, retries=0)

    def cfg(out: str) -> EvalConfig:
        return EvalConfig(data=str(qs), method="oner", out=out, progress=False, ks=(1, 2, 3))

    single = EvalRun(cfg(str(tmp_path / "single")), settings())
    try:
        s1 = single.run()
    finally:
        single.close()
    s2 = ShardedEval(cfg(str(tmp_path / "ray")), settings(), workers=2, address="local").run()

    r1 = _lines(tmp_path / "single" / "results.jsonl")
    r2 = _lines(tmp_path / "ray" / "results.jsonl")
    by1 = {r["id"]: _strip(r) for r in r1}
    assert [r["id"] for r in r2] == [q[0] for q in QUESTIONS]  # merged back in question order
    assert {r["id"]: _strip(r) for r in r2} == by1
    assert len({r["metrics"]["recall@1"] for r in r1}) > 1 and len({r["metrics"]["em"] for r in r1}) > 1  # not trivial
    assert s2["questions"] == s1["questions"] == len(QUESTIONS) and s2["complete"] and s2["questions_this_session"] == len(QUESTIONS)
    for name, m in s1["metrics"].items():
        if not any(t in name for t in TIMING):
            assert s2["metrics"][name]["mean"] == pytest.approx(m["mean"]), name
    # both shards really ran, each in its own directory and process
    info = json.loads((tmp_path / "ray" / "run.json").read_text())
    assert info["distributed"]["workers"] == 2 and info["status"] == "finished"
    shards = sorted((tmp_path / "ray" / "shards").iterdir())
    assert [len(_lines(d / "results.jsonl")) for d in shards] == [4, 3]
    assert len(_lines(tmp_path / "ray" / "traces.jsonl")) == len(QUESTIONS)

    # resuming the sharded run redoes nothing and gives the same summary
    s3 = ShardedEval(cfg(str(tmp_path / "ray")), settings(), workers=2, address="local").run()
    assert s3["questions_this_session"] == 0 and s3["metrics"]["em"]["mean"] == s2["metrics"]["em"]["mean"]
    assert [len(_lines(d / "results.jsonl")) for d in shards] == [4, 3]


def test_eval_cli_with_ray(ray_local, tmp_path, capsys):
    from gaji.cli.main import main
    from gaji.index.build import build_index

    corpus, qs = _write(tmp_path)
    build_index([str(corpus)], tmp_path / "idx", dense=False, progress=False)
    args = ["eval", "--data", str(qs), "--method", "oner", "--llm", "scripted:Rome", "--index", str(tmp_path / "idx"),
            "--retriever", "bm25", "-k", "2", "--no-cache", "--quiet", "--ks", "1,2"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    assert main(args + ["--out", str(tmp_path / "b"), "--ray", "local", "--workers", "3"]) == 0
    a = json.loads((tmp_path / "a" / "summary.json").read_text())
    b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert b["questions"] == a["questions"] == len(QUESTIONS)
    for name in ("em", "f1", "recall@1", "recall@2"):
        assert b["metrics"][name]["mean"] == pytest.approx(a["metrics"][name]["mean"]), name
    assert len(list((tmp_path / "b" / "shards").iterdir())) == 3
