"""auto's cascade: the cheap answer, its signals, the safety model's decision, the escalation and what the trace
shows (scripted LLM: control flow, not quality)."""
from __future__ import annotations

import itertools
import json

import pytest

from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.method import Auto
from gaji.methods.safety import SafetyModel, shared_safety
from gaji.methods.signals import SIGNALS, answer_signals, grounded, kind_mismatch, names_found
from gaji.methods.base import RunContext
from gaji.testing import ListRetriever, any_llm
from gaji.types import Passage, Trace

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
]
COMPARE = "Which battle came first, the Battle of Manila or the Battle of Guam?"
BRIDGE = "When was the battle fought that ended on 10 August 1944?"


def ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)


def safety_file(tmp_path, weight: float = 10.0, escalate=None, signal: str = "grounded") -> str:
    """A model whose P(right) follows one signal: above 0.5 exactly when the signal is above 0.5."""
    m = SafetyModel((signal,), [0.0], [1.0], [weight], -weight / 2, {"low": 0.2, "medium": 0.5, "high": 0.8},
                    escalate or {"compare": "tree", "other": "chain"})
    path = tmp_path / "safety.json"
    m.save(path)
    return str(path)


def answering(first: str, then: str | None = None) -> ScriptedLLM:
    """The one retrieval's reader says `first`; every later plain call `then` (default: any_llm's replies)."""
    base = any_llm()
    count = itertools.count()

    def reply(req):
        if req.json_schema is None and next(count) == 0:
            return first
        if then is not None and req.json_schema is None:
            return then
        return base.default(req)

    return ScriptedLLM(default=reply)


def test_a_grounded_answer_stands_after_one_call(tmp_path):
    llm = answering("Battle of Guam")
    llm.token_logprob = -0.05
    t = Auto(safety=safety_file(tmp_path), compare=False).run(COMPARE, ctx(llm))  # the look-up: test_compare.py
    c = t.root.data["cascade"]
    assert c["decision"] == "stand" and c["p_right"] > 0.5 and c["to"] is None
    assert len(t.calls()) == 1 and not t.root.children and t.answer == "Battle of Guam"
    assert t.root.calls[0].confidence["mean"] == pytest.approx(-0.05) and c["signals"]["no_logprobs"] == 0.0
    assert t.root.stop.stop and t.root.stop.by == "cascade"
    shown = {f.label: f.text for f in t.root.display}
    assert shown["cascade"] == "answered with one retrieval"
    assert shown["confidence"].startswith("P(right) 0.") and "effort medium" in shown["confidence"]
    assert "the answer stands" in shown["confidence"] and "answer found in a passage +" in shown["confidence"]
    assert Trace.from_json(t.to_json()).root.data["cascade"] == c  # JSON for the CLI, the API and the page


def test_an_ungrounded_comparison_escalates_to_the_tree_reusing_the_search(tmp_path):
    t = Auto(safety=safety_file(tmp_path), compare=False).run(COMPARE, ctx(answering("Midway")))
    c = t.root.data["cascade"]
    assert c["decision"] == "escalate" and c["shape"] == "compare" and c["to"] == "tree"
    (sub,) = t.root.children
    assert sub.kind == "route" and sub.data["routed_to"] == "toq"
    assert t.answer == sub.answer and t.answer != "Midway"
    assert not t.root.stop.stop and "escalated to the tree" in t.root.stop.reason
    # the tree's first look at the whole question is the search the cheap attempt already made
    assert any(n.data.get("search_memo") for n in sub.walk())
    assert c["signals"]["no_logprobs"] == 1.0 and "no log-probabilities" in t.root.stop.reason


