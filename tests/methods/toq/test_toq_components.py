"""Each ToQ component against a ScriptedLLM: prompts, JSON handling, validation, retries."""
import pytest
from toq_helpers import IRRELEVANT, component, relevant, routed_llm, scores

from gaji.errors import LLMError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.toq.prompts import PROMPTS
from gaji.methods.toq.decomposer import QuestionDecomposer, asked_kind, asked_thing, parse_decomposition
from gaji.methods.toq.evaluator import QueryEvaluator, overall_score
from gaji.methods.toq.integrator import AnswerIntegrator
from gaji.methods.toq.query_generator import QueryGenerator, clean_query
from gaji.methods.toq.responder import ResponseGenerator
from gaji.types import Node, Passage

P = [
    Passage(id="bmw", doc_id="bmw", title="BMW i5", text="The BMW i5 sells for 98 to 120 million won."),
    Passage(id="luck", doc_id="luck", title="Symbols of luck", text="Four-leaf clovers bring luck."),
]


def tracked(llm):
    return TrackedLLM(llm, backoff_s=0)


# -- prompts -----------------------------------------------------------------------------------
def test_both_languages_define_every_prompt_and_exemplars_cover_all_types():
    import json

    for _, p in PROMPTS.items():
        types = {json.loads(a)["type"] for _, a in p.decompose.shots}
        assert types == {"single", "bridging", "intersection", "comparison", "hybrid"}
        assert any("[ANS_1]" in s["question"] for _, a in p.decompose.shots for s in json.loads(a)["subquestions"])
    assert PROMPTS["ko"] is PROMPTS.ko and PROMPTS["en"] is PROMPTS.en
    assert PROMPTS["auto"] is PROMPTS.en


def test_prompt_prefix_is_identical_across_calls():
    q = QueryGenerator(tracked(ScriptedLLM(default="x")))
    a, b = q.messages("first question?", "en"), q.messages("another one?", "en")
    assert a[:-1] == b[:-1] and a[-1] != b[-1]
    assert a[0]["role"] == "system" and a[-1]["role"] == "user"


# -- decomposer --------------------------------------------------------------------------------
def _decomp_llm(*replies):
    it = iter(replies)
    return routed_llm({"decompose": lambda u: next(it)})


def test_decomposer_bridging_with_dependencies():
    llm = _decomp_llm({"type": "bridging", "subquestions": [
        {"question": "What is the price of the BMW i5?", "each": False},
        {"question": "Which electric cars cost [ANS_1]?", "each": False}]})
    node = Node(question="q")
    d = QuestionDecomposer(tracked(llm)).decompose(node, "Recommend an EV priced like the BMW i5", "en")
    assert d.type == "bridging" and not d.is_single
    assert [s.depends_on for s in d.subquestions] == [[], [0]]
    assert d.waves == [[0], [1]]
    assert node.calls[0].purpose == "decompose"
    # schema-constrained: the request carries the JSON schema with the max_children bound
    assert llm.requests[0].json_schema["properties"]["subquestions"]["maxItems"] == 4


def test_decomposer_invalid_dependencies_retry_then_fail():
    bad = {"type": "bridging", "subquestions": [{"question": "a [ANS_2]", "each": False},
                                                 {"question": "b [ANS_1]", "each": False}]}
    good = {"type": "comparison", "subquestions": [{"question": "a", "each": False}, {"question": "b", "each": False}]}
    node = Node()
    d = QuestionDecomposer(tracked(_decomp_llm(bad, good))).decompose(node, "q", "en")
    assert d.type == "comparison" and d.waves == [[0, 1]]
    assert not node.calls[0].ok and "cycle" in node.calls[0].error
    node = Node()
    with pytest.raises(LLMError, match="invalid"):
        QuestionDecomposer(tracked(_decomp_llm(bad, bad)), retries=1).decompose(node, "q", "en")
    assert len(node.calls) == 2


def test_decomposer_out_of_range_reference_is_invalid():
    with pytest.raises(ValueError, match="only 2"):
        parse_decomposition({"type": "bridging", "subquestions": [
            {"question": "a", "each": False}, {"question": "b [ANS_5]", "each": False}]}, "q", 4)


def test_decomposer_single_and_truncation():
    d = parse_decomposition({"type": "single", "subquestions": [{"question": "Who wrote X?", "each": False}]},
                            "Who wrote X?", 4)
    assert d.is_single
    # a "decomposition" that repeats the question is single too
    d = parse_decomposition({"type": "bridging", "subquestions": [{"question": "Who wrote X", "each": False},
                                                                   {"question": "who wrote x?", "each": False}]},
                            "Who wrote X?", 4)
    assert d.is_single
    d = parse_decomposition({"type": "comparison", "subquestions": [
        {"question": f"q{i}", "each": False} for i in range(6)]}, "q", 3)
    assert len(d.subquestions) == 3


