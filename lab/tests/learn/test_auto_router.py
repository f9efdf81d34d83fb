"""Training the adaptive router from recorded results (lab/gaji_lab/learn/auto_router.py) and its replay estimates, on a
small fake benchmarks/ tree; and the cost–quality plot made from the same kind of tree."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gaji.errors import InputError
from gaji_lab.learn.auto_router import RUNS, VERDICTS, cross_validate, label, load_rows, report_document, \
    train_auto_router, Row
from gaji.methods.auto.features import FEATURES
from gaji.methods.auto.router import ROUTES, AutoRouter

N = 40


def write_run(root: Path, d: str, rows: list[dict]) -> None:
    p = root / d
    p.mkdir(parents=True, exist_ok=True)
    (p / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def fake_root(tmp_path: Path) -> Path:
    """HotpotQA-like: comparisons ("... or ...?") are answered only by the chain, the rest by one retrieval."""
    qs = [(f"q{i}", f"Which came first, A{i} or B{i}?" if i % 2 else f"Where was person {i} born?") for i in range(N)]

    def rows(route: str) -> list[dict]:
        out = []
        for qid, q in qs:
            compare = " or " in q
            f1 = {"closed": 0.0, "one": 0.0 if compare else 1.0, "chain": 1.0, "tree": 0.5}[route]
            tokens = {"closed": 90, "one": 700, "chain": 15000, "tree": 10000}[route]
            out.append({"id": qid, "question": q, "type": "comparison" if compare else "bridge",
                        "metrics": {"f1": f1, "tokens": tokens}})
        return out

    for route in ROUTES:
        write_run(tmp_path, RUNS[route]["hotpotqa"][0], rows(route))
    # the evaluator's verdicts on the one-retrieval answers: it rejects the wrong ones
    verdicts = [{**r, "metrics": {**r["metrics"], "toq_rval": r["metrics"]["f1"], "eval_tokens": 1000}}
                for r in rows("one")]
    write_run(tmp_path, VERDICTS["one"]["hotpotqa"], verdicts)
    # an extra fixed method, to be compared
    write_run(tmp_path, "benchmarks/results/cot-hotpotqa-local",
              [{**r, "metrics": {"f1": 0.5, "tokens": 13000}} for r in rows("one")])
    return tmp_path


def feats(q: str) -> dict[str, float]:
    return {name: 0.0 for name in FEATURES} | {"compare": float(" or " in q), "words": float(len(q.split()))}


def test_labels_are_the_cheapest_route_within_epsilon():
    row = Row("hotpotqa", "q", "q?", "", f1={"closed": 0.0, "one": 0.9, "chain": 1.0}, tokens={"closed": 1, "one": 10, "chain": 100})
    assert label(row, 0.1) == "one" and label(row, 0.0) == "chain"
    fail = Row("hotpotqa", "q", "q?", "", f1={"one": 0.0, "chain": 0.0}, tokens={"one": 10, "chain": 100})
    assert label(fail, 0.1) == "one"  # nothing buys anything: the cheapest


def test_training_learns_the_routes_and_the_replay_credits_recorded_results(tmp_path):
    root = fake_root(tmp_path)
    router, rep = train_auto_router(root, features=feats, folds=4)
    assert rep["data"]["hotpotqa"] == N and rep["labels"] == {"closed": 0, "one": N // 2, "chain": N // 2, "tree": 0}
    v = rep["held_out"]["replay"]["hotpotqa"]
    assert v["auto"]["f1"] == 1.0 and v["auto"]["tokens"] == pytest.approx((700 + 15000) / 2)
    assert v["route_mix"] == {"closed": 0, "one": N // 2, "chain": N // 2, "tree": 0}
    assert v["best_fixed"] == "ircot-hotpotqa-local" and set(v["fixed"]) >= {"cot-hotpotqa-local", "oner-hotpotqa-local"}
    assert v["by_type"]["comparison"]["routes"] == {"chain": N // 2}
    # verify: an accepted one-retrieval answer pays the evaluator, a rejected one would add the chain
    assert v["verify"]["escalated"] == 0 and v["verify"]["tokens"] == pytest.approx(v["auto"]["tokens"] + 500)
    assert rep["baselines"]["always one retrieval"]["hotpotqa"]["auto"]["f1"] == 0.5
    P = router.probs(np.array([[feats(q)[n] for n in FEATURES] for q in ("Which came first, X or Y?", "Where is Z?")]))
    assert [ROUTES[i] for i in P.argmax(axis=1)] == ["chain", "one"]
    assert router.meta["split"]["kind"].startswith("k-fold") and router.meta["held_out"]["hotpotqa"]["auto_f1"] == 1.0
    doc = report_document(rep, "gaji classifier train-auto")
    assert "replay estimates, not runs of the method" in doc and "| hotpotqa | 40 |" in doc
    # the tie margins replayed: the routes here are far from ties, so every margin routes the same
    assert [m["tie"] for m in rep["tie_margins"]] == [0.01, 0.03, 0.05, 0.1]
    assert all(m["hotpotqa"]["f1"] == 1.0 for m in rep["tie_margins"]) and "The tie margin" in doc


def test_a_wider_tie_margin_sends_a_near_tie_to_the_cheaper_route():
    from gaji.methods.auto.router import pick

    p = np.array([0.0, 0.46, 0.50, 0.04])  # closed, one, chain, tree
    assert pick(p, ROUTES, ROUTES) == "chain" and pick(p, ROUTES, ROUTES, tie=0.05) == "one"
    assert pick(p, ROUTES, ("closed", "tree")) == "tree" and pick(p, ROUTES, ("closed", "tree"), tie=0.05) == "closed"


def test_cross_validation_never_routes_a_question_with_a_router_that_saw_it(tmp_path):
    root = fake_root(tmp_path)
    rows = load_rows(root)
    X = np.array([[feats(r.question)[n] for n in FEATURES] for r in rows])
    routes = cross_validate(X, rows, folds=4)
    assert [r == "chain" for r in routes] == [" or " in r.question for r in rows]


def test_the_router_file_round_trips(tmp_path):
    root = fake_root(tmp_path)
    router, _ = train_auto_router(root, features=feats, folds=4)
    router.save(tmp_path / "r.json")
    back = AutoRouter.load(tmp_path / "r.json")
    X = np.array([[feats("Which came first, A or B?")[n] for n in FEATURES]])
    assert np.allclose(back.probs(X), router.probs(X), atol=1e-4) and back.meta["fit"]["epsilon"] == 0.1


def test_no_recorded_results_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no recorded per-question results"):
        load_rows(tmp_path)
    write_run(tmp_path, RUNS["one"]["hotpotqa"][0], [{"id": "q"}])
    (tmp_path / RUNS["one"]["hotpotqa"][0] / "results.jsonl").write_text("{bad\n")
    with pytest.raises(InputError, match=r"results.jsonl:1: not valid JSON"):
        load_rows(tmp_path)


def test_the_cost_quality_plot_has_a_point_per_method_and_set(tmp_path):
    from gaji_lab.bench.cost_quality import plot, points, table

    root = fake_root(tmp_path)
    _, rep = train_auto_router(root, features=feats, folds=4)
    (root / "benchmarks" / "auto").mkdir(parents=True)
    (root / "benchmarks" / "auto" / "report.json").write_text(json.dumps(rep))
    pts = points(root)
    assert {(p.method, p.replay) for p in pts} == {("nor", False), ("oner", False), ("ircot", False), ("cot", False),
                                                   ("toq", False)}
    # the router is only the cascade's prior now: its report is not an auto point (tests/bench/test_cost_quality.py)
    assert not [p for p in pts if p.method == "auto"]
    out = plot(pts, tmp_path / "docs" / "cq.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| hotpotqa | cot | 50.0 |" in table(pts)


def test_a_korean_run_recorded_in_batches_of_ids_is_one_fixed_run(tmp_path):
    from gaji_lab.learn.auto_router import KOMH, fixed_runs

    row = lambda qid, f1: {"id": qid, "question": "q?", "metrics": {"f1": f1, "tokens": 10}}  # noqa: E731
    write_run(tmp_path, f"{KOMH}/oner-dev-a", [row("k1", 1.0), row("k2", 0.0)])
    write_run(tmp_path, f"{KOMH}/oner-dev-b", [row("k2", 1.0), row("k3", 0.5)])
    write_run(tmp_path, f"{KOMH}/toq-report6", [row("k9", 1.0)])  # the report part is not a dev run
    runs = fixed_runs(tmp_path, "komultihop")
    assert set(runs) == {"oner-dev"}
    assert {q: r["metrics"]["f1"] for q, r in runs["oner-dev"].items()} == {"k1": 1.0, "k2": 0.0, "k3": 0.5}


def test_a_run_recorded_in_sittings_is_one_point(tmp_path):
    from gaji_lab.bench.cost_quality import METHOD_RUNS, points

    row = lambda qid, f1: {"id": qid, "question": "q?", "metrics": {"f1": f1, "tokens": 100}}  # noqa: E731
    write_run(tmp_path, METHOD_RUNS["oner"]["komultihop"], [row("k1", 0.0), row("k2", 0.0), row("k3", 0.0)])
    first, second, third = METHOD_RUNS["ircot"]["komultihop"]
    write_run(tmp_path, first, [row("k1", 1.0)])
    write_run(tmp_path, second, [row("k2", 0.5), row("k1", 0.0)])  # k1 again: the first sitting's line wins
    write_run(tmp_path, third, [row("k3", 0.0)])
    (ircot,) = [p for p in points(tmp_path) if p.method == "ircot" and p.set == "komultihop"]
    assert (ircot.n, round(ircot.f1, 3)) == (3, 0.5)
