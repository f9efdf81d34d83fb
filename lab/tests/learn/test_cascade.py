"""Training auto's safety model from recorded runs: signals read back from traces, held-out replay, thresholds."""
from __future__ import annotations

import json

import pytest

from gaji.errors import ConfigError
from gaji_lab.learn.cascade import auc, parse_sets, report_markdown, train_cascade
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.oner import OneR
from gaji.methods.safety import SafetyModel
from gaji.testing import ListRetriever

DOCS = [(f"d{i}", f"Town {i}", f"Town {i} was founded in {1800 + i} by settler number {i}.") for i in range(40)]


def write_runs(tmp_path):
    """A first-rung run of 40 questions: the reader is right (a grounded year) on even ones and wrong (an ungrounded
    name) on odd ones; a tree run that is right on every question at 5,000 tokens."""
    first, tree = tmp_path / "first", tmp_path / "tree"
    first.mkdir()
    tree.mkdir()
    res, tr, tree_res = [], [], []
    for i in range(40):
        q = f"When was Town {i} founded?"
        reply = str(1800 + i) if i % 2 == 0 else "Springfield"
        llm = ScriptedLLM(default=reply)
        llm.token_logprob = -0.05 if i % 2 == 0 else -1.5
        ctx = RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)
        t = OneR(logprobs=True, reask=True).run(q, ctx)
        f1 = 1.0 if i % 2 == 0 else 0.0
        res.append({"id": f"q{i}", "status": "ok", "metrics": {"f1": f1, "tokens": 700}})
        tr.append({"id": f"q{i}", "trace": t.to_dict()})
        tree_res.append({"id": f"q{i}", "status": "ok", "metrics": {"f1": 1.0, "tokens": 5000}})
    for path, rows in ((first / "results.jsonl", res), (first / "traces.jsonl", tr), (tree / "results.jsonl", tree_res)):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return first, tree


def test_the_model_learns_from_traces_and_the_thresholds_follow_the_rules(tmp_path):
    first, tree = write_runs(tmp_path)
    model, report = train_cascade({"towns": (first, {"tree": tree})},
                                  {"compare": "tree", "intersection": "tree", "other": "tree"},
                                  budget=3000, low_share=0.1, folds=4)
    assert report["questions"] == {"towns": 40} and report["auc_held_out"] > 0.95
    row = report["by_set"]["towns"]
    assert row["first_rung"] == {"f1": 50.0, "tokens": 700.0, "escalated": 0.0}
    # high: escalate every wrong answer (F1 100; at least the half that is wrong goes up)
    assert row["high"]["f1"] == 100.0 and row["high"]["escalated"] >= 0.5
    # medium: within 3,000 tokens a question -> at most 46 % of them escalated
    assert row["medium"]["tokens"] <= 3000 and 50.0 < row["medium"]["f1"] < 100.0
    assert row["low"]["escalated"] <= 0.1 and row["oracle_f1"] == 100.0
    assert set(model.signals) >= {"grounded", "lp_mean"} and "ko" not in model.signals  # constants dropped
    path = tmp_path / "m.json"
    model.save(path)
    again = SafetyModel.load(path)
    assert again.thresholds == model.thresholds and again.meta["held_out"]["by_set"]["towns"]["high"]["f1"] == 100.0
    assert "| towns |" in report_markdown(model, report, "gaji classifier train-cascade ...")


