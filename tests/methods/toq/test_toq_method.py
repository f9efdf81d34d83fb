"""Algorithm 1 end to end against a ScriptedLLM and a word-overlap retriever."""
import threading

from rich.console import Console
from toq_helpers import IRRELEVANT, OverlapRetriever, component, make_ctx, question_of, relevant, routed_llm, scores

from gaji.cli.render_tree import render_tree
from gaji.methods.toq.method import ToQ
from gaji.registry import METHODS

DOCS = [
    ("bmw", "BMW i5", "The BMW i5 is an electric sedan. In Korea it sells for 98 to 120 million won."),
    ("eqe", "Mercedes-Benz EQE", "The EQE electric sedan costs about 110 million won in Korea."),
    ("ioniq", "Hyundai Ioniq 6", "The Ioniq 6 electric car starts at 52 million won."),
    ("luck", "Symbols of good luck", "Four-leaf clovers and horseshoes are symbols of good luck."),
]
Q = "Please recommend an electric car in a similar price range to the BMW i5."
SUB1 = "What is the price range of the BMW i5?"
SUB2 = "Which electric cars are sold in the [ANS_1] price range?"
SUB2_FILLED = "Which electric cars are sold in the 98 to 120 million won price range?"


def doc_of(u: str) -> str:
    return u.split("Document:", 1)[1] if "Document:" in u else ""


def bridging_handlers(**over):
    def integrate(u):
        q, d = question_of(u), doc_of(u)
        if q == SUB1 and "98 to 120" in d:
            return relevant("98 to 120 million won")
        if q == SUB2_FILLED and "EQE" in d:
            return relevant("about 110 million won")
        return IRRELEVANT

    def answer(u):
        q = question_of(u)
        if q == SUB1:
            return {"explanation": "It sells for 98 to 120 million won [1].", "answer": "98 to 120 million won"}
        if q == SUB2_FILLED:
            return {"explanation": "The EQE costs about 110 million won [1].", "answer": "Mercedes-Benz EQE"}
        if "Answers to sub-questions" in u:
            return {"explanation": "The i5 costs 98-120 million won [1]; the EQE about 110 million won [2].",
                    "answer": "Mercedes-Benz EQE"}
        return {"explanation": "The documents do not say.", "answer": "unknown"}

    h = {
        "decompose": lambda u: {"type": "bridging", "subquestions": [
            {"question": SUB1, "each": False}, {"question": SUB2, "each": False}]},
        "query": lambda u: question_of(u).rstrip("?."),
        "integrate": integrate,
        "answer": answer,
        "evaluate": lambda u: scores(True),
        "rewrite": lambda u: AssertionError("no rewrite expected"),
    }
    h.update(over)
    return h


def test_toq_is_registered():
    assert METHODS.get("toq") is ToQ


def test_root_positive_stops_at_level_one():
    h = bridging_handlers(answer=lambda u: {"explanation": "The EQE costs about 110 million won [1].",
                                            "answer": "Mercedes-Benz EQE"})
    llm = routed_llm(h)
    t = ToQ(k=2).run(Q, make_ctx(llm, OverlapRetriever(DOCS)))
    assert t.status == "ok" and t.answer == "Mercedes-Benz EQE"
    assert t.root.children == [] and t.root.level == 1 and t.root.kind == "root"
    assert t.root.scores["response_validity"] is True and t.root.scores["overall"] == 8.5
    assert "decompose" not in {c.purpose for c in t.calls()}
    assert [c.purpose for c in t.root.calls] == ["query", "integrate", "integrate", "answer", "evaluate"]