def test_other_shapes_escalate_where_the_file_says_and_korean_reads_korean(tmp_path):
    # (the bridge split is off: these tests are about the escalation it would come before)
    t = Auto(safety=safety_file(tmp_path), bridge="off").run(BRIDGE, ctx(answering("Midway")))
    assert t.root.data["cascade"]["to"] == "chain" and t.root.children[0].data["routed_to"] == "ircot"
    k = Auto(safety=safety_file(tmp_path)).run("괌 전투는 언제 끝났나요?", ctx(answering("미드웨이")))
    shown = {f.label: f.text for f in k.root.display}
    assert shown["단계"] == "더 찾아봄" and shown["확신도"].startswith("맞을 확률 0.") and "연쇄 검색(으)로 확대" in shown["확신도"]


def test_the_cheap_answer_stands_when_the_escalation_finds_nothing(tmp_path):
    t = Auto(safety=safety_file(tmp_path)).run(BRIDGE, ctx(answering("Midway", then="unknown")))
    c = t.root.data["cascade"]
    assert c["decision"] == "escalate" and c["kept_cheap"] and t.answer == "Midway"
    assert "escalation found nothing: first answer kept" in [f.text for f in t.root.display if f.label == "confidence"][0]


def test_an_answer_that_still_says_the_question_back_never_stands(tmp_path):
    # P(right) follows "unknown" only, so it is high for any answer that does not say "unknown"
    m = SafetyModel(("unknown",), [0.0], [1.0], [-10.0], 5.0, {"low": 0.2, "medium": 0.5, "high": 0.8},
                    {"compare": "tree", "other": "chain"})
    m.save(tmp_path / "s.json")
    said_back = "Which battle came first, the Battle of Manila or the Battle of Guam"
    t = Auto(safety=str(tmp_path / "s.json"), compare=False).run(COMPARE, ctx(answering(said_back, then=said_back)))
    c = t.root.data["cascade"]
    assert c["p_right"] > 0.9 and c["restated"] and c["decision"] == "escalate" and c["to"] == "tree"
    assert t.root.calls[1].purpose == "reask"  # the one retrieval's reader was asked once more first
    shown = [f.text for f in t.root.display if f.label == "confidence"][0]
    assert shown.startswith("the answer only says the question back, so it cannot stand: escalated to the tree")


def test_an_answer_that_is_still_only_a_name_the_question_gives_never_stands(tmp_path):
    m = SafetyModel(("unknown",), [0.0], [1.0], [-10.0], 5.0, {"low": 0.2, "medium": 0.5, "high": 0.8},
                    {"compare": "tree", "other": "chain"})
    m.save(tmp_path / "s.json")
    t = Auto(safety=str(tmp_path / "s.json"), bridge="off").run(BRIDGE, ctx(answering("10 August 1944",
                                                                                       then="10 August 1944")))
    c = t.root.data["cascade"]
    assert c["p_right"] > 0.9 and c["echoed"] and not c.get("restated") and c["decision"] == "escalate"
    assert c["to"] == "chain" and t.root.calls[1].purpose == "reask"
    shown = [f.text for f in t.root.display if f.label == "confidence"][0]
    assert shown.startswith("the answer is only something the question itself names, so it cannot stand")
    k = Auto(safety=str(tmp_path / "s.json"), bridge="off").run(
        "괌 전투에서 싸운 프랑스 장군이 태어난 도시는?", ctx(answering("프랑스", then="프랑스")))
    shown = {f.label: f.text for f in k.root.display}
    assert k.root.data["cascade"]["echoed"] and shown["확신도"].startswith("답이 질문에 이미 나온 말일 뿐이라")
    # a name the question offers as a choice is an answer, not an echo
    n = Auto(safety=str(tmp_path / "s.json"), compare=False).run(COMPARE, ctx(answering("Battle of Guam")))
    assert n.root.data["cascade"]["decision"] == "stand" and not n.root.data["cascade"].get("echoed")


def test_effort_moves_the_threshold(tmp_path):
    path = safety_file(tmp_path, weight=1.0)  # P(right) of an ungrounded answer: 1/(1+e^0.5) = 0.38
    # the comparison by values is off: its reader would pick one of the two battles (test_compare.py)
    assert Auto(safety=path, effort="low", compare=False).run(COMPARE, ctx(answering("Midway"))) \
        .root.data["cascade"]["decision"] == "stand"
    assert Auto(safety=path, effort="high", compare=False).run(COMPARE, ctx(answering("Midway"))) \
        .root.data["cascade"]["decision"] == "escalate"