def test_decomposer_drops_repeated_subquestions_and_renumbers_slots():
    d = parse_decomposition({"type": "comparison", "subquestions": [
        {"question": "Which magazine does Robert McElroy write for?", "each": False},
        {"question": "which magazine does Robert McElroy write for", "each": False},
        {"question": "Where is [ANS_2] headquartered?", "each": False}]}, "q", 4)
    assert [s.question for s in d.subquestions] == ["Which magazine does Robert McElroy write for?",
                                                    "Where is [ANS_1] headquartered?"]
    assert d.duplicates == 1 and d.subquestions[1].depends_on == [0] and d.waves == [[0], [1]]
    # the same question twice is one search: single
    d = parse_decomposition({"type": "comparison", "subquestions": [
        {"question": "In what city is Connetquot High School?", "each": False},
        {"question": "In what city is Connetquot High School?", "each": False}]},
        "Connetquot High School is a public high school in what city in New York?", 4)
    assert d.is_single and d.type == "single" and d.model_type == "comparison" and d.duplicates == 1


def test_decomposer_type_follows_the_slots():
    chained = {"type": "comparison", "subquestions": [
        {"question": "Who wrote The Story of the Trapp Family Singers?", "each": False},
        {"question": "Which members of the group are related to [ANS_1]?", "each": False}]}
    d = parse_decomposition(chained, "q", 4)
    assert (d.type, d.model_type) == ("bridging", "comparison")
    d = parse_decomposition({"type": "intersection", "subquestions": [
        {"question": "Which films are in the series?", "each": False},
        {"question": "Box office of [ANS_1]?", "each": True}]}, "q", 4)
    assert d.type == "hybrid"
    # independent sub-questions keep the model's label (comparison vs intersection is not structural)
    d = parse_decomposition({"type": "comparison", "subquestions": [
        {"question": "When was A founded?", "each": False}, {"question": "When was B founded?", "each": False}]}, "q", 4)
    assert d.type == d.model_type == "comparison" and d.duplicates == 0


def test_decomposer_each_needs_a_slot():
    d = parse_decomposition({"type": "hybrid", "subquestions": [
        {"question": "Which films are in the series?", "each": True},
        {"question": "Audience of [ANS_1]?", "each": True}]}, "q", 4)
    assert [s.each for s in d.subquestions] == [False, True]


def test_decomposer_malformed_json_retries_then_llmerror():
    llm = routed_llm({"decompose": lambda u: "not json at all"})
    node = Node()
    with pytest.raises(LLMError):
        QuestionDecomposer(tracked(llm)).decompose(node, "q", "en")
    assert node.calls and not any(c.ok for c in node.calls)


# -- query generator ---------------------------------------------------------------------------
def test_query_generator_cleans_output():
    llm = routed_llm({"query": lambda u: 'Query: "BMW i5 price"'})
    node = Node()
    assert QueryGenerator(tracked(llm)).generate(node, "What is the BMW i5 price?", "en") == "BMW i5 price"
    assert llm.requests[0].stop == ["\n"]
    assert clean_query("", "What is [ANS_1] price?") == "What is price?"
    assert clean_query("검색어: BMW i5 가격", "q") == "BMW i5 가격"


# -- answer integrator -------------------------------------------------------------------------
def _judge(u):
    return relevant("98 to 120 million won") if "BMW i5" in u.split("Document:")[1] else IRRELEVANT


def test_integrator_per_document_judgements():
    llm = routed_llm({"integrate": _judge})
    node = Node()
    js = AnswerIntegrator(tracked(llm)).judge(node, "What is the price of the BMW i5?", P, "en")
    assert [(j.relevant, j.span) for j in js] == [(True, "98 to 120 million won"), (False, "")]
    assert len(node.calls) == 2 and all(c.purpose == "integrate" for c in node.calls)
    # the document is shown as the paper's JSON object, after the fixed prefix
    assert '"title": "BMW i5"' in llm.requests[0].messages[-1]["content"] or '"title": "BMW i5"' in llm.requests[1].messages[-1]["content"]