def test_bridging_fills_the_dependent_slot_in_order():
    r = OverlapRetriever(DOCS)
    llm = routed_llm(bridging_handlers())
    events = []
    ctx = make_ctx(llm, r)
    ctx.on_event = lambda kind, d: events.append((kind, d["id"]))
    t = ToQ(k=3, respond="json").run(Q, ctx)
    root = t.root
    assert t.status == "ok" and t.answer == "Mercedes-Benz EQE"
    assert root.data["decomposition"] == "bridging" and root.data["waves"] == [[1], [2]]
    c1, c2 = root.children
    assert (c1.level, c2.level) == (2, 2) and c1.kind == c2.kind == "sub"
    assert c1.answer == "98 to 120 million won"
    assert c2.question == SUB2 and c2.filled_question == SUB2_FILLED
    assert c2.data["depends_on"] == [1] and c2.data["type"] == "bridging"
    # the dependent node searched after the first one was answered, with its slot filled
    assert r.queries == [Q.rstrip("."), SUB1.rstrip("?"), SUB2_FILLED.rstrip("?")]
    assert c2.relevance["eqe"] == {"relevant": True, "span": "about 110 million won"}
    assert len(c2.relevance) == 3 and sum(v["relevant"] for v in c2.relevance.values()) == 1
    assert t.citations == ["bmw", "eqe"] and root.data["explanation"].startswith("The i5 costs")
    assert root.data["first_answer"] == "unknown" and root.data["depth"] == 2
    # every node was streamed, and the final event closes the run
    ids = {n.id for n in root.walk()}
    assert ids <= {i for _, i in events} and events[-1][0] == "final"
    # and the trace round-trips
    from gaji.types import Trace
    assert Trace.from_json(t.to_json()).root.children[1].filled_question == SUB2_FILLED


def test_recursion_stops_at_max_depth():
    n = {"i": 0}

    def decompose(u):
        n["i"] += 1
        # sub-questions keep the question's name (BMW i5): a split that loses it is not kept (lost_names)
        return {"type": "comparison", "subquestions": [{"question": f"BMW i5 part {n['i']} a", "each": False},
                                                       {"question": f"BMW i5 part {n['i']} b", "each": False}]}

    h = bridging_handlers(decompose=decompose, evaluate=lambda u: scores(False),
                          answer=lambda u: {"explanation": "x", "answer": "something"})
    t = ToQ(k=1, max_depth=3, max_nodes=100).run(Q, make_ctx(routed_llm(h), OverlapRetriever(DOCS)))
    levels = [x.level for x in t.root.walk()]
    assert max(levels) == 3 and levels.count(2) == 2 and levels.count(3) == 4
    assert all(x.stop.reason == "max depth" for x in t.root.walk() if x.level == 3)
    t = ToQ(k=1, max_depth=1).run(Q, make_ctx(routed_llm(h), OverlapRetriever(DOCS)))
    assert t.root.children == [] and t.root.stop.reason == "max depth"


def test_node_budget_limits_the_tree():
    h = bridging_handlers(evaluate=lambda u: scores(False), answer=lambda u: {"explanation": "x", "answer": "y"})
    t = ToQ(k=1, max_nodes=2).run(Q, make_ctx(routed_llm(h), OverlapRetriever(DOCS)))
    assert t.root.children == [] and t.root.stop.reason == "node budget"


def test_malformed_evaluator_json_fails_the_node_but_keeps_the_answer():
    h = bridging_handlers(evaluate=lambda u: "{not json",
                          answer=lambda u: {"explanation": "About 110 million won [1].", "answer": "Mercedes-Benz EQE"})
    t = ToQ(k=2).run(Q, make_ctx(routed_llm(h), OverlapRetriever(DOCS)))
    root = t.root
    assert root.status == "failed" and "not valid JSON" in root.error
    evals = [c for c in root.calls if c.purpose == "evaluate"]
    assert len(evals) == 3 and not any(c.ok for c in evals)  # first try + 2 retries
    assert t.answer == "Mercedes-Benz EQE" and t.status == "ok" and t.root.data["failed_nodes"] == 1


def test_failed_sub_node_does_not_stop_the_run():
    base = bridging_handlers()

    def answer(u):
        if question_of(u) == SUB1:
            return RuntimeError("backend down")
        return base["answer"](u)

    t = ToQ(k=3).run(Q, make_ctx(routed_llm({**base, "answer": answer}), OverlapRetriever(DOCS)))
    c1, c2 = t.root.children
    assert c1.status == "failed" and "backend down" in c1.error and c1.answer == ""
    # the dependent node kept the failed sub-question in its slot's place
    assert c2.data["unfilled"] == [1] and "(What is the price range of the BMW i5)" in c2.filled_question
    assert t.status == "ok" and t.answer  # the best answer it has


