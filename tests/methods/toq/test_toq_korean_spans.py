"""Korean trees: sub-answers fill [ANS_N] slots as spans (never the model's sentence), and a split that loses
the question's names (the bridge entity) is not kept."""
from __future__ import annotations

from toq_helpers import OverlapRetriever, make_ctx, question_of, relevant, routed_llm, scores

from gaji.methods.toq.decomposer import QuestionDecomposer, lost_names
from gaji.methods.toq.method import ToQ
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node

DOCS = [
    ("night", "푸른 밤", "영화 『푸른 밤』은 2019년 개봉했다. 이 영화에서 도윤 역은 한지호가 맡았다."),
    ("han", "한지호", "한지호는 대한민국의 배우이다. 한지호는 2008년 드라마 『학교 2』로 데뷔했다."),
]
Q = "영화 『푸른 밤』에서 도윤 역을 맡은 배우가 처음 출연한 드라마는 무엇인가요?"
SUB1 = "영화 『푸른 밤』에서 도윤 역을 맡은 배우는 누구인가요?"
SUB2 = "[ANS_1]이 처음 출연한 드라마는 무엇인가요?"
DROPPED = "배우로 처음 데뷔한 드라마는 무엇이었나요?"  # the split the 1.5B model wrote: no one is named


def handlers(subs):
    def answer(u):  # the responder writes sentences, as the 1.5B model does in Korean
        q = question_of(u)
        if q == SUB1:
            return "영화 『푸른 밤』에서 도윤 역을 맡은 배우는 한지호입니다."
        if q.startswith("한지호"):
            return "한지호가 처음 출연한 드라마는 '학교 2'입니다."
        return "그 드라마는 '학교 2'입니다."

    return {
        "decompose": lambda u: {"type": "bridging", "subquestions": [{"question": s, "each": False} for s in subs]},
        "query": lambda u: question_of(u).rstrip("?"),
        "integrate": lambda u: relevant("한지호") if "한지호" in u else relevant("2019년"),
        "answer": answer,
        "evaluate": lambda u: scores(True),
        "rewrite": lambda u: AssertionError("a span needs no rewrite"),
    }


def test_sub_answers_fill_slots_as_spans_and_the_root_answer_is_a_span():
    t = ToQ(k=2, evaluate_root=False).run(Q, make_ctx(routed_llm(handlers([SUB1, SUB2])), OverlapRetriever(DOCS)))
    first, second = t.root.children
    assert first.answer == "한지호" and first.data["explanation"].endswith("한지호입니다")
    assert second.filled_question == "한지호이 처음 출연한 드라마는 무엇인가요?"  # the span, not the sentence
    assert t.answer == "학교 2" and "학교 2" in t.explanation


def test_a_split_that_drops_the_bridge_entity_is_retried_then_not_kept():
    llm = routed_llm(handlers([DROPPED, "그 드라마의 방송사는?"]))
    t = ToQ(k=2, evaluate_root=False).run(Q, make_ctx(llm, OverlapRetriever(DOCS)))
    assert t.root.children == [] and t.root.stop.by == "single"
    assert "no name of the question" in t.root.data["rejected_split"]
    decompose_calls = [c for c in t.root.calls if c.purpose == "decompose"]
    assert len(decompose_calls) == 2 and not decompose_calls[0].ok  # asked again before giving up
    assert any(f.label == "분해 거부" for f in t.root.display)


def test_lost_names_checks_every_sub_question_and_every_name():
    assert lost_names([SUB1, SUB2], Q, "ko") == ""
    assert "sub-question 1" in lost_names([DROPPED], Q, "ko")
    # a name kept nowhere: the role (도윤) was dropped although each sub-question names something
    assert "도윤" in lost_names(["영화 『푸른 밤』의 주연 배우는 누구인가요?", SUB2], Q, "ko")
    q = "Who was born first, Park Chan-wook or Bong Joon-ho?"
    assert lost_names(["When was Park Chan-wook born?", "When was Bong Joon-ho born?"], q, "en") == ""
    assert lost_names(["When was he born?", "When was Bong Joon-ho born?"], q, "en") != ""
    assert lost_names(["a", "b"], "what is love?", "en") == ""  # nothing named: nothing to check


def test_a_name_of_the_hidden_thing_is_carried_by_the_slot_when_the_first_hop_keeps_another():
    q = "In which year was the King who made the 1925 Birthday Honours born?"
    hidden = "the King who made the 1925 Birthday Honours"
    subs = ["Who made the 1925 Birthday Honours?", "In which year was [ANS_1] born?"]
    assert "King" in lost_names(subs, q, "en") and lost_names(subs, q, "en", carried=hidden) == ""
    # a name outside the hidden thing is still a dropped constraint, and a first hop that keeps none of the hidden
    # thing's names does not carry them
    q2 = "What retailer in ABQ Uptown is headquartered in Poole, Dorset?"
    assert "Poole" in lost_names(["Which retailer is in ABQ Uptown?", "Where is [ANS_1] headquartered?"], q2, "en",
                                 carried="retailer in ABQ Uptown")
    assert lost_names(["Who made the honours?", "In which year was [ANS_1] born?"], q, "en", carried=hidden) != ""


def test_paper_decomposer_falls_back_to_single_with_the_reason():
    h = handlers([DROPPED, "그 드라마의 방송사는?"])
    node = Node(question=Q)
    d = QuestionDecomposer(TrackedLLM(routed_llm(h), backoff_s=0)).decompose(node, Q, "ko")
    assert d.is_single and d.rejected.startswith("sub-question 1")
