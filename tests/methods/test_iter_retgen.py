"""Iter-RetGen: T iterations, each retrieving with previous generation + question."""
import pytest
from cot_helpers import continuations

from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.iter_retgen import IterRetGen
from gaji.testing import ListRetriever

DOCS = [
    ("lg", "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides."),
    ("mr", "Mack Rides", "Mack Rides is a German manufacturer based in Waldkirch."),
    ("x", "Other", "Unrelated text."),
]
Q = "Which country is the manufacturer of Lost Gravity from?"


def run(generations, question=Q, **opts):
    llm = ScriptedLLM(default=continuations(*generations))
    r = ListRetriever(DOCS)
    t = IterRetGen(k=1, **opts).run(question, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=r))
    return t, llm, r


def test_iterations_query_with_previous_generation():
    g1 = "Lost Gravity was built by Mack Rides. So the answer is: Netherlands."
    g2 = "Mack Rides is German. So the answer is: Germany."
    g3 = "Mack Rides is a German manufacturer. So the answer is: Germany."
    t, llm, r = run([g1, g2, g3])
    assert t.status == "ok", t.error
    its = t.root.children
    assert [n.kind for n in its] == ["iteration"] * 3 and [n.data["iteration"] for n in its] == [1, 2, 3]
    assert r.queries == [Q, f"{g1} {Q}", f"{g2} {Q}"]
    assert [n.answer for n in its] == ["Netherlands", "Germany", "Germany"]
    assert t.answer == "Germany" and t.root.data["reasoning"] == g3
    assert t.citations == its[-1].passage_ids
    # each generation sees only its own paragraphs and the question (no earlier generation)
    assert all(f"Q: {Q}\nA:" in q.prompt.split("\n\n\n")[-1] for q in llm.requests)
    assert t.usage().calls == 6  # two sentences per generation


def test_iteration_count_option():
    t, _, r = run(["So the answer is: A."] * 5, iterations=5)
    assert len(t.root.children) == 5 and len(r.queries) == 5


def test_failure_keeps_the_answer_so_far():
    it = iter(["So the answer is: Germany."])

    def reply(req):
        try:
            return next(it)
        except StopIteration:
            raise RuntimeError("backend gone") from None

    llm = ScriptedLLM(default=reply)
    t = IterRetGen(k=1).run(Q, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=ListRetriever(DOCS)))
    assert t.status == "failed" and "backend gone" in t.error
    assert t.answer == "Germany"
    assert [n.status for n in t.root.children] == ["ok", "failed"]


def test_korean():
    q = "로스트 그래비티 제조사는 어느 나라 회사인가?"
    t, llm, _ = run(["맥 라이드는 독일 회사이다. 따라서 정답은: 독일."] * 3, question=q)
    assert t.lang == "ko" and t.answer == "독일" and "문서 제목:" in llm.requests[0].prompt


def test_long_style_refines_a_cited_paragraph_each_iteration():
    p1 = "Lost Gravity was built by Mack Rides [1]."
    p2 = "According to [1], Mack Rides is a German manufacturer."
    p3 = "Lost Gravity is a Mack Rides coaster; Mack Rides is German [1]."
    llm = ScriptedLLM(default=lambda req: {1: p1, 2: p2, 3: p3}[len(llm.requests)])
    r = ListRetriever(DOCS)
    t = IterRetGen(k=1, style="long", words=30).run(Q, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=r))
    assert t.status == "ok", t.error
    its = t.root.children
    assert [n.answer for n in its] == [p1, p2, p3] and t.answer == p3
    # the next query is the previous paragraph without its citations, then the question
    assert r.queries == [Q, f"Lost Gravity was built by Mack Rides. {Q}", f"Mack Rides is a German manufacturer. {Q}"]
    assert all(q.is_chat and "about 30 words" in q.messages[0]["content"] for q in llm.requests)
    assert t.citations == its[-1].passage_ids
    assert t.usage().calls == 3


def test_style_is_checked():
    with pytest.raises(ConfigError, match="style must be cot or long"):
        IterRetGen(style="essay")
