"""Chain (paper 003) control flow: max length, call budget, classifier and evaluator stops, the final
answer retrieved with Q, closed-book sub-answers, Korean prompts."""
import json

import pytest

from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.chain import Chain, first_line, format_history
from gaji.testing import ListRetriever

DOCS = [
    ("lg", "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides."),
    ("mr", "Mack Rides", "Mack Rides is a German manufacturer based in Waldkirch."),
    ("x", "Other", "Unrelated text about cooking."),
]
Q = "Which country is the manufacturer of Lost Gravity from?"


def scripted(subqs, subanswers, final="Germany", judge=None):
    """Replies by purpose: sub-questions, sub-answers and the evaluator from lists; the final answer fixed."""
    sq, sa, jd = iter(subqs), iter(subanswers), iter(judge or [])

    def reply(req):
        system = req.messages[0]["content"]
        if "sub-questions that a search engine" in system or "하위 질문으로" in system:
            return next(sq)
        if req.json_schema is not None:
            return json.dumps(next(jd))
        if "complex question using the sub-questions" in system or "이미 답한 하위 질문" in system:
            return final
        return next(sa)

    return ScriptedLLM(default=reply)


def run(llm, question=Q, retriever="docs", **opts):
    r = ListRetriever(DOCS) if retriever == "docs" else retriever
    m = Chain(**opts)
    t = m.run(question, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=r))
    return t, r


@pytest.fixture
def trained(tmp_path, monkeypatch):
    """trained(model) -> the directory to pass as -o classifier=: a classifier directory that loads `model`."""
    def install(model):
        (tmp_path / "classifier.json").write_text("{}")
        monkeypatch.setattr("gaji.methods.chain_stop.load_classifier_cached", lambda path: model)
        return str(tmp_path)
    return install


class FakeClassifier:
    """P(sufficient) from the number of steps: sufficient from step `at` on."""

    def __init__(self, at):
        self.at = at
        self.seen = []

    def prob_sufficient(self, question, history):
        self.seen.append((question, list(history)))
        return 0.9 if len(history) >= self.at else 0.1


def test_runs_max_length_steps_then_answers_with_q_retrieval():
    llm = scripted([f"Sub-question: q{i}?" for i in range(1, 7)], [f"a{i}" for i in range(1, 7)])
    t, r = run(llm, max_length=6, k=2)
    assert t.status == "ok", t.error
    steps = t.root.children
    assert [s.kind for s in steps] == ["step"] * 6
    assert [s.question for s in steps] == [f"q{i}?" for i in range(1, 7)]
    assert [s.answer for s in steps] == [f"a{i}" for i in range(1, 7)]
    # each sub-question is the query of its step; the last retrieval is the question itself (Algorithm 1)
    assert r.queries == [f"q{i}?" for i in range(1, 7)] + [Q]
    assert t.root.query == Q and len(t.root.passage_ids) == 2
    assert t.answer == "Germany" and t.root.data["stop_reason"] == "max_length" and t.root.data["steps"] == 6
    assert t.usage().calls == 13  # 6 x (sub-question + sub-answer) + final answer
    # the sub-question prompt carries the chain so far; the final prompt carries all of it and D(Q)
    subq_prompts = [q.messages[1]["content"] for q in llm.requests if "search engine can answer" in q.messages[0]["content"]]
    assert "(none yet)" in subq_prompts[0]
    assert "1. Sub-question: q1?\n   Answer: a1" in subq_prompts[1]
    final = llm.requests[-1].messages[1]["content"]
    assert "6. Sub-question: q6?\n   Answer: a6" in final and "Lost Gravity" in final and final.endswith("Final answer:")


def test_length_one():
    llm = scripted(["Who built Lost Gravity?"], ["Mack Rides"])
    t, r = run(llm, max_length=1)
    assert len(t.root.children) == 1 and t.usage().calls == 3
    assert r.queries == ["Who built Lost Gravity?", Q]


