"""auto's targets from recorded runs (lab/gaji_lab/bench/targets.py): every number computed from the run
directories a targets file names, over the same questions for auto and each fixed method."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaji.errors import InputError
from gaji_lab.bench.targets import evaluate, load, run

REPO = Path(__file__).resolve().parents[3]


def answer(qid: str, f1: float, tokens: int = 100, calls: int = 1, wall: float = 10.0, lang: str = "en",
           qtype: str = "") -> dict:
    return {"id": qid, "question": "q?", "gold": ["x"], "prediction": "x", "lang": lang, "type": qtype,
            "status": "ok", "metrics": {"f1": f1, "tokens": tokens, "calls": calls, "wall_s": wall}}


def write(root: Path, d: str, rows: list[dict], concurrency: int | None = None) -> str:
    p = root / d
    p.mkdir(parents=True, exist_ok=True)
    (p / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    if concurrency is not None:
        (p / "run.json").write_text(json.dumps({"concurrency": concurrency}), "utf-8")
    return d


def targets(root: Path, text: str) -> Path:
    p = root / "targets.yaml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    # four questions; auto: 1, 1, 0, 0.5 in its first sitting, q3 re-run later to 1
    write(tmp_path, "auto-a", [answer("q1", 1, 300), answer("q2", 1, 300), answer("q3", 0, 900, calls=4, wall=40),
                               answer("q4", 0.5, 300, calls=2, wall=30)], concurrency=1)
    write(tmp_path, "auto-a-rerun", [answer("q3", 1, 900, calls=4, wall=40)], concurrency=1)
    write(tmp_path, "auto-b", [answer(q, f, 300) for q, f in (("q1", 1), ("q2", 0), ("q3", 0), ("q4", 0))],
          concurrency=2)
    write(tmp_path, "oner", [answer(q, f, 200) for q, f in (("q1", 1), ("q2", 0), ("q3", 0), ("q4", 1))])
    write(tmp_path, "ircot", [answer(q, f, 2000) for q, f in (("q1", 0), ("q2", 1), ("q3", 1), ("q4", 1))])
    write(tmp_path, "tree-part", [answer("q1", 1, 5000)])  # lacks three questions
    return tmp_path


def test_a_row_is_computed_from_its_runs(runs: Path):
    (row,) = load(targets(runs, """
rows:
  - name: set
    runs: [[auto-a, auto-a-rerun]]
    fixed: {oner: [oner], ircot: [ircot], tree: [tree-part]}
    checks: [best, oracle, cost, one_call, latency]
"""))
    r = evaluate(row, runs)
    assert r.n == 4
    assert r.f1 == pytest.approx(100 * (1 + 1 + 1 + 0.5) / 4)  # the re-run's answer replaced q3's
    assert [m.name for m in r.fixed] == ["oner", "ircot"] and r.missing == ["tree"]
    assert r.best.name == "ircot" and r.best.f1 == pytest.approx(75.0)
    assert r.oracle == pytest.approx(100.0)
    assert r.one_call == pytest.approx(0.5) and r.p50_s == pytest.approx(20.0)
    assert r.tokens == pytest.approx(450.0)
    got = {v.check: v.met for v in r.verdicts}
    # 87.5 ≥ 50; 12.5 below the oracle; 450 of ircot's 2000 tokens is 22 %; half in one call; p50 20 s > 15 s
    assert got == {"best": True, "oracle": False, "cost": True, "one_call": False, "latency": False}


def test_the_best_fixed_method_breaks_ties_by_tokens(runs: Path):
    write(runs, "ircot", [answer(q, f, 2000) for q, f in (("q1", 1), ("q2", 0), ("q3", 0), ("q4", 1))])
    (row,) = load(targets(runs, "rows:\n  - name: s\n    runs: [[auto-a]]\n"
                                "    fixed: {ircot: [ircot], oner: [oner]}\n"))
    assert evaluate(row, runs).best.name == "oner"


def test_several_runs_give_a_mean_and_the_oracle_picks_among_the_named_routes(runs: Path):
    (row,) = load(targets(runs, """
rows:
  - name: repeated
    runs: [[auto-a], [auto-b]]
    fixed: {oner: [oner], ircot: [ircot]}
    oracle: [oner]
"""))
    r = evaluate(row, runs)
    assert r.f1_runs == pytest.approx([62.5, 25.0]) and r.f1 == pytest.approx(43.75)
    assert r.oracle == pytest.approx(50.0) and r.oracle_of == 1  # OneR alone, though IRCoT was recorded
    assert r.in_flight == [1, 2]
    md = run(runs / "targets.yaml", runs)[1]
    assert "43.8 (mean of 2: 25.0-62.5)" in md and "50.0 (1 method)" in md
    assert "p50" in md and "(1/2 in flight)" in md


def test_types_and_an_ids_file_narrow_the_questions(runs: Path):
    write(runs, "typed", [answer("q1", 1, qtype="bridging", lang="ko"), answer("q2", 0, qtype="comparison", lang="ko"),
                          answer("q3", 0, qtype="bridging", lang="ko")])
    (runs / "ids.txt").write_text("q3\nq4\n", encoding="utf-8")
    rows = load(targets(runs, """
rows:
  - name: bridges
    runs: [[typed]]
    types: [bridging]
    fixed: {ircot: [ircot]}
    checks: [best, latency]
  - name: listed
    runs: [[auto-a]]
    ids: ids.txt
    fixed: {oner: [oner]}
