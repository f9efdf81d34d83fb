"""`gaji bench retrieval` on a tiny fake data folder (the real runs: benchmarks/retrieval/NOTES.md)."""
import json

import pytest

from gaji_lab.bench.retrieval import recall_at
from gaji.cli.main import main

CORPUS = [
    {"id": "c0", "title": "Battle of Guam", "text": "The Second Battle of Guam was fought in 1944 by American forces."},
    {"id": "c1", "title": "Battle of Manila", "text": "The Battle of Manila was fought in 1945 in the Philippines."},
    {"id": "c2", "title": "Guam", "text": "Guam is an island territory of the United States."},
    {"id": "c3", "title": "Python", "text": "Python is a programming language created by Guido van Rossum."},
    {"id": "c4", "title": "Guido van Rossum", "text": "Guido van Rossum is a Dutch programmer born in 1956."},
    {"id": "c5", "title": "Zebra", "text": "Zebras are African equines with black-and-white stripes."},
]
QUESTIONS = [
    {"id": "q1", "question": "Which battle occurred first, the Battle of Manila or the Battle of Guam?",
     "answers": ["Battle of Guam"], "supporting": [{"doc_id": "c0"}, {"doc_id": "c1"}]},
    {"id": "q2", "question": "When was the creator of Python born?", "answers": ["1956"],
     "supporting": [{"doc_id": "c3"}, {"doc_id": "c4"}]},
    {"id": "q3", "question": "no gold here", "answers": ["x"], "supporting": []},
]


def test_recall_at():
    assert recall_at(["a", "b", "c"], ["a", "c"], 2) == (0.5, False)
    assert recall_at(["a", "b", "c"], ["a", "c"], 3) == (1.0, True)


@pytest.mark.parametrize("retrievers,tune", [("bm25", False), ("bm25,dense,hybrid", True)])
def test_bench_retrieval_on_tiny_data(tmp_path, capsys, retrievers, tune):
    data = tmp_path / "data"
    data.mkdir()
    (data / "hotpotqa.corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CORPUS), encoding="utf-8")
    (data / "hotpotqa.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    out = tmp_path / "out"
    args = ["bench", "retrieval", "--data", str(data), "--sets", "hotpotqa", "--retrievers", retrievers,
            "--work", str(tmp_path / "work"), "--out", str(out), "--scale", "300", "--no-progress"]
    assert main(args + (["--tune"] if tune else [])) == 0
    md = capsys.readouterr().out
    assert "| hotpotqa | bm25 | 2 |" in md and "BM25 scale test" in md
    res = json.loads((out / "latest.json").read_text())
    bm = res["sets"]["hotpotqa"]["bm25"]
    assert bm["questions"] == 2 and set(bm["recall"]) == {"2", "5", "10", "15"}
    assert bm["recall"]["15"] == 1.0  # 6 passages: everything is in the top 15
    assert res["scale"]["passages"] == 300 and res["scale"]["index_per_s_excl_analysis"] > 0
    assert res["indexing"]["hotpotqa"]["passages"] == 6
    if tune:
        assert "hybrid" in res["sets"]["hotpotqa"] and res["tuning"]["grid"]
        assert "hybrid_recall10_ge_best_single" in res["targets"]
    # a second run reuses the cached index
    assert main(args) == 0
    capsys.readouterr()
    assert json.loads((out / "latest.json").read_text())["indexing"]["hotpotqa"]["cached"] is True


def test_baseline_comparison_shows_recall_and_embedding_rates_side_by_side(tmp_path):
    import json as _json

    from gaji_lab.bench.retrieval import _load_baseline, compare_with, markdown
    from gaji.errors import ConfigError

    now = {"date": "now", "command": "x", "machine": {"cpus": 2},
           "sets": {"hotpotqa": {"hybrid": {"recall": {10: 0.931}}}},
           "indexing": {"hotpotqa": {"embedding_model": "e5@onnx-int8", "embedding_per_s": 40.0}}}
    base = {"date": "then", "sets": {"hotpotqa": {"hybrid": {"recall": {"10": 0.936}}}, "musique": {}},
            "indexing": {"hotpotqa": {"embedding_model": "e5", "embedding_per_s": 3.3}}}
    path = tmp_path / "base.json"
    path.write_text(_json.dumps(base))
    cmp = compare_with(now, _load_baseline(str(path)), str(path))
    assert cmp["recall10"] == [{"set": "hotpotqa", "retriever": "hybrid", "r10": 0.931, "r10_base": 0.936,
                                "delta_points": -0.5}]
    assert cmp["embedding"][0]["per_s"] == 40.0 and cmp["embedding"][0]["per_s_base"] == 3.3
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ConfigError, match="bad.json"):
        _load_baseline(str(tmp_path / "bad.json"))
