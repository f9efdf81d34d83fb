"""ToQ Tables 4/5 from run directories (`gaji bench toq-depth`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaji_lab.bench.toq_depth import DepthTable, TreeOutcome, load_outcomes, render
from gaji.errors import ConfigError


def node(level, valid=None, first=None, children=()):
    n = {"level": level, "children": list(children), "data": {}, "scores": {}}
    if valid is not None:
        n["scores"] = {"response_validity": valid}
    if first is not None:
        n["data"]["first_scores"] = {"response_validity": first}
    return n


# a: valid at the root; b: rejected, decomposed to level 2, resolved; c: rejected, went to level 3, still invalid;
# d: rejected, decomposed to level 3, resolved
TREES = {
    "a": node(1, valid=True),
    "b": node(1, valid=True, first=False, children=[node(2, True), node(2, True)]),
    "c": node(1, valid=False, first=False, children=[node(2, False, children=[node(3, True)])]),
    "d": node(1, valid=True, first=False, children=[node(2, False, children=[node(3, True)])]),
}


def write_run(d: Path, trees: dict, method: str = "toq", max_depth: int = 4) -> Path:
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"method": method, "options": {"max_depth": max_depth},
                                            "dataset": {"name": "hotpotqa"}, "retriever": "hybrid", "k": 5,
                                            "llm": "local", "limit": 50}))
    with open(d / "results.jsonl", "w") as f, open(d / "traces.jsonl", "w") as g:
        for qid, root in trees.items():
            f.write(json.dumps({"id": qid, "status": "ok", "metrics": {"em": 1.0}}) + "\n")
            g.write(json.dumps({"id": qid, "trace": {"root": root}}) + "\n")
    return d


def test_outcomes_read_depth_and_first_evaluation(tmp_path):
    o = {x.id: x for x in load_outcomes(write_run(tmp_path / "run", TREES))}
    assert (o["a"].depth, o["a"].valid_at_1, o["a"].valid_final) == (1, True, True)
    assert (o["b"].depth, o["b"].valid_at_1, o["b"].valid_final) == (2, False, True)
    assert (o["c"].depth, o["c"].valid_at_1, o["c"].valid_final) == (3, False, False)


def test_validity_by_depth_uses_reruns_only_where_trees_went_deeper(tmp_path):
    t = DepthTable(load_outcomes(write_run(tmp_path / "run", TREES)))
    assert t.validity(1) == (25.0, 4)
    assert t.validity(4) == (75.0, 4)
    assert t.needed(2) == ["c", "d"] and t.needed(3) == []
    assert t.validity(2) == (None, 2)  # c and d need a max_depth=2 run
    assert t.validity(3) == (75.0, 4)  # no tree deeper than 3: final answers
    t.reruns[2] = {"c": False, "d": False}  # d needed level 3 to be resolved
    assert t.validity(2) == (50.0, 4)


def test_table5_counts_failures_resolved(tmp_path):
    t5 = DepthTable(load_outcomes(write_run(tmp_path / "run", TREES))).table5()
    assert t5["failed_at_depth_1"] == 3 and t5["resolved_by_deeper_levels"] == 2 and t5["decomposed"] == 3
    assert t5["depth_histogram"] == {"1": 1, "2": 1, "3": 2, "4": 0}


def test_render_prints_the_missing_rerun_command(tmp_path):
    run = write_run(tmp_path / "run", TREES)
    md = render(DepthTable(load_outcomes(run)), str(run), json.loads((run / "run.json").read_text()))
    assert "-o max_depth=2" in md and "--ids c,d" in md and "max_depth=3" not in md


def test_not_a_toq_run(tmp_path):
    with pytest.raises(ConfigError, match="toq-depth needs"):
        load_outcomes(write_run(tmp_path / "run", TREES, method="oner"))


def test_cli_writes_md_and_json(tmp_path, capsys):
    from gaji.cli.main import main

    run = write_run(tmp_path / "run", TREES)
    d2 = write_run(tmp_path / "d2", {"c": node(1, valid=False, children=[node(2, False)]),
                                     "d": node(1, valid=False, children=[node(2, False)])}, max_depth=2)
    assert main(["bench", "toq-depth", str(run), "--depth-run", f"2={d2}", "--out", str(tmp_path / "t")]) == 0
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["validity"] == {"1": 25.0, "2": 50.0, "3": 75.0, "4": 75.0}
    assert "| 2 | 50.0 | 4/4 |" in (tmp_path / "t.md").read_text()


def test_bad_depth_run_spec(tmp_path):
    from gaji.cli.main import main

    run = write_run(tmp_path / "run", TREES)
    assert main(["bench", "toq-depth", str(run), "--depth-run", "two"]) == 2


def test_outcome_of_a_tree_that_never_answered_at_the_root():
    o = TreeOutcome.from_trace("x", {"root": node(1, valid=True, children=[node(2, True)])})
    assert o.valid_at_1 is False and o.valid_final is True and o.depth == 2