def test_a_started_shape_takes_its_route_alone_at_medium_and_high_not_at_low(tmp_path):
    first, tree = write_runs(tmp_path)
    steps = tmp_path / "steps"
    steps.mkdir()
    (steps / "results.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "status": "ok", "metrics": {"f1": 0.75, "tokens": 2000}}) + "\n" for i in range(40)))
    model, report = train_cascade({"towns": (first, {"tree": tree, "steps": steps})},
                                  {"compare": "tree", "intersection": "tree", "other": "tree"},
                                  budget=3000, low_share=0.1, folds=4, start={"en": {"other": "steps"}})
    row = report["by_set"]["towns"]
    # every English "other" question starts on the step chain: its F1 and tokens, without the cheap attempt's
    assert row["medium"] == {"f1": 75.0, "tokens": 2000.0, "escalated": 1.0} == row["high"]
    assert row["low"]["tokens"] < 2000 and row["first_rung"]["f1"] == 50.0  # low starts with one retrieval
    assert model.start == {"en": {"other": "steps"}} and model.start_route("other", "en", "medium") == "steps"
    assert model.start_route("other", "en", "low") is None and model.start_route("other", "ko", "high") is None
    assert "Started deeper" in report_markdown(model, report, "gaji classifier train-cascade ...")
    # a language's own escalation: English questions here, so a Korean route changes nothing, an English one does
    ko, _ = train_cascade({"towns": (first, {"tree": tree, "steps": steps})},
                          {"compare": "tree", "intersection": "tree", "other": "tree", "ko:other": "steps"}, folds=4)
    en, _ = train_cascade({"towns": (first, {"tree": tree, "steps": steps})},
                          {"compare": "tree", "intersection": "tree", "other": "tree", "en:other": "steps"}, folds=4)
    assert ko.escalate_by_lang == {"ko": {"other": "steps"}} and "ko:other" not in ko.escalate
    assert ko.meta["held_out"]["by_set"]["towns"]["high"]["f1"] == 100.0  # the tree's
    assert en.meta["held_out"]["by_set"]["towns"]["high"]["f1"] < 100.0  # the step chain's 75 where it went up


def test_auc_and_set_specs():
    import numpy as np

    assert auc(np.array([0.9, 0.8, 0.1]), np.array([1, 1, 0])) == 1.0
    assert auc(np.array([0.5, 0.5]), np.array([1, 0])) == 0.5
    assert parse_sets(["hp=a,tree=b,chain=c"])["hp"][1].keys() == {"tree", "chain"}
    with pytest.raises(ConfigError, match="ROUTE=RUN with ROUTE one of steps, chain, tree"):
        parse_sets(["hp=a,forest=b"])
    with pytest.raises(ConfigError, match="no results.jsonl"):
        train_cascade({"x": (__import__("pathlib").Path("/nonexistent"), {})}, {"compare": "tree", "other": "tree"})


def test_live_report_reads_what_auto_did(tmp_path, monkeypatch):
    from gaji_lab.learn.cascade import live_report
    from gaji.methods.auto.method import Auto

    path = tmp_path / "safety.json"
    SafetyModel(("grounded",), [0.0], [1.0], [10.0], -5.0, {"low": 0.2, "medium": 0.5, "high": 0.8},
                {"compare": "tree", "other": "chain"}).save(path)
    run = tmp_path / "auto"
    run.mkdir()
    res, tr = [], []
    for i, (reply, gold) in enumerate([("1803", "1803"), ("Springfield", "1805")]):
        q = f"When was Town {2 * i + 3} founded?"
        ctx = RunContext(llm=TrackedLLM(ScriptedLLM(default=reply), retries=0, backoff_s=0),
                         retriever=ListRetriever(DOCS), parallel=False)
        t = Auto(safety=str(path)).run(q, ctx)
        f1 = 1.0 if t.answer == gold else 0.0
        res.append({"id": f"q{i}", "status": "ok", "type": "bridge", "gold": [gold], "lang": "en",
                    "prediction": t.answer, "metrics": {"f1": f1, "tokens": t.usage().prompt_tokens,
                                                        "calls": len(t.calls()), "wall_s": 1.0 + i}})
        tr.append({"id": f"q{i}", "trace": t.to_dict()})
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in res))
    (run / "traces.jsonl").write_text("".join(json.dumps(r) + "\n" for r in tr))
    rep = live_report(run)["all"]
    assert rep["questions"] == 2 and rep["escalated"] == 1 and rep["to"] == {"steps": 0, "chain": 1, "tree": 0}
    assert rep["first_rung_f1"] == 50.0 and rep["one_call_share"] == 0.5 and rep["wall_s_p50"] == 1.5