def test_integrator_one_failed_document_is_unjudged_not_fatal():
    def judge(u):
        return "garbage" if "luck" in u.split("Document:")[1] else relevant("98 to 120 million won")

    node = Node()
    js = AnswerIntegrator(tracked(routed_llm({"integrate": judge}))).judge(node, "q", P, "en")
    assert js[0].relevant and not js[1].relevant and js[1].error
    with pytest.raises(LLMError):
        AnswerIntegrator(tracked(routed_llm({"integrate": lambda u: "garbage"}))).judge(Node(), "q", P, "en")


def test_integrator_batch_mode_one_call():
    llm = routed_llm({"integrate_batch": lambda u: {"judgements": [
        {"doc": 1, "relevance": "relevant", "answer_span": "98 to 120 million won"},
        {"doc": 2, "relevance": "irrelevant", "answer_span": "None"}]}})
    node = Node()
    js = AnswerIntegrator(tracked(llm), mode="batch").judge(node, "q", P, "en")
    assert [j.relevant for j in js] == [True, False] and len(node.calls) == 1
    schema = llm.requests[0].json_schema["properties"]["judgements"]
    assert schema["minItems"] == schema["maxItems"] == 2


def test_integrator_fill_and_rewrite_long_answers():
    rewrites = []
    llm = routed_llm({"rewrite": lambda u: rewrites.append(u) or "Which electric cars cost 98 to 120 million won?"})
    integ = AnswerIntegrator(tracked(llm), rewrite_over=40)
    node = Node()
    assert integ.fill(node, "Which electric cars cost [ANS_1]?", {1: "98 to 120 million won"}, "en") == \
        "Which electric cars cost 98 to 120 million won?"
    assert not rewrites
    long = "The BMW i5 is sold in Korea from 98 million won for the eDrive40 up to 120 million won."
    out = integ.fill(node, "Which electric cars cost [ANS_1]?", {1: long}, "en")
    assert out == "Which electric cars cost 98 to 120 million won?" and node.data["rewritten"]
    assert "[ANS_1] = The BMW i5" in rewrites[0]
    assert node.calls[-1].purpose == "rewrite"


# -- responder ---------------------------------------------------------------------------------
def test_responder_short_answer_with_citations():
    llm = routed_llm({"answer": lambda u: {"explanation": "It sells for 98 to 120 million won [1].",
                                           "answer": "98 to 120 million won [1]."}})
    node = Node()
    r = ResponseGenerator(tracked(llm)).respond(node, "Price of BMW i5?", "BMW i5 price", P, "en")
    assert r.answer == "98 to 120 million won" and r.cited == ["bmw"] and not r.unknown
    user = llm.requests[0].messages[-1]["content"]
    assert "<documents>" in user and "Style: short" in user
    assert "never follow" in llm.requests[0].messages[0]["content"]


def test_responder_unknown_and_sub_answers():
    llm = routed_llm({"answer": lambda u: {"explanation": "Not in the documents.", "answer": "Unknown."}})
    r = ResponseGenerator(tracked(llm)).respond(Node(), "q?", "q", P, "en", sub_answers=[("a?", "b")])
    assert r.unknown and r.answer == "unknown" and r.cited == []
    assert "Answers to sub-questions:\n- a? -> b" in llm.requests[0].messages[-1]["content"]


def test_responder_trims_long_documents_toward_the_question_and_the_sub_answers():
    long = Passage(id="kim", doc_id="kim", title="김민희", text="영화에 자주 나왔다. " * 40 + "김민희의 첫 드라마는 학교 2이다. "
                   + "그녀는 서울에서 태어났다. " * 20)
    llm = ScriptedLLM([(r"질문", "학교 2")])
    for trim, kept in (("head", False), ("relevant", True)):
        ResponseGenerator(tracked(llm), doc_chars=300, style="plain", trim=trim).respond(
            Node(), "[ANS_1]의 첫 드라마는?", "첫 드라마", [long], "ko", sub_answers=[("배우는?", "김민희")])
        system = llm.requests[-1].messages[0]["content"]
        assert ("학교 2" in system) is kept


# -- evaluator ---------------------------------------------------------------------------------
def test_overall_is_mean_of_coherence_and_answerability_on_ten_scale():
    assert overall_score(9, 95) == 9.25
    assert overall_score(6, 10) == 3.5
    assert overall_score(1, 0) == 1.0  # the 1-10 scale floor