def test_a_forced_route_skips_the_cascade(tmp_path):
    t = Auto(route="one", safety=safety_file(tmp_path)).run(COMPARE, ctx(answering("Battle of Midway")))
    assert "cascade" not in t.root.data and len(t.calls()) == 1


def test_bad_effort_and_safety_files_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="option effort of method 'auto' must be one of low, medium, high"):
        Auto.parse_options({"effort": "max"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "gaji-auto-cascade/1", "signals": ["grounded", "vibes"], "mean": [0, 0],
                               "scale": [1, 1], "weights": [1, 1], "bias": 0, "thresholds": {"low": 0.1}}))
    with pytest.raises(ConfigError, match=r"option safety of method 'auto'.*unknown signal\(s\) \['vibes'\]"):
        Auto.parse_options({"safety": str(bad)})
    bad.write_text(bad.read_text().replace('"vibes"', '"unknown"'))
    with pytest.raises(ConfigError, match=r"thresholds' has no value for effort\(s\) \['medium', 'high'\]"):
        Auto.parse_options({"safety": str(bad)})


def test_the_shipped_safety_model_loads_and_reads_every_signal_it_names():
    m = shared_safety()
    assert set(m.signals) <= set(SIGNALS) and m.thresholds["low"] <= m.thresholds["high"]
    assert m.meta["trained_on"] and m.meta["held_out"]["auc_held_out"] > 0.5
    assert 0.0 <= m.p_right({s: 0.0 for s in SIGNALS}) <= 1.0


def p(text: str, title: str = "", score: float = 0.0) -> Passage:
    return Passage(id=title or text[:8], doc_id=title or text[:8], text=text, title=title, score=score)


def test_signals_in_both_languages():
    ps = [p("훈민정음은 1446년에 반포되었다.", "훈민정음", 2.0), p("세종은 조선의 임금이다.", "세종", 1.0)]
    assert grounded("1446년", ps) == 1.0 and grounded("1443년", ps) < 1.0
    assert names_found("훈민정음은 몇 년에 반포되었나요?", ps, "ko") == 1.0
    assert kind_mismatch("훈민정음은 몇 년에 반포되었나요?", "세종", "ko") == 1.0
    assert kind_mismatch("훈민정음은 몇 년에 반포되었나요?", "1446년", "ko") == 0.0
    assert kind_mismatch("Who founded it?", "1945", "en") == 1.0
    s = answer_signals("훈민정음은 몇 년에 반포되었나요?", "1446년", [], ps, "ko")
    assert list(s) == list(SIGNALS) and s["ko"] == 1.0 and s["score_gap"] == 0.5 and s["unknown"] == 0.0
    assert answer_signals("When?", "unknown", [], ps, "en")["unknown"] == 1.0


def test_the_shape_picks_where_an_unsafe_answer_escalates():
    from gaji.methods.auto.features import shape_of
    from gaji.methods.safety import DEFAULT_ESCALATE

    assert shape_of("Who was born first, Park Chan-wook or Bong Joon-ho?") == "compare"
    assert shape_of("명성황후의 후원으로 돈령부 도정에 올랐고, 고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?") \
        == "intersection"
    assert shape_of("When was the director of Jaws born?") == "other"
    assert DEFAULT_ESCALATE == {"compare": "tree", "intersection": "tree", "other": "chain"}