def test_total_failure_still_returns_a_trace():
    t = ToQ(k=1).run(Q, make_ctx(routed_llm({"query": lambda u: RuntimeError("down")}), OverlapRetriever(DOCS)))
    assert t.status == "failed" and "down" in t.error and t.root.status == "failed"


def test_independent_siblings_run_in_parallel():
    barrier = threading.Barrier(2, timeout=5)
    subs = ["Which actors appeared in Bong Joon-ho films?", "Which actors appeared in Park Chan-wook films?"]

    def query(u):
        q = question_of(u)
        if q in subs:
            barrier.wait()  # both siblings must be searching at the same time
        return q

    h = bridging_handlers(
        decompose=lambda u: {"type": "intersection", "subquestions": [{"question": s, "each": False} for s in subs]},
        query=query,
        answer=lambda u: {"explanation": "x [1]", "answer": "Song Kang-ho"},
    )
    llm = routed_llm(h)
    t = ToQ(k=1, evaluate_root=False).run("Which actors worked with both Bong Joon-ho and Park Chan-wook?",
                                          make_ctx(llm, OverlapRetriever(DOCS)))
    assert [c.status for c in t.root.children] == ["ok", "ok"]
    assert t.root.data["waves"] == [[1, 2]]
    # evaluate_root=False: the root is decomposed straight away, with no level-1 retrieval
    assert t.root.query == "" and t.root.passage_ids == []


def test_serial_when_parallel_off():
    barrier = threading.Barrier(2, timeout=0.2)
    subs = ["Galaxy S24 battery?", "iPhone 15 battery?"]

    def query(u):
        if question_of(u) in subs:
            barrier.wait()
        return question_of(u)

    h = bridging_handlers(
        decompose=lambda u: {"type": "comparison", "subquestions": [{"question": s, "each": False} for s in subs]},
        query=query, answer=lambda u: {"explanation": "x", "answer": "4000 mAh"})
    t = ToQ(k=1, evaluate_root=False, parallel=False).run("Which has the bigger battery?",
                                                          make_ctx(routed_llm(h), OverlapRetriever(DOCS)))
    assert [c.status for c in t.root.children] == ["failed", "failed"]  # the barrier never filled


def test_hybrid_list_answer_expands_one_node_per_item():
    series = "Pirates of the Caribbean 1, 2, 3"
    audience = {"1": "6.5 million", "2": "10.4 million", "3": "9.6 million"}

    def answer(u):
        q = question_of(u)
        if q.startswith("Which films"):
            return {"explanation": "The series has three films [1].", "answer": series}
        if q.startswith("How many viewers did Pirates of the Caribbean "):
            n = q.split("Caribbean ")[1][0]
            return {"explanation": f"It drew {audience[n]} viewers [1].", "answer": audience[n]}
        if "Answers to sub-questions" in u:
            return {"explanation": "Part 2 had the most viewers [1].", "answer": "Pirates of the Caribbean 2"}
        return {"explanation": "unknown", "answer": "unknown"}

    h = bridging_handlers(
        decompose=lambda u: {"type": "hybrid", "subquestions": [
            {"question": "Which films are in the Pirates of the Caribbean series?", "each": False},
            {"question": "How many viewers did [ANS_1] have?", "each": True}]},
        answer=answer, integrate=lambda u: relevant("x"),
    )
    docs = DOCS + [("potc", "Pirates of the Caribbean", "Pirates of the Caribbean films and audience numbers.")]
    t = ToQ(k=1).run("Which Pirates of the Caribbean film had the largest audience?",
                     make_ctx(routed_llm(h), OverlapRetriever(docs)))
    c1, c2 = t.root.children
    assert c2.data["each"] and c2.data["items"] == [f"Pirates of the Caribbean {i}" for i in (1, 2, 3)]
    assert c2.data["decomposition"] == "comparison"
    assert [g.question for g in c2.children] == [f"How many viewers did Pirates of the Caribbean {i} have?" for i in (1, 2, 3)]
    assert [g.answer for g in c2.children] == ["6.5 million", "10.4 million", "9.6 million"]
    assert all(g.level == 3 and g.data["type"] == "comparison" for g in c2.children)
    assert c2.query == ""  # the list node is answered from its items, not searched itself
    assert t.answer == "Pirates of the Caribbean 2"