"""))
    bridges, listed = (evaluate(r, runs) for r in rows)
    assert bridges.n == 2 and bridges.f1 == pytest.approx(50.0) and bridges.best.f1 == pytest.approx(50.0)  # q1, q3
    assert bridges.lang == "ko" and [v.text for v in bridges.verdicts][1].endswith("vs 20 s")
    assert listed.n == 2 and listed.f1 == pytest.approx(25.0) and listed.best.f1 == pytest.approx(50.0)


def test_a_gap_above_the_oracle_reads_as_above(runs: Path):
    (row,) = load(targets(runs, "rows:\n  - name: s\n    runs: [[auto-a, auto-a-rerun]]\n    fixed: {oner: [oner]}\n"))
    (oracle,) = [v for v in evaluate(row, runs).verdicts if v.check == "oracle"]
    assert oracle.met and oracle.text == "37.5 above the oracle's 50.0"


@pytest.mark.parametrize("text, says", [
    ("rows: []\n", "top-level `rows:`"),
    ("rows:\n  - runs: [[a]]\n", "row 1: each row needs a `name`"),
    ("rows:\n  - name: s\n    runs: [a]\n", "row 1 (s): `runs` must be a list of runs"),
    ("rows:\n  - name: s\n    runs: [[auto-a]]\n    fixed: {oner: oner}\n", "`fixed` must map"),
    ("rows:\n  - name: s\n    runs: [[auto-a]]\n    fixed: {oner: [oner]}\n    checks: [fast]\n", "unknown check"),
    ("rows:\n  - name: s\n    runs: [[auto-a]]\n", "need `fixed` runs"),
    ("rows:\n  - name: s\n    runs: [[auto-a]]\n    fixed: {oner: [oner]}\n    oracle: [tree]\n", "`oracle` must"),
    ("rows: [\n", "cannot read the targets file"),
])
def test_a_malformed_targets_file_is_named(runs: Path, text: str, says: str):
    with pytest.raises(InputError, match="targets.yaml") as e:
        load(targets(runs, text))
    assert says in str(e.value)


def test_a_missing_directory_or_question_is_named(runs: Path):
    (row,) = load(targets(runs, "rows:\n  - name: s\n    runs: [[auto-a]]\n    fixed: {oner: [nowhere]}\n"))
    with pytest.raises(InputError, match="fixed oner: nowhere holds no results"):
        evaluate(row, runs)
    (row,) = load(targets(runs, "rows:\n  - name: s\n    runs: [[auto-a], [auto-a-rerun]]\n"
                                "    fixed: {oner: [oner]}\n"))
    with pytest.raises(InputError, match="run 2 lacks 3 of the row's questions"):
        evaluate(row, runs)


def test_the_committed_table_is_what_the_recorded_runs_give():
    """docs/auto-targets.md is regenerated, not edited: `gaji bench targets --out docs/auto-targets.md`."""
    _results, md = run(root=REPO)
    assert (REPO / "docs" / "auto-targets.md").read_text(encoding="utf-8") == md


def test_a_missed_row_shows_where_it_stands_by_type_and_decision(runs: Path):
    # auto: q1 stood (right), q2 escalated from a right first answer to a wrong one, q3 bridged; q4 has no trace
    rows = [answer("q1", 1, qtype="bridge"), answer("q2", 0, qtype="comparison"), answer("q3", 1, qtype="bridge"),
            answer("q4", 0, qtype="comparison")]
    rows[1]["gold"] = ["Seoul"]
    write(runs, "traced", rows)
    traces = [{"id": "q1", "trace": {"root": {"data": {"cascade": {"decision": "stand"}}}}},
              {"id": "q2", "trace": {"root": {"data": {"cascade": {"decision": "escalate", "first_answer": "Seoul"}}}}},
              {"id": "q3", "trace": {"root": {"data": {"cascade": {"decision": "bridged"}}}}}]
    (runs / "traced" / "traces.jsonl").write_text("".join(json.dumps(t) + "\n" for t in traces), "utf-8")
    (row,) = load(targets(runs, "rows:\n  - name: s\n    runs: [[traced]]\n"
                                "    fixed: {oner: [oner], ircot: [ircot]}\n"))
    r = evaluate(row, runs)
    assert {v.check: v.met for v in r.verdicts}["oracle"] is False  # 50 against the oracle's 100
    by_decision = {g.name: g for g in r.by_decision}
    assert set(by_decision) == {"stand", "escalate", "bridged", "(no trace)"}
    assert by_decision["stand"].first_f1 == pytest.approx(100.0)  # the first answer stood: the final one's score
    assert by_decision["escalate"].f1 == 0 and by_decision["escalate"].first_f1 == pytest.approx(100.0)
    assert by_decision["bridged"].first_f1 is None and by_decision["bridged"].first_n == 0
    assert by_decision["escalate"].best_f1 == pytest.approx(100.0)  # ircot, the best, on q2
    by_type = {g.name: g for g in r.by_type}
    assert by_type["comparison"].f1 == 0 and by_type["comparison"].oracle_f1 == pytest.approx(100.0)
    md = run(runs / "targets.yaml", runs)[1]
    assert "## s: where it stands" in md and "| escalate | 1 | 0.0 | 100.0 (1) | 100.0 | 100.0 |" in md


def test_a_row_that_meets_its_quality_targets_has_no_breakdown(runs: Path):
    (row,) = load(targets(runs, "rows:\n  - name: s\n    runs: [[auto-a, auto-a-rerun]]\n    fixed: {oner: [oner]}\n"
                                "    checks: [best]\n"))
    r = evaluate(row, runs)
    assert r.verdicts[0].met and r.by_decision == [] and r.by_type == []
