"""Post-hoc ToQ evaluator scoring of a finished run (`gaji eval score DIR --toq-eval`)."""
from __future__ import annotations

import json

import pytest

from evalfakes import write_jsonl
from gaji.errors import ConfigError
from gaji.eval.rescore import ToQRescore
from gaji.llm.scripted import ScriptedLLM


def lines(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def latest(path):
    return {r["id"]: r for r in lines(path)}


VALID = json.dumps({"asks_for": "x", "response_gives": "y", "semantic_coherence": 8, "answerability": 90, "response_validity": True})
INVALID = json.dumps({"asks_for": "x", "response_gives": "y", "semantic_coherence": 3, "answerability": 10, "response_validity": False})


def judge_llm(calls: list) -> ScriptedLLM:
    """The real QueryEvaluator prompt, answered by rules: Guam answers are valid, others not."""

    def rule(request):
        last = request.messages[-1]["content"]
        calls.append(last)
        summary = last.split("Summary:")[-1].strip().splitlines()[0]
        return VALID if "Battle of Guam" in summary else INVALID

    return ScriptedLLM([(r"(?s).*", rule)], name="judge-model")


@pytest.fixture
def finished_run(make_run, qfile, tmp_path):
    make_run(qfile, method="eval_fake_ret").run()
    return tmp_path / "run"


def test_scores_every_answer_with_the_real_evaluator_and_keeps_method_cost(finished_run):
    before = latest(finished_run / "results.jsonl")
    calls: list = []
    r = ToQRescore(finished_run, judge_llm(calls), "scripted", concurrency=2).run()
    after = latest(finished_run / "results.jsonl")
    assert [f[0] for f in r.failed] == ["q4"]  # the crashed question has no answer to score
    assert r.scored == len(before) - sum(1 for x in before.values() if x["status"] == "error")
    for qid, rec in after.items():
        if rec["status"] == "error":
            continue
        m = rec["metrics"]
        assert set(m) >= {"toq_scoh", "toq_ans", "toq_oass", "toq_rval", "eval_calls", "eval_tokens"}
        assert m["eval_calls"] == 1
        # the method's own cost and answer metrics are untouched
        for k, v in before[qid]["metrics"].items():
            assert m[k] == v
    # the evaluator saw each method's own retrieved passages
    assert any("Battle of Guam (1944)" in c for c in calls)
    ev = lines(finished_run / "evaluations.jsonl")
    assert {e["id"] for e in ev} == {q for q, x in after.items() if x["status"] != "error"}
    assert all(e["eval"][0]["kind"] == "toq_eval" and e["eval"][0]["calls"] for e in ev)
    summary = json.loads((finished_run / "summary.json").read_text())
    assert summary["metrics"]["toq_rval"]["n"] == r.scored
    assert summary["toq_eval_posthoc"]["judge_model"] == "judge-model"
    assert json.loads((finished_run / "run.json").read_text())["toq_eval_posthoc"]["self_judging"] is False


def test_validity_follows_the_judges_verdict(finished_run):
    ToQRescore(finished_run, judge_llm([]), "scripted").run()
    after = latest(finished_run / "results.jsonl")
    by_pred = {rec["prediction"]: rec["metrics"].get("toq_rval") for rec in after.values() if rec["status"] != "error"}
    assert by_pred == {"the Battle of Guam.": 1.0, "1989년 2월 15일에": 0.0, "I do not know": 0.0}


def test_resume_scores_only_what_is_missing(finished_run):
    calls: list = []
    first = ToQRescore(finished_run, judge_llm(calls), "scripted").run(limit=1)
    assert first.scored == 1
    second = ToQRescore(finished_run, judge_llm(calls), "scripted").run()
    assert second.skipped == 1 and second.scored >= 1
    n_calls = len(calls)
    third = ToQRescore(finished_run, judge_llm(calls), "scripted").run()
    assert third.scored == 0 and len(calls) == n_calls


def test_a_failing_judge_is_reported_not_raised(finished_run):
    broken = ScriptedLLM([(r"(?s).*", "not json at all")], name="judge-model")
    r = ToQRescore(finished_run, broken, "scripted", retries=0).run()
    assert r.scored == 0 and r.failed
    assert all(e["eval"][0]["status"] == "failed" for e in lines(finished_run / "evaluations.jsonl"))
    assert not any("toq_rval" in x["metrics"] for x in latest(finished_run / "results.jsonl").values())


def test_not_a_run_directory(tmp_path):
    with pytest.raises(ConfigError, match="not a run directory"):
        ToQRescore(tmp_path, None, "scripted")


def test_korean_answer_is_scored_in_korean(make_run, tmp_path):
    q = write_jsonl(tmp_path / "ko.jsonl", [{"id": "k1", "question": "임종석이 지명수배 된 날은?", "answers": ["1989년 2월 15일"]}])
    make_run(q, method="eval_fake").run()
    calls: list = []
    ToQRescore(tmp_path / "run", judge_llm(calls), "scripted").run()
    assert calls and "임종석" in calls[0]


def test_passages_shown_to_the_judge_and_kept_consistent(finished_run):
    calls: list = []
    ToQRescore(finished_run, judge_llm(calls), "scripted", passages=0).run(limit=1)
    assert calls and "Sources of the summary" not in calls[0]
    with pytest.raises(ConfigError, match="--passages 0"):
        ToQRescore(finished_run, judge_llm(calls), "scripted", passages=5).run()
    r = ToQRescore(finished_run, judge_llm(calls), "scripted", passages=0).run()
    assert r.scored >= 1 and all("Sources of the summary" not in c for c in calls)
    assert json.loads((finished_run / "summary.json").read_text())["toq_eval_posthoc"]["passages"] == 0