def test_korean_question_uses_korean_prompts_everywhere():
    sub1, sub2 = "BMW i5의 가격대는 얼마인가요?", "[ANS_1] 가격대의 전기차는 무엇이 있나요?"
    filled = "9,800만 원~1억 2천만 원 가격대의 전기차는 무엇이 있나요?"

    def answer(u):
        q = question_of(u)
        if q == sub1:
            return {"explanation": "9,800만 원~1억 2천만 원입니다 [1].", "answer": "9,800만 원~1억 2천만 원"}
        if q == filled:
            return {"explanation": "EQE는 약 1억 1천만 원입니다 [1].", "answer": "메르세데스-벤츠 EQE"}
        if "하위 질문의 답변" in u:
            return {"explanation": "EQE가 같은 가격대입니다 [1].", "answer": "메르세데스-벤츠 EQE"}
        return {"explanation": "문서에 없습니다.", "answer": "알 수 없음"}

    llm = routed_llm(bridging_handlers(
        decompose=lambda u: {"type": "bridging", "subquestions": [{"question": sub1, "each": False},
                                                                  {"question": sub2, "each": False}]},
        integrate=lambda u: relevant("가격"), answer=answer))
    docs = [("bmw", "BMW i5", "BMW i5의 국내 가격은 9,800만 원에서 1억 2천만 원 사이다."),
            ("eqe", "벤츠 EQE", "전기 세단 EQE의 가격은 약 1억 1천만 원이다.")]
    t = ToQ(k=2).run("BMW i5와 비슷한 가격대의 전기차 추천해주세요.", make_ctx(llm, OverlapRetriever(docs)))
    assert t.lang == "ko" and t.answer == "메르세데스-벤츠 EQE"
    assert t.root.children[1].filled_question == filled
    assert {component(r)[1] for r in llm.requests} == {"ko"}


def test_render_tree_shows_questions_queries_passages_answers_and_scores():
    t = ToQ(k=3).run(Q, make_ctx(routed_llm(bridging_handlers()), OverlapRetriever(DOCS)))
    console = Console(record=True, width=200, color_system=None)
    console.print(render_tree(t))
    out = console.export_text()
    for s in (SUB2_FILLED, "from: " + SUB2, "query: What is the price range of the BMW i5", "✓ Mercedes-Benz EQE",
              "about 110 million won", "→ Mercedes-Benz EQE", "response_validity ✓", "L2 sub #2", "needs #1", "calls",
              "split: bridging"):
        assert s in out, s


def test_bad_integrate_option_is_a_config_error():
    import pytest

    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="per_doc, batch, none"):
        ToQ(integrate="both")
    with pytest.raises(ConfigError, match="max_depth"):
        ToQ.parse_options({"max_depth": "0"})
    opts = ToQ.parse_options({"max-depth": "2", "evaluate_root": "false", "integrate": "batch"})
    assert (opts.max_depth, opts.evaluate_root, opts.integrate) == (2, False, "batch")


def test_long_answer_style_returns_the_explanation():
    t = ToQ(k=3, answer_style="long").run(Q, make_ctx(routed_llm(bridging_handlers()), OverlapRetriever(DOCS)))
    assert t.answer == "The i5 costs 98-120 million won; the EQE about 110 million won."
    assert t.root.answer == "Mercedes-Benz EQE" and t.citations == ["bmw", "eqe"]


def test_long_answer_drops_a_looping_explanation_and_its_citation_lead_ins():
    base = bridging_handlers()["answer"]

    def answer(u):
        if "Answers to sub-questions" in u:  # a small model looping until the field's length cap
            return {"explanation": "The EQE costs about 110 million won. According to [1], [2], the EQE costs about "
                                   "110 million won. According to [1], [2], the EQE co", "answer": "Mercedes-Benz EQE"}
        return base(u)

    t = ToQ(k=3, answer_style="long").run(Q, make_ctx(routed_llm(bridging_handlers(answer=answer)),
                                                       OverlapRetriever(DOCS)))
    assert t.answer == "The EQE costs about 110 million won."
    assert "According to" in t.root.data["explanation"]  # the trace keeps what the model wrote