def test_evaluator_interface():
    llm = routed_llm({"evaluate": lambda u: scores(True, 8, 70)})
    node = Node()
    out = QueryEvaluator(tracked(llm)).evaluate(node, "q?", "an answer", "en", passages=P)
    assert out == {"semantic_coherence": 8, "answerability": 70, "overall": 7.5, "response_validity": True}
    assert set(out) == {"semantic_coherence", "answerability", "overall", "response_validity"}
    assert node.calls[0].purpose == "evaluate"
    assert node.data["eval_reason"] == {"asks_for": "the answer", "response_gives": "an answer"}
    user = llm.requests[0].messages[-1]["content"]
    assert "Sources of the summary" in user and "(BMW i5)" in user
    # out-of-range scores are invalid JSON for the schema: retried, then LLMError
    bad = routed_llm({"evaluate": lambda u: {**scores(True), "semantic_coherence": 11}})
    with pytest.raises(LLMError):
        QueryEvaluator(tracked(bad)).evaluate(Node(), "q", "a", "en")
    # the reasoning fields come first and are required (the grammar makes the model write them)
    bare = routed_llm({"evaluate": lambda u: {"semantic_coherence": 8, "answerability": 50, "response_validity": True}})
    with pytest.raises(LLMError):
        QueryEvaluator(tracked(bare)).evaluate(Node(), "q", "a", "en")


def test_korean_prompts_are_selected_by_lang():
    seen = []

    def rec(reply):
        def h(u):
            seen.append(u)
            return reply
        return h

    llm = routed_llm({"evaluate": rec(scores(True)), "query": rec("BMW i5 가격")})
    QueryEvaluator(tracked(llm)).evaluate(Node(), "BMW i5 가격은?", "1억 원", "ko")
    QueryGenerator(tracked(llm)).generate(Node(), "BMW i5 가격은?", "ko")
    assert [component(r) for r in llm.requests] == [("evaluate", "ko"), ("query", "ko")]
    assert seen[0].startswith("질문: ") and "요약: 1억 원" in seen[0]


def test_integrator_span_found_in_the_document_counts_as_relevant():
    llm = routed_llm({"integrate": lambda u: {"relevance": "irrelevant", "answer_span": "98 to 120 Million won"}})
    js = AnswerIntegrator(tracked(llm)).judge(Node(), "What is the price of the BMW i5?", P, "en")
    assert (js[0].relevant, js[0].span) == (True, "98 to 120 Million won")
    assert (js[1].relevant, js[1].span) == (False, "")  # not in the luck document


def test_decomposer_retry_samples_and_spans_are_bounded():
    from gaji.methods.toq.integrator import JUDGEMENT_SCHEMA

    bad = {"type": "bridging", "subquestions": [{"question": "a [ANS_2]", "each": False},
                                                 {"question": "b [ANS_1]", "each": False}]}
    good = {"type": "comparison", "subquestions": [{"question": "a", "each": False}, {"question": "b", "each": False}]}
    llm = _decomp_llm(bad, good)
    QuestionDecomposer(tracked(llm)).decompose(Node(), "q", "en")
    assert [r.temperature for r in llm.requests] == [0.0, 0.5]
    assert JUDGEMENT_SCHEMA["properties"]["answer_span"]["maxLength"] > 0


def test_integrator_span_copied_from_the_question_is_dropped():
    q = "What does the BMW i5 cost in Korea, in million won?"
    llm = routed_llm({"integrate": lambda u: {"relevance": "relevant", "answer_span": "BMW i5 cost in Korea, in million"}})
    js = AnswerIntegrator(tracked(llm)).judge(Node(), q, P, "en")
    assert [(j.relevant, j.span) for j in js] == [(True, ""), (True, "")]  # the label is kept, the copy is not


@pytest.mark.parametrize("question, kind", [
    ("Who directed Alien?", "person"), ("When was Jaws released?", "time"), ("Where was he born?", "place"),
    ("How many seats does the arena have?", "quantity"), ("In what year was the film released?", "time"),
    ("Which country is Pyrrhus from?", "place"),
    # every noun of the list, not only year, country and city
    ("In what century did Tecumseh lead the confederacy?", "time"), ("In which region of Lor is the story set?", "place"),
    ("Which man presented the Australia 2022 bid?", "person"),
    # a noun the list does not know, or no question word to open with: the opening says nothing
    ("Which film came out first?", ""), ("The actor who played Rocky was born where?", ""),
])
def test_the_opening_question_word_gives_the_asked_kind(question, kind):
    assert asked_kind(question) == kind


def test_a_which_noun_anywhere_gives_the_asked_thing():
    assert asked_thing("Pyrrhus last played for which football club?") == "thing"
    assert asked_thing("The war took place in which years?") == "time"
    assert asked_thing("Who wrote it?") == ""
