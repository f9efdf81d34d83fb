"""`gaji bench evaluator`: labelled probes for the ToQ query evaluator, and their scoring."""
from __future__ import annotations

import json

from gaji_lab.bench.evaluator import Probe, Verdict, build_probes, run_probes, score
from gaji.eval.datasets import EvalItem
from gaji.eval.metrics.retrieval import GoldRef
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.toq.evaluator import QueryEvaluator

ITEMS = [
    EvalItem("b1", "In which year was the king who made the 1925 Birthday Honours born?", ["1865"],
             [GoldRef("", "1925 Birthday Honours"), GoldRef("", "George V")], "en", "bridge"),
    EvalItem("c1", "Which battle occurred first, the Battle of Manila or the Battle of Guam?", ["Battle of Guam"],
             [GoldRef("", "Battle of Manila (1945)"), GoldRef("", "Battle of Guam (1944)")], "en", "comparison"),
    EvalItem("y1", "Are both Tokyo and Kyoto in Japan?", ["yes"], [GoldRef("", "Tokyo"), GoldRef("", "Kyoto")], "en"),
    EvalItem("k1", "임종석이 지명수배 된 날은?", ["1989년 2월 15일"], [GoldRef("", "임종석")], "ko"),
]


def test_probes_per_question():
    probes = build_probes(ITEMS)
    by = {(p.qid, p.kind): p for p in probes}
    assert by[("b1", "gold")].label is True and "1865" in by[("b1", "gold")].response
    assert by[("b1", "bridge")].label is False and "George V" in by[("b1", "bridge")].response  # not in the question
    # both comparison titles are in the question: no bridge probe; a yes/no question has none either
    assert ("c1", "bridge") not in by and ("y1", "bridge") not in by
    # "other" answers have another shape than the gold answer
    assert "1865" not in by[("b1", "other")].response and "1989" not in by[("b1", "other")].response
    assert by[("y1", "other")].response != by[("y1", "gold")].response
    assert by[("k1", "gold")].response.startswith("문서에 따르면") and by[("k1", "gold")].lang == "ko"
    assert build_probes(ITEMS) == probes  # deterministic


def test_score_balanced_accuracy():
    p_ok = Probe("a", "gold", "q", "r", True)
    p_bad = Probe("a", "other", "q", "r", False)
    always_valid = [Verdict(p_ok, True, 8, 90), Verdict(p_bad, True, 8, 90)]
    assert score(always_valid)["balanced_accuracy_pct"] == 50.0
    perfect = [Verdict(p_ok, True, 8, 90), Verdict(p_bad, False, 2, 0), Verdict(p_bad, None, error="x")]
    r = score(perfect)
    assert r["balanced_accuracy_pct"] == 100.0 and r["failed"] == 1
    assert r["kinds"]["gold"]["valid_pct"] == 100.0 and r["kinds"]["other"]["valid_pct"] == 0.0


def test_run_probes_with_the_real_evaluator_prompt():
    def rule(request):
        last = request.messages[-1]["content"]
        ok = "1865" in last or "Guam [1]" in last or "yes [1]" in last or "1989년" in last
        return json.dumps({"asks_for": "x", "response_gives": "y", "semantic_coherence": 8 if ok else 2,
                           "answerability": 90 if ok else 5, "response_validity": ok})

    probes = build_probes(ITEMS)
    verdicts = run_probes(probes, QueryEvaluator(TrackedLLM(ScriptedLLM([(r"(?s).*", rule)]), retries=0)), 2)
    assert [v.probe for v in verdicts] == probes  # order kept
    assert all(v.reason == {"asks_for": "x", "response_gives": "y"} for v in verdicts)
    r = score(verdicts)
    assert r["kinds"]["gold"]["valid_pct"] == 100.0 and r["kinds"]["bridge"]["valid_pct"] == 0.0
