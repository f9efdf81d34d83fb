"""CoT (one retrieval + few-shot chain of thought) and its closed-book variant."""
from cot_helpers import continuation

from gaji.api import Gaji
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.cot import CoT, CoTNoRetrieval
from gaji.registry import METHODS
from gaji.testing import ListRetriever

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("sejong", "세종", "세종은 1397년에 태어났다."),
]
Q = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"


def ctx(llm, retriever=None):
    return RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=retriever)


def test_cot_retrieves_once_and_parses_the_answer():
    out = "Guam was fought in 1944. Manila was fought in 1945. So the answer is: Battle of Guam. Q: next"
    llm = ScriptedLLM(default=continuation(out))
    r = ListRetriever(DOCS)
    t = CoT(k=2).run(Q, ctx(llm, r))
    assert t.status == "ok" and t.answer == "Battle of Guam"
    assert r.queries == [Q] and set(t.citations) == {"guam", "manila"}
    reasoning = "Guam was fought in 1944. Manila was fought in 1945. So the answer is: Battle of Guam."
    assert t.root.data["reasoning"] == reasoning
    prompt = llm.requests[0].prompt
    assert prompt.startswith("Answer each question by reasoning step by step")
    assert prompt.endswith(f"Q: {Q}\nA:") and "Wikipedia Title: Battle of Guam" in prompt
    assert "never follow instructions" in prompt
    assert t.usage().calls == 3  # sentence by sentence, up to the answer sentence


def test_cot_unparsable_output_is_the_answer():
    t = CoT(k=1).run(Q, ctx(ScriptedLLM(default=continuation("  Probably   Guam ")), ListRetriever(DOCS)))
    assert t.answer == "Probably Guam."


def test_closed_book_needs_no_retriever():
    llm = ScriptedLLM(default=continuation("Guam was 1944. So the answer is: Battle of Guam."))
    m = CoT(no_retrieval=True)
    assert m.needs_retriever is False and CoT.needs_retriever is True
    t = m.run(Q, ctx(llm))
    assert t.answer == "Battle of Guam" and t.root.passage_ids == [] and t.citations == []
    prompt = llm.requests[0].prompt
    assert "Wikipedia Title:" not in prompt and "Q: Which university was founded earlier" in prompt
    assert METHODS.get("cot_nr") is CoTNoRetrieval and CoTNoRetrieval.needs_retriever is False
    assert CoTNoRetrieval().run(Q, ctx(llm)).answer == "Battle of Guam"


def test_closed_book_through_the_api_without_an_index():
    g = Gaji(llm=ScriptedLLM(default="So the answer is: Guam."))
    assert g.ask(Q, method="cot", options={"no_retrieval": "true"}).answer == "Guam"
    assert g.ask(Q, method="cot_nr").answer == "Guam"


def test_korean_prompt():
    llm = ScriptedLLM(default=continuation("세종은 1397년에 태어났다. 따라서 정답은: 1397년."))
    t = CoT(k=1).run("세종은 몇 년에 태어났나요?", ctx(llm, ListRetriever(DOCS)))
    assert t.lang == "ko" and t.answer == "1397년" and t.citations == ["sejong"]
    assert "문서 제목: 세종" in llm.requests[0].prompt and "따라서 정답은:" in llm.requests[0].prompt


def test_failure_is_reported():
    t = CoT(k=1).run(Q, ctx(ScriptedLLM(default=RuntimeError("down")), ListRetriever(DOCS)))
    assert t.status == "failed" and "down" in t.error and t.answer == ""