def test_call_budget_stops_the_chain_and_keeps_the_final_answer():
    llm = scripted([f"q{i}?" for i in range(1, 7)], [f"a{i}" for i in range(1, 7)])
    t, _ = run(llm, max_length=6, max_calls=5)
    assert len(t.root.children) == 2  # 2 steps x 2 calls + 1 final answer = 5
    assert t.usage().calls == 5 and t.root.data["stop_reason"] == "max_calls"
    assert t.answer == "Germany"


def test_stop_on_repeat_ends_the_chain_when_a_sub_question_comes_again():
    subqs = ["Who built Lost Gravity?", "Where is Mack Rides from?", "  where is MACK RIDES from ？", "never asked?"]
    llm = scripted(subqs, ["Mack Rides", "Germany", "never answered"])
    t, r = run(llm, max_length=6, stop_on_repeat=True)
    assert t.status == "ok", t.error
    assert t.root.data["stop_reason"] == "repeat" and t.root.data["steps"] == 2
    assert [s.answer for s in t.root.children] == ["Mack Rides", "Germany", ""]  # the repeat is not answered
    assert t.root.children[2].data["repeat_of"] == 2
    assert r.queries == subqs[:2] + [Q]  # nor searched
    assert t.usage().calls == 3 + 2 + 1  # three sub-questions, two sub-answers, the final answer
    assert "3. Sub-question" not in llm.requests[-1].messages[1]["content"]


def test_repeats_run_on_without_stop_on_repeat():
    llm = scripted(["q1?"] * 3, ["a1"] * 3)
    t, _ = run(llm, max_length=3)
    assert t.root.data["steps"] == 3 and t.root.data["stop_reason"] == "max_length"


def test_same_question_key_and_repeat_of():
    from gaji.methods.chain import repeat_of

    history = [("로스트 그래비티는 누가 만들었나?", "맥 라이드"), ("Where is Mack Rides from?", "Germany")]
    assert repeat_of("로스트  그래비티는 누가 만들었나", history) == 1
    assert repeat_of("where is mack rides from.", history) == 2
    assert repeat_of("Where is Mack Rides based?", history) is None


def test_classifier_stop_ends_the_chain_at_the_first_sufficient_step(trained):
    clf = FakeClassifier(at=2)
    llm = scripted(["Who built Lost Gravity?", "Where is Mack Rides from?", "never asked?"], ["Mack Rides", "Germany"])
    t, r = run(llm, stop="classifier", classifier=trained(clf), max_length=6)
    assert [s.question for s in t.root.children] == ["Who built Lost Gravity?", "Where is Mack Rides from?"]
    assert t.root.data["stop_reason"] == "classifier_sufficient"
    assert [s.stop.stop for s in t.root.children] == [False, True]
    assert t.root.children[1].stop.score == 0.9
    assert clf.seen[1] == (Q, [("Who built Lost Gravity?", "Mack Rides"), ("Where is Mack Rides from?", "Germany")])
    assert r.queries[-1] == Q and t.usage().calls == 5


def test_classifier_threshold_and_no_early_stop(trained):
    clf = FakeClassifier(at=1)
    llm = scripted(["q1?", "q2?", "q3?"], ["a1", "a2", "a3"])
    t, _ = run(llm, stop="classifier", classifier=trained(clf), threshold=0.95, max_length=3)
    assert len(t.root.children) == 3 and t.root.data["stop_reason"] == "max_length"