def test_evidence_option_chooses_what_the_responder_reads():
    def one_relevant(u):
        return relevant("98 to 120 million won") if "98 to 120" in doc_of(u) else IRRELEVANT

    for evidence, expected in (("relevant", 1), ("all", 2)):
        def answer(u):
            return {"explanation": "It costs 98 to 120 million won [1].", "answer": "98 to 120 million won"}

        llm = routed_llm(bridging_handlers(integrate=one_relevant, answer=answer))
        t = ToQ(k=2, evidence=evidence).run(Q, make_ctx(llm, OverlapRetriever(DOCS)))
        assert len(t.root.data["evidence"]) == expected
        assert len(t.root.relevance) == 2  # both judged either way



def test_integrate_none_reads_every_document_without_judging_them():
    def no_judge(u):
        raise AssertionError("no relevance judgement expected")

    llm = routed_llm(bridging_handlers(integrate=no_judge))
    t = ToQ(k=3, respond="json", integrate="none").run(Q, make_ctx(llm, OverlapRetriever(DOCS)))
    assert t.status == "ok" and t.answer == "Mercedes-Benz EQE"
    c1, c2 = t.root.children
    assert c2.filled_question == SUB2_FILLED  # the [ANS_1] slot is still filled
    assert all(n.relevance == {} for n in t.root.walk())
    assert len(c2.data["evidence"]) == 3  # every retrieved document
    assert "integrate" not in t.usage_by_purpose()


def test_final_search_lets_the_root_read_its_own_retrieval_with_the_childrens_citations():
    seen = []
    base = bridging_handlers()["answer"]

    def answer(u):
        if "Answers to sub-questions" in u:
            seen.append(u)
        return base(u)

    r = OverlapRetriever(DOCS)
    t = ToQ(k=3, respond="json", final_search=True).run(Q, make_ctx(routed_llm(bridging_handlers(answer=answer)), r))
    assert t.answer == "Mercedes-Benz EQE"
    assert r.queries[-1] == Q  # the whole question, searched as it is (no query call)
    # the children cited bmw and eqe; the root's own search adds ioniq, which no child cited, and its reader reads it
    assert t.root.data["final_evidence"] == ["bmw", "eqe", "ioniq"]
    assert "Ioniq 6" in seen[-1]
    t2 = ToQ(k=3, respond="json").run(Q, make_ctx(routed_llm(bridging_handlers()), OverlapRetriever(DOCS)))
    assert "final_evidence" not in t2.root.data

def test_bad_evidence_option_is_a_config_error():
    import pytest

    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="evidence"):
        ToQ.parse_options({"evidence": "some"})


def test_plain_responder_answers_with_the_oner_prompt_and_sub_answers_as_context():
    seen = []

    def plain(u):
        seen.append(u)
        if "Answers to sub-questions" in u or "sold in the 98 to 120" in u:
            return "Mercedes-Benz EQE"
        return "98 to 120 million won"

    h = bridging_handlers(answer=lambda u: AssertionError("json responder not expected"), answer_plain=plain)
    t = ToQ(k=2, respond="plain", evaluate_root=False).run(Q, make_ctx(routed_llm(h), OverlapRetriever(DOCS)))
    assert t.answer == "Mercedes-Benz EQE"
    assert t.root.children[1].filled_question == SUB2_FILLED  # slot filled from the plain answer of node 1
    assert any(u.startswith("Answers to sub-questions:") for u in seen)
    assert t.root.data["explanation"] == ""


def test_bad_respond_option_is_a_config_error():
    import pytest

    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="respond"):
        ToQ.parse_options({"respond": "chatty"})