def test_a_language_may_have_its_own_thresholds(tmp_path):
    m = SafetyModel(("grounded",), [0.0], [1.0], [1.0], 0.0, {"low": 0.1, "medium": 0.2, "high": 0.3},
                    thresholds_by_lang={"ko": {"low": 0.4, "medium": 0.5, "high": 0.6}})
    assert m.threshold("medium", "ko") == 0.5 and m.threshold("medium", "en") == 0.2 and m.threshold("high") == 0.3
    path = tmp_path / "s.json"
    m.save(path)
    assert SafetyModel.load(path).thresholds_by_lang == m.thresholds_by_lang
    k = Auto(safety=str(path)).run("괌 전투는 언제 끝났나요?", ctx(answering("1944년 8월 10일")))
    assert k.root.data["cascade"]["threshold"] == 0.5


class Clock:
    """A run's time left that each LLM call uses up (`per_call` seconds), as a server request's limit would."""

    def __init__(self, left: float, per_call: float):
        self.left, self.per_call = left, per_call

    def __call__(self) -> float:
        return self.left

    def llm(self, inner: ScriptedLLM) -> ScriptedLLM:
        reply = inner.default

        def timed(req):
            self.left -= self.per_call
            return reply(req)

        inner.default = timed
        return inner


def timed(tmp_path, question: str, reply: str, left: float, per_call: float) -> tuple[Trace, Clock]:
    """auto on `question` under a time limit of `left` seconds that each call uses `per_call` of (the comparison
    by values off: the escalation is what is timed)."""
    clock = Clock(left, per_call)
    c = ctx(clock.llm(answering(reply)))
    c.time_left = clock
    return Auto(safety=safety_file(tmp_path), compare=False).run(question, c), clock


def test_an_escalation_stops_short_of_the_time_limit_and_the_cheap_answer_is_returned(tmp_path):
    t, clock = timed(tmp_path, COMPARE, "Midway", left=100.0, per_call=30.0)
    cas = t.root.data["cascade"]
    assert cas["decision"] == "escalate" and cas["out_of_time"] and cas["kept_cheap"]
    assert t.answer == "Midway" and t.status == "ok"
    assert 2 <= len(t.calls()) <= 4  # the cheap call, then the tree until less than the reserve was left
    assert clock.left > -30.0  # no call started with less than the reserve left
    assert "time limit near: first answer kept" in t.root.stop.reason
    assert not any(n.status == "running" for n in t.root.walk())
    k = ctx(Clock(100.0, 30.0).llm(answering("미드웨이")))
    # no limit: the same Korean question escalates and finishes
    assert "out_of_time" not in Auto(safety=safety_file(tmp_path)).run("괌 전투는 언제 끝났나요?", k).root.data["cascade"]


def test_no_escalation_starts_without_room_for_it(tmp_path):
    t, _ = timed(tmp_path, BRIDGE, "Midway", left=6.0, per_call=1.0)
    cas = t.root.data["cascade"]
    assert cas["decision"] == "escalate" and cas["out_of_time"] and not t.root.children
    assert len(t.calls()) == 1 and t.answer == "Midway"
    k, _ = timed(tmp_path, "괌 전투는 언제 끝났나요?", "미드웨이", left=6.0, per_call=1.0)
    shown = {f.label: f.text for f in k.root.display}
    assert "시간 제한이 가까워 첫 답 유지" in shown["확신도"]


def test_the_budget_scales_with_what_the_cheap_call_took():
    from gaji.methods.auto.method import RESERVE_CALLS, RESERVE_MIN_S, START_CALLS, EscalationBudget, OutOfTime
    from gaji.types import LLMCall, Node

    root = Node(question="q")
    root.calls.append(LLMCall(model="m", purpose="answer", wall_ms=20_000.0))
    left = [200.0]
    c = RunContext(llm=None, time_left=lambda: left[0])
    b = EscalationBudget.of(c, root)
    assert b.reserve_s == RESERVE_MIN_S + RESERVE_CALLS * 20 and b.start_s == b.reserve_s + START_CALLS * 20
    assert b.can_start()
    left[0] = b.reserve_s - 1
    with pytest.raises(OutOfTime):
        b.check()
    assert EscalationBudget.of(RunContext(llm=None), root) is None  # no limit, no budget


