"""`gaji bench toq-judge` (lab/gaji_lab/bench/toq_judge.py): the judge's gold recall and token share from recorded trees."""
from __future__ import annotations

import json

import pytest

from gaji_lab.bench.toq_judge import count, report
from gaji.cli.main import main
from gaji.errors import InputError


def _call(purpose: str, p: int, c: int) -> dict:
    return {"model": "m", "purpose": purpose, "prompt_tokens": p, "completion_tokens": c}


def _run(tmp_path):
    run = tmp_path / "toq-x"
    run.mkdir()
    (run / "results.jsonl").write_text(json.dumps({"id": "q1", "gold_docs": ["g1", "g2"], "metrics": {"f1": 1.0}}) + "\n")
    child = {"question": "sub 1", "relevance": {"g1": {"relevant": True}, "d1": {"relevant": False},
                                               "d2": {"relevant": True}},
             "calls": [_call("integrate", 90, 10), _call("answer", 40, 5)], "children": []}
    other = {"question": "sub 2", "relevance": {"g2": {"relevant": False}}, "calls": [_call("integrate", 45, 5)],
             "children": []}
    root = {"question": "q", "relevance": {}, "calls": [], "children": [child, other]}
    trace = {"question": "q", "method": "toq", "root": root, "usage": {"total_tokens": 400}}
    (run / "traces.jsonl").write_text(json.dumps({"id": "q1", "trace": trace}) + "\n")
    return run


def test_counts_gold_and_other_judgements_and_the_judge_token_share(tmp_path):
    c = count(_run(tmp_path))
    assert (c.nodes, c.gold_relevant, c.gold, c.other_relevant, c.other) == (2, 1, 2, 1, 2)
    assert (c.judge_tokens, c.tokens) == (150, 400)
    assert "| toq-x | 2 | 1/2 (50 %) | 1/2 (50 %) | 150/400 (38 %) |" in report([str(tmp_path / "toq-x")])


def test_cli_prints_the_table_and_a_missing_run_is_an_input_error(tmp_path, capsys):
    run = _run(tmp_path)
    assert main(["bench", "toq-judge", str(run)]) == 0
    assert "gold judged relevant" in capsys.readouterr().out
    with pytest.raises(InputError, match="results.jsonl"):
        count(tmp_path / "nothing")


def test_a_run_with_compressed_traces_counts_the_same(tmp_path):
    import lzma

    run = _run(tmp_path)
    before = count(run)
    t = run / "traces.jsonl"
    (run / "traces.jsonl.xz").write_bytes(lzma.compress(t.read_bytes()))
    t.unlink()
    assert count(run) == before