def test_search_both_fuses_the_query_and_the_question_results():
    """search=both: the generated query and the question each retrieve k; RRF keeps k. A query that misses
    the answer document is rescued by the question's own search (lists interleaved, query first)."""
    question = "How much does the Ioniq 6 cost?"
    h = bridging_handlers(query=lambda u: "clover horseshoe", evaluate=lambda u: scores(True),
                          answer_plain=lambda u: "52 million won")
    r = OverlapRetriever(DOCS)
    t = ToQ(k=2, search="both").run(question, make_ctx(routed_llm(h), r))
    assert r.queries == ["clover horseshoe", question]
    assert t.root.query == "clover horseshoe" and t.root.data["queries"] == ["clover horseshoe", question]
    assert list(t.root.relevance) == ["luck", "ioniq"]  # each list's best hit; eqe (rank 2 in both) dropped
    r = OverlapRetriever(DOCS)
    t = ToQ(k=2).run(question, make_ctx(routed_llm(h), r))  # default: the generated query alone
    assert r.queries == ["clover horseshoe"] and list(t.root.relevance) == ["luck", "eqe"]


def test_bad_search_option_is_a_config_error():
    import pytest

    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="search"):
        ToQ.parse_options({"search": "question"})


def test_a_run_stopped_under_a_node_marks_it_and_its_parents_stopped():
    # the time limit (or a client gone) stops the run in the middle of the second sub-question: the nodes it was
    # working on are "stopped", never left "running" or passed off as "ok"
    from gaji.serve.runner import Cancelled

    base = bridging_handlers()

    def answer(u):
        if question_of(u) == SUB2_FILLED:
            raise Cancelled("time limit")
        return base["answer"](u)

    ctx = make_ctx(routed_llm({**base, "answer": answer, "evaluate": lambda u: scores(False)}), OverlapRetriever(DOCS),
                   parallel=False)
    seen: dict[str, str] = {}
    ctx.on_event = lambda kind, d: seen.__setitem__(d["id"], d["status"])
    tree = ToQ(k=3, evaluate_root=False)
    try:
        tree.run(Q, ctx)
    except Cancelled:
        pass
    statuses = sorted(seen.values())
    assert "running" not in statuses and statuses.count("stopped") >= 2, seen  # the second sub-question and the root
    assert "ok" in statuses  # the first sub-question finished


def _fixed_safety(p_right: float):
    """A safety model that gives every answer the same P(right) (its one signal is constant)."""
    import math

    from gaji.methods.safety import SafetyModel

    return SafetyModel(("ko",), [0.0], [1.0], [0.0], math.log(p_right / (1 - p_right)),
                       {"low": 0.3, "medium": 0.5, "high": 0.7})


def test_check_confidence_stops_sure_nodes_without_the_evaluator_and_splits_unsure_ones(monkeypatch):
    import gaji.methods.toq.method as toq_method
    from gaji.llm.tracked import TrackedLLM
    from gaji.methods.base import RunContext
    from gaji.testing import ListRetriever, any_llm

    def run(p_right: float):
        monkeypatch.setattr(toq_method, "shared_safety", lambda path="": _fixed_safety(p_right))
        battles = [("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
                   ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945.")]
        ctx = RunContext(llm=TrackedLLM(any_llm(), retries=0, backoff_s=0), retriever=ListRetriever(battles),
                         parallel=False)
        return ToQ(evaluate_root=False, evaluate_final=False, respond="plain", integrate="none", check="confidence", max_depth=3,
                   max_nodes=16).run("Which battle came first, the Battle of Manila or the Battle of Guam?", ctx)

    sure = run(0.9)
    subs = [n for n in sure.root.walk() if n is not sure.root]
    assert subs and all(n.stop and n.stop.by == "confidence" and not n.children for n in subs if n.level == 2)
    assert "evaluate" not in {c.purpose for c in sure.calls()}
    assert all(n.data["confidence"]["stands"] for n in subs if n.level == 2)
    assert not any(c.purpose.startswith("decompose") for n in subs for c in n.calls)
    unsure = run(0.1)
    level2 = [n for n in unsure.root.children]
    # an unsure sub-question goes on to be split (here the scripted split is a single search)
    assert level2 and all(any(c.purpose.startswith("decompose") for c in n.calls) for n in level2)
    assert all(n.data.get("unsure") for n in level2 if n.answer and "unknown" not in n.answer.lower())
    assert "evaluate" not in {c.purpose for c in unsure.calls()}