def start_file(tmp_path, start, escalate=None) -> str:
    m = SafetyModel(("grounded",), [0.0], [1.0], [10.0], -5.0, {"low": 0.2, "medium": 0.5, "high": 0.8},
                    escalate or {"compare": "tree", "other": "steps"}, start=start)
    path = tmp_path / "start.json"
    m.save(path)
    return str(path)


def test_a_shape_the_model_starts_deeper_skips_the_one_retrieval_in_its_language(tmp_path):
    path = start_file(tmp_path, {"en": {"compare": "steps"}})
    assert SafetyModel.load(path).start == {"en": {"compare": "steps"}}
    t = Auto(safety=path).run(COMPARE, ctx(answering("Battle of Guam")))
    c = t.root.data["cascade"]
    assert c["decision"] == "start" and c["to"] == "steps" and c["shape"] == "compare"
    assert t.root.data["route_method"]["method"] == "chain" and t.root.data["route_method"]["options"]["max_length"] == 6
    assert t.answer and not any(call.purpose == "answer" and call.confidence for call in t.calls())
    assert all(n.data["routed_to"] == "chain" for n in t.root.walk())
    shown = {f.label: f.text for f in t.root.display}
    assert shown["cascade"] == "started deeper" and shown["confidence"] == "a comparison: started on the step chain (effort medium)"
    # effort low, and another language, start with one retrieval
    low = Auto(safety=path, effort="low").run(COMPARE, ctx(answering("Battle of Guam")))
    assert low.root.data["cascade"]["decision"] in ("stand", "escalate") and low.root.calls
    ko = Auto(safety=path).run("괌 전투와 마닐라 전투 중 어느 것이 먼저 일어났나?", ctx(answering("괌 전투")))
    assert ko.root.data["cascade"]["decision"] != "start"


def test_an_unsafe_bridge_can_escalate_to_the_step_chain(tmp_path):
    t = Auto(safety=start_file(tmp_path, {}), bridge="off").run(BRIDGE, ctx(answering("Midway")))
    c = t.root.data["cascade"]
    assert c["decision"] == "escalate" and c["to"] == "steps"
    (sub,) = t.root.children
    assert sub.data["routed_to"] == "chain" and "escalated to the step chain" in t.root.stop.reason
    assert Auto(route="steps").run(BRIDGE, ctx(answering("Midway"))).root.data["route_method"]["method"] == "chain"


def test_a_bad_start_or_escalation_route_is_a_clear_error(tmp_path):
    path = start_file(tmp_path, {"en": {"compare": "forest"}})
    with pytest.raises(ConfigError, match=r"field 'start' .*not \{'en.compare': 'forest'\}"):
        SafetyModel.load(path)
    path = start_file(tmp_path, {}, escalate={"other": "walk"})
    with pytest.raises(ConfigError, match=r"field 'escalate' .*steps, chain, tree, not \{'other': 'walk'\}"):
        SafetyModel.load(path)


def test_a_language_may_escalate_a_shape_elsewhere(tmp_path):
    m = SafetyModel(("grounded",), [0.0], [1.0], [10.0], -5.0, {"low": 0.2, "medium": 0.5, "high": 0.8},
                    {"compare": "tree", "other": "chain"}, escalate_by_lang={"ko": {"other": "steps"}})
    assert m.escalation("other", "ko") == "steps" and m.escalation("other", "en") == "chain"
    path = tmp_path / "lang.json"
    m.save(path)
    assert SafetyModel.load(path).escalate_by_lang == {"ko": {"other": "steps"}}
    k = Auto(safety=str(path)).run("괌 전투는 언제 끝났나요?", ctx(answering("미드웨이")))
    assert k.root.data["cascade"]["to"] == "steps" and k.root.children[0].data["routed_to"] == "chain"
    e = Auto(safety=str(path), bridge="off").run(BRIDGE, ctx(answering("Midway")))
    assert e.root.data["cascade"]["to"] == "chain" and e.root.children[0].data["routed_to"] == "ircot"