def _one_question_run(tmp_path, t, gold: str):
    """A recorded run of one English comparison question answered right by `t`: its results and its trace."""
    run = tmp_path / "auto"
    run.mkdir()
    (run / "results.jsonl").write_text(json.dumps(
        {"id": "q0", "status": "ok", "type": "comparison", "gold": [gold], "lang": "en", "prediction": t.answer,
         "metrics": {"f1": 1.0, "tokens": t.usage().prompt_tokens, "calls": len(t.calls()), "wall_s": 2.0}}) + "\n")
    (run / "traces.jsonl").write_text(json.dumps({"id": "q0", "trace": t.to_dict()}) + "\n")
    return run


def test_live_report_counts_the_choices_code_decided(tmp_path):
    from gaji_lab.learn.cascade import live_report
    from gaji.methods.auto.method import Auto

    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if "Give only the date" in system:
            return "1803" if "Town 3" in user else "1805"
        return "Town 5"  # the one retrieval picks the later one

    q = "Which town was founded first, Town 3 or Town 5?"
    ctx = RunContext(llm=TrackedLLM(ScriptedLLM(default=reply), retries=0, backoff_s=0),
                     retriever=ListRetriever(DOCS), parallel=False)
    t = Auto().run(q, ctx)
    assert t.answer == "Town 3"
    rep = live_report(_one_question_run(tmp_path, t, "Town 3"))["all"]
    assert (rep["compared"], rep["decided"], rep["replaced"], rep["escalated"], rep["checked"]) == (1, 1, 1, 0, 0)
    assert (rep["split_asked"], rep["split"], rep["bridged"]) == (0, 0, 0)  # a choice is no bridge
    assert rep["f1"] == 100.0 and rep["first_rung_f1"] == 50.0 and rep["calls"] == 3  # "Town 5": one word of two


def test_live_report_counts_the_yes_no_questions_checked_item_by_item(tmp_path):
    from gaji_lab.learn.cascade import live_report
    from gaji.methods.auto.method import Auto

    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if '"yes" or "no"' in system:
            return "yes" if "Town 3" in user else "no"
        return "Yes"  # the one retrieval says yes without looking

    t = Auto().run("Were both Town 3 and Town 5 founded by settlers?", RunContext(
        llm=TrackedLLM(ScriptedLLM(default=reply), retries=0, backoff_s=0), retriever=ListRetriever(DOCS),
        parallel=False))
    assert t.answer == "no"
    rep = live_report(_one_question_run(tmp_path, t, "no"))["all"]
    assert (rep["compared"], rep["checked"], rep["replaced"]) == (1, 1, 1) and rep["first_rung_f1"] == 0.0


def test_live_report_counts_the_english_bridge_splits_asked_and_taken(tmp_path):
    from gaji_lab.learn.cascade import live_report
    from gaji.methods.auto.method import Auto

    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if "hidden" in system:
            return json.dumps({"hidden": "the man who founded Town 3", "first": "Who founded Town 3?",
                               "then": "Where was [ANS_1] born?"})
        if "Give only the name" in system:
            return "Ann Lee"
        return "Town 5" if "Ann Lee" in user else "Town 3"

    q = "Where was the man who founded Town 3 born?"
    ctx = RunContext(llm=TrackedLLM(ScriptedLLM(default=reply), retries=0, backoff_s=0),
                     retriever=ListRetriever(DOCS), parallel=False)
    t = Auto().run(q, ctx)
    rep = live_report(_one_question_run(tmp_path, t, "Town 5"))["all"]
    assert (rep["split_asked"], rep["split"], rep["bridged"], rep["past_one"]) == (1, 1, 1, 1)
    assert rep["f1"] == 100.0 and rep["first_rung_f1"] == 50.0  # "Town 3": one word of two
