"""`gaji bench decomposer`: gold question shapes, outcomes of real decomposer calls (scripted model), scoring."""
from __future__ import annotations

import json

from gaji_lab.bench.decomposer import Split, decompose_all, render, score
from gaji_lab.learn.shape_router import expected_shape
from gaji.eval.datasets import EvalItem
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.toq.decomposer import QuestionDecomposer

ITEMS = [
    EvalItem("b1", "Where is the magazine that Robert McElroy writes for headquartered?", ["Manhattan"], [], "en",
             "bridge"),
    EvalItem("b2", "Connetquot High School is a public high school in what city in New York?", ["Oakdale"], [], "en",
             "bridge"),
    EvalItem("c1", "Which battle occurred first, the Battle of Manila or the Battle of Guam?", ["Battle of Guam"], [],
             "en", "comparison"),
    EvalItem("m1", "Where did the creator of the Allegory of Isabella d'Este's Coronation die?", ["Mantua"], [], "en",
             "2hop"),
    EvalItem("u1", "Are both Tokyo and Kyoto in Japan?", ["yes"], [], "en", ""),  # no shape label: skipped
    EvalItem("k1", "영화 『괴물』 감독의 고향은 어디인가요?", ["대구"], [], "ko", "bridge"),
]

SPLITS = {
    "Robert McElroy": {"type": "comparison", "subquestions": [  # independent: the bridge entity is never found
        {"question": "What is the headquarters of Robert McElroy's magazine?", "each": False},
        {"question": "Where does Robert McElroy write for?", "each": False}]},
    "Connetquot": {"type": "comparison", "subquestions": [  # repeated: single after the parser
        {"question": "What city is Connetquot High School in?", "each": False},
        {"question": "What city is Connetquot High School in?", "each": False}]},
    "Battle of Manila": {"type": "comparison", "subquestions": [
        {"question": "When did the Battle of Manila occur?", "each": False},
        {"question": "When did the Battle of Guam occur?", "each": False}]},
    "Isabella": {"type": "bridging", "subquestions": [
        {"question": "Who created the Allegory of Isabella d'Este's Coronation?", "each": False},
        {"question": "Where did [ANS_1] die?", "each": False}]},
    "괴물": {"type": "bridging", "subquestions": [
        {"question": "영화 『괴물』의 감독은 누구인가요?", "each": False},
        {"question": "[ANS_1]의 고향은 어디인가요?", "each": False}]},
}


def _llm():
    def rule(request):
        last = request.messages[-1]["content"]
        return json.dumps(next(v for k, v in SPLITS.items() if k in last), ensure_ascii=False)

    return TrackedLLM(ScriptedLLM([(r"(?s).*", rule)]), retries=0)


def test_expected_shape():
    assert expected_shape("bridge") == expected_shape("compositional") == expected_shape("3hop1") == "chain"
    assert expected_shape("comparison") == expected_shape("bridge_comparison") == "compare"
    assert expected_shape("") is None and expected_shape("yesno") is None


def test_decompose_all_outcomes_with_the_real_decomposer():
    splits = decompose_all(ITEMS, QuestionDecomposer(_llm()), concurrency=2)
    by = {s.qid: s for s in splits}
    assert [s.qid for s in splits] == ["b1", "b2", "c1", "m1", "k1"]  # order kept, unlabelled skipped
    assert by["b1"].outcome == "independent" and not by["b1"].right
    assert by["b2"].outcome == "single" and by["b2"].duplicates == 1 and by["b2"].model_type == "comparison"
    assert by["c1"].outcome == "independent" and by["c1"].right
    assert by["m1"].outcome == "chained" and by["m1"].right and by["m1"].subquestions[1] == "Where did [ANS_1] die?"
    assert by["k1"].right and by["k1"].type == "bridging"
    assert all(s.tokens > 0 for s in splits)


def test_failed_call_is_a_failed_split():
    llm = TrackedLLM(ScriptedLLM([(r"(?s).*", lambda r: "no json here")]), retries=0)
    [s] = decompose_all(ITEMS[:1], QuestionDecomposer(llm, retries=0))
    assert s.outcome == "failed" and s.error and not s.right


def test_score_and_render():
    splits = [Split("a", "q", "chain", "chained", model_type="bridging"),
              Split("b", "q", "chain", "independent", model_type="comparison", duplicates=1),
              Split("c", "q", "compare", "independent", model_type="comparison"),
              Split("d", "q", "compare", "single", model_type="single")]
    r = score(splits)
    assert r["right_pct"] == 50.0
    assert r["shapes"]["chain"]["right_pct"] == 50.0 and r["shapes"]["chain"]["duplicates_pct"] == 50.0
    assert r["shapes"]["compare"]["single_pct"] == 50.0
    assert r["shapes"]["chain"]["model_types"] == {"bridging": 1, "comparison": 1}
    md = render(r, "t")
    assert "| chain | chained | 2 | 50.0 |" in md and "| compare | independent | 2 | 50.0 |" in md


def test_routed_decomposer_reports_the_router_and_prompts():
    import numpy as np

    from gaji.index.dense import EMBEDDER_FACTORIES, Embedder
    from gaji.methods.toq.router import ShapeRouter

    class Cue(Embedder):  # [1, 0] for "first, … or …" questions, [0, 1] otherwise
        model_id, dim = "test/bench-decomposer-cue", 2

        def embed_queries(self, texts):
            return np.array([[1.0, 0.0] if " or " in t else [0.0, 1.0] for t in texts])

    EMBEDDER_FACTORIES[Cue.model_id] = Cue
    router = ShapeRouter(np.array([4.0, -4.0]), 0.0, Cue.model_id)

    def rule(request):
        last = request.messages[-1]["content"]
        if "[ITEM]" in request.messages[0]["content"]:
            return json.dumps({"items": ["Battle of Manila", "Battle of Guam"], "question": "When did the [ITEM] occur?"})
        if "McElroy" in last:
            return json.dumps({"hidden": "the magazine that Robert McElroy writes for",
                               "first": "Which magazine does Robert McElroy write for?",
                               "then": "Where is the magazine that Robert McElroy writes for headquartered?"})
        return json.dumps({"hidden": "", "first": "x", "then": ""})

    llm = TrackedLLM(ScriptedLLM([(r"(?s).*", rule)]), retries=0)
    splits = decompose_all(ITEMS[:3], QuestionDecomposer(llm, router=router), concurrency=1)
    by = {s.qid: s for s in splits}
    assert by["b1"].outcome == "chained" and by["b1"].subquestions[1] == "Where is [ANS_1] headquartered?"
    assert by["b2"].outcome == "single" and by["b2"].prompt == "chain"
    assert by["c1"].right and by["c1"].route == "compare" and by["c1"].prompt == "compare"
    r = score(splits)
    assert r["shapes"]["chain"]["routed_right_pct"] == 100.0 and r["shapes"]["compare"]["prompts"] == {"compare": 1}
    assert "Shape router: chain questions routed to chain 100.0 %" in render(r, "t")
