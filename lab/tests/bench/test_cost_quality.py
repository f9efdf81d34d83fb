"""The cost–quality plot's points for auto (lab/gaji_lab/bench/cost_quality.py): one per effort from the safety
model's held-out replay, one per live run of auto, over a small hand-made repository tree."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaji.errors import InputError
from gaji_lab.bench.cost_quality import CASCADE, LIVE_RUNS, METHOD_RUNS, curves, plot, points, table

# F1 in percent, as `gaji classifier train-cascade` writes it
REPLAY = {"hotpotqa": {"low": (47.0, 962.4, 0.02), "medium": (49.0, 1442.7, 0.06), "high": (51.1, 7140.9, 0.44)},
          "komultihop": {"low": (46.1, 1818.5, 0.0), "medium": (50.8, 2765.8, 0.094), "high": (48.7, 3966.7, 0.188)}}


def cascade_file(root: Path, replay: dict | None = None, questions: dict | None = None) -> Path:
    replay = REPLAY if replay is None else replay
    by_set = {s: {"auc": 0.6, "first_rung": {"f1": 40.0, "tokens": 700.0, "escalated": 0.0},
                  **{e: {"f1": f, "tokens": t, "escalated": up} for e, (f, t, up) in efforts.items()},
                  "oracle_f1": 66.0} for s, efforts in replay.items()}
    model = {"format": "gaji-auto-cascade/1", "signals": ["lp_min", "ko"], "mean": [-1.0, 0.5], "scale": [1.0, 0.5],
             "weights": [0.8, -0.2], "bias": 0.1, "thresholds": {"low": 0.0, "medium": 0.27, "high": 0.38},
             "escalate": {"compare": "tree", "intersection": "tree", "other": "chain"},
             "trained_on": {"hotpotqa": 50, "komultihop": 32},
             "held_out": {"questions": questions or {"hotpotqa": 50, "komultihop": 32}, "by_set": by_set}}
    p = root / CASCADE
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(model), encoding="utf-8")
    return p


def result(qid: str, f1: float, tokens: int, gold: str = "Seoul", lang: str = "en") -> dict:
    return {"id": qid, "question": "q?", "gold": [gold], "prediction": gold if f1 else "no", "lang": lang,
            "status": "ok", "metrics": {"f1": f1, "tokens": tokens, "calls": 1}}


def write_run(root: Path, d: str, rows: list[dict], run: dict | None = None, traces: list[dict] | None = None) -> Path:
    p = root / d
    p.mkdir(parents=True, exist_ok=True)
    (p / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    if run is not None:
        (p / "run.json").write_text(json.dumps(run), encoding="utf-8")
    if traces is not None:
        (p / "traces.jsonl").write_text("".join(json.dumps(t) + "\n" for t in traces), encoding="utf-8")
    return p


def trace(qid: str, decision: str, to: str | None = None) -> dict:
    return {"id": qid, "trace": {"root": {"data": {"cascade": {"decision": decision, "to": to}}}}}


def live_run(root: Path, name: str, dataset: str, effort: str | None, rows: list[dict],
             traces: list[dict] | None = None) -> Path:
    options = {"router": "", "safety": ""} | ({"effort": effort} if effort else {})
    return write_run(root, f"{LIVE_RUNS}/{name}", rows, {"method": "auto", "dataset": {"name": dataset},
                                                         "created_at": "2026-11-28T22:25:00+00:00",
                                                         "options": options}, traces)


def tree(root: Path) -> Path:
    """Fixed methods on both sets, the safety model, and two live runs of auto: HotpotQA at effort high on other
    questions than the reference ones (with traces: one of two escalated), the Korean report part at low."""
    write_run(root, METHOD_RUNS["oner"]["hotpotqa"], [result(f"h{i}", 0.5, 700) for i in range(4)])
    write_run(root, METHOD_RUNS["oner"]["komultihop"], [result(f"k{i}", 0.25, 2400, "서울", "ko") for i in range(3)])
    cascade_file(root)
    live_run(root, "auto-hotpotqa-report", "hotpotqa", "high", [result("r1", 1.0, 700), result("r2", 0.0, 15000)],
             [trace("r1", "stand"), trace("r2", "escalate", "chain")])
    live_run(root, "auto-komultihop-report", "komultihop-report", "low",
             [result(f"k{i}", f1, 1500, "서울", "ko") for i, f1 in enumerate((1.0, 0.0, 0.5))])
    return root


def test_auto_has_three_replay_points_per_set_and_one_per_live_run(tmp_path):
    pts = [p for p in points(tree(tmp_path)) if p.method == "auto"]
    replay = {(p.set, p.effort): p for p in pts if p.replay}
    assert sorted(replay) == [(s, e) for s in ("hotpotqa", "komultihop") for e in ("high", "low", "medium")]
    for (s, e), p in replay.items():
        f1, tokens, up = REPLAY[s][e]
        assert (round(100 * p.f1, 1), p.tokens, p.escalated, p.part) == (f1, tokens, up, "dev")
        assert p.label == f"auto {e} (replay, dev)"
    assert (replay["hotpotqa", "low"].n, replay["komultihop", "high"].n) == (50, 32)
    live = {p.set: p for p in pts if not p.replay}
    assert set(live) == {"hotpotqa", "komultihop"}
    hp, ko = live["hotpotqa"], live["komultihop"]
    assert (hp.effort, hp.part, hp.n, hp.f1, hp.tokens, hp.escalated) == ("high", "report", 2, 0.5, 7850, 0.5)
    assert hp.label == "auto (live, effort high, report part)"
    assert hp.source == f"{LIVE_RUNS}/auto-hotpotqa-report"
    assert (ko.effort, ko.part, ko.n, ko.f1, ko.escalated) == ("low", "report", 3, 0.5, None)  # no traces
    assert ko.label == "auto (live, effort low, report part)"


def test_an_efforts_points_of_a_set_make_one_curve_in_effort_order(tmp_path):
    lines = curves(points(tree(tmp_path)))
    assert [p.effort for p in lines["komultihop", True, "dev"]] == ["low", "medium", "high"]
    assert [p.effort for p in lines["hotpotqa", False, "report"]] == ["high"]


def test_the_table_and_the_figure_say_what_each_auto_point_is(tmp_path):
    pts = points(tree(tmp_path))
    md = table(pts)
    assert "| komultihop | auto medium (replay, dev) | 50.8 | 2,766 | 32 | 9% |" in md
    assert "| hotpotqa | auto (live, effort high, report part) | 50.0 | 7,850 | 2 | 50% |" in md
    assert "| komultihop | oner | 25.0 | 2,400 | 3 |  |" in md
    assert f"`{CASCADE}`" in md and "dev part, not the report part" in md
    assert f"`{LIVE_RUNS}/auto-komultihop-report`, 3 questions, recorded 2026-11-28 with the safety model" in md
    out = plot(pts, tmp_path / "docs" / "cq.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_old_routers_report_is_not_drawn(tmp_path):
    root = tree(tmp_path)
    rep = {"held_out": {"replay": {"hotpotqa": {"auto": {"f1": 0.9, "tokens": 50}, "questions": 50}}}}
    (root / "benchmarks" / "auto" / "report.json").write_text(json.dumps(rep))
    assert not [p for p in points(root) if p.method == "auto" and p.f1 == 0.9]


def test_a_live_run_without_an_effort_is_at_the_default_and_one_without_results_is_left_out(tmp_path):
    write_run(tmp_path, METHOD_RUNS["oner"]["hotpotqa"], [result("h1", 0.5, 700)])
    live_run(tmp_path, "auto-hotpotqa-dev", "hotpotqa", None, [result("h1", 1.0, 900)])
    live_run(tmp_path, "auto-hotpotqa-report", "hotpotqa", "low", [])  # started, nothing recorded yet
    (p,) = [p for p in points(tmp_path) if p.method == "auto"]
    assert (p.effort, p.part, p.label) == ("medium", "dev", "auto (live, effort medium, dev part)")


def test_bad_files_are_errors_that_name_the_file_and_field(tmp_path):
    write_run(tmp_path, METHOD_RUNS["oner"]["hotpotqa"], [result("h1", 0.5, 700)])
    bad = {"hotpotqa": {"low": (47.0, 962.4, 0.02), "medium": (49.0, 1442.7, 0.06)}}  # no high
    path = cascade_file(tmp_path, bad)
    with pytest.raises(InputError, match=r"cascade\.json \(field 'held_out\.by_set\.hotpotqa\.high'\)"):
        points(tmp_path)
    cascade_file(tmp_path, questions={"komultihop": 32})
    with pytest.raises(InputError, match=r"field 'held_out\.questions\.hotpotqa'"):
        points(tmp_path)
    path.unlink()
    live_run(tmp_path, "auto-hotpotqa-report", "hotpotqa", "extreme", [result("h1", 1.0, 900)])
    with pytest.raises(InputError, match=r"run\.json \(field 'options\.effort'\): effort 'extreme' is not one of"):
        points(tmp_path)
    (tmp_path / LIVE_RUNS / "auto-hotpotqa-report" / "run.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"run\.json: not a run's run\.json"):
        points(tmp_path)


def test_two_live_runs_at_one_effort_are_named_by_their_directories_and_not_joined(tmp_path):
    write_run(tmp_path, METHOD_RUNS["oner"]["hotpotqa"], [result("h1", 0.5, 700)])
    live_run(tmp_path, "auto-hotpotqa-report", "hotpotqa", "medium", [result("r1", 1.0, 900)])
    live_run(tmp_path, "auto-start-hotpotqa-report", "hotpotqa", "medium", [result("r1", 0.0, 3000)])
    pts = points(tmp_path)
    assert sorted(p.label for p in pts if p.method == "auto") == [
        "auto (live, effort medium, report part, auto-hotpotqa-report)",
        "auto (live, effort medium, report part, auto-start-hotpotqa-report)"]
    assert curves(pts) == {}