def test_evaluator_stop_uses_the_toq_judge():
    judge = [
        {"asks_for": "x", "response_gives": "y", "semantic_coherence": 4, "answerability": 20, "response_validity": False},
        {"asks_for": "x", "response_gives": "y", "semantic_coherence": 9, "answerability": 90, "response_validity": True},
    ]
    llm = scripted(["Who built Lost Gravity?", "Where is Mack Rides from?"], ["Mack Rides", "Germany"], judge=judge)
    t, _ = run(llm, stop="evaluator", max_length=6)
    steps = t.root.children
    assert len(steps) == 2 and t.root.data["stop_reason"] == "evaluator_sufficient"
    assert [c.purpose for c in steps[1].calls] == ["sub_question", "sub_answer", "evaluate"]
    assert steps[1].scores["answerability"] == 90 and steps[1].stop.stop is True
    # the judged response is the chain so far
    ev = [q for q in llm.requests if q.json_schema is not None][1]
    assert "Where is Mack Rides from?" in ev.messages[-1]["content"]
    assert t.usage().calls == 7


def test_evaluator_counts_in_the_call_budget():
    judge = [{"asks_for": "x", "response_gives": "y", "semantic_coherence": 1, "answerability": 0, "response_validity": False}] * 6
    llm = scripted([f"q{i}?" for i in range(6)], [f"a{i}" for i in range(6)], judge=judge)
    t, _ = run(llm, stop="evaluator", max_calls=7)
    assert len(t.root.children) == 2 and t.usage().calls == 7


def test_closed_book_without_retriever():
    llm = scripted(["Who built Lost Gravity?"], ["Mack Rides"])
    t, _ = run(llm, retriever=None, max_length=1)
    assert t.status == "ok" and t.root.data["closed_book"] is True
    assert t.root.children[0].passage_ids == [] and t.root.passage_ids == []
    sub = [q for q in llm.requests if "own knowledge" in q.messages[0]["content"]]
    assert len(sub) == 1 and "<documents>" not in sub[0].messages[1]["content"]
    assert "<documents>" not in llm.requests[-1].messages[1]["content"]


def test_korean_prompts_follow_the_question():
    llm = scripted(["하위 질문: 로스트 그래비티는 누가 만들었나?"], ["맥 라이드"], final="독일")
    t, _ = run(llm, question="로스트 그래비티 제조사는 어느 나라 회사인가?", max_length=1)
    assert t.lang == "ko" and t.answer == "독일"
    assert t.root.children[0].question == "로스트 그래비티는 누가 만들었나?"
    assert "주 질문:" in llm.requests[0].messages[1]["content"]
    assert llm.requests[-1].messages[1]["content"].endswith("최종 답:")


def test_empty_sub_question_falls_back_to_the_question():
    llm = scripted(["   \n"], ["x"])
    t, r = run(llm, max_length=1)
    assert t.root.children[0].question == Q and r.queries[0] == Q


def test_failed_call_marks_the_step_and_the_trace():
    llm = ScriptedLLM(default=RuntimeError("backend down"))
    t, _ = run(llm, max_length=2)
    assert t.status == "failed" and "backend down" in t.error
    assert t.root.children[0].status == "failed" and len(t.root.children) == 1


def test_helpers():
    assert first_line("Sub-question: Who is X?\nmore", ("sub-question",)) == "Who is X?"
    assert first_line("1. Who is X?", ("sub-question",)) == "Who is X?"
    assert first_line("\n\n**Answer:** Paris", ("answer",)) == "Paris"
    assert first_line("Answering machines", ("answer",)) == "Answering machines"
    assert format_history([], "en") == "(none yet)"
    assert format_history([("a?", "b")], "ko") == "1. 하위 질문: a?\n   답: b"


def test_bad_options(tmp_path):
    with pytest.raises(ConfigError):
        Chain.parse_options({"nope": "1"})
    # checked when the method is made, so `gaji eval`/`gaji bench run` fail before any question
    with pytest.raises(ConfigError, match="stop must be one of"):
        Chain(stop="sometimes")
    with pytest.raises(ConfigError, match="at least 1"):
        Chain(max_length=0)
    with pytest.raises(ConfigError, match="classifier=DIR"):
        Chain(stop="classifier")
    with pytest.raises(ConfigError, match="no classifier.json"):
        Chain(stop="classifier", classifier=str(tmp_path / "missing"))
