"""Prompts fitted to the model's context (gaji/llm/fit.py), through TrackedLLM, for any method."""
from __future__ import annotations

from gaji.llm.base import Request
from gaji.llm.fit import fit_request, prompt_budget
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.common import format_passages
from gaji.methods.oner import OneR
from gaji.testing import ListRetriever
from gaji.types import Node, Passage, Trace


def words(text: str) -> int:
    return len(text.split())


FILLER = " ".join(f"문장{j}은 이 문서의 여러 이야기 가운데 하나를 담고 있다." for j in range(60))
LONG_KO = [(f"d{i}", f"문서{i}", FILLER + (" 빅뱅은 2006년에 데뷔했다." if i == 3 else "")) for i in range(5)]


def oner_request(passages: list[Passage], question: str) -> Request:
    system = "주어진 문서를 바탕으로 답하세요.\n\n" + format_passages(passages, max_chars=100_000)
    return Request(messages=[{"role": "system", "content": system}, {"role": "user", "content": f"질문: {question}"}],
                   max_tokens=64)


def test_a_prompt_that_fits_is_left_alone():
    req = Request(messages=[{"role": "user", "content": "short"}], max_tokens=16)
    assert fit_request(req, words, 4096) == (req, None)


def test_passages_are_cut_to_their_relevant_sentences_to_fit():
    ps = [Passage(i, i, t, title=n) for i, n, t in LONG_KO]
    req = oner_request(ps, "빅뱅은 언제 데뷔했나요?")
    fitted, trim = fit_request(req, words, 700)
    assert trim is not None and trim.before > 700 and trim.after <= trim.budget
    assert trim.budget == prompt_budget(700, 64, 2) and trim.fits and trim.passages == 5 and trim.dropped == 0
    system = fitted.messages[0]["content"]
    assert "빅뱅은 2006년에 데뷔했다." in system  # the relevant sentence survives
    assert all(f"[{n}] (문서{n - 1})" in system for n in range(1, 6))  # every passage keeps its label and title
    assert fitted.messages[1] == req.messages[1]  # the question is never cut
    assert sum(words(m["content"]) for m in fitted.messages) == trim.after


def test_tiny_contexts_truncate_then_leave_passages_out():
    ps = [Passage(i, i, t, title=n) for i, n, t in LONG_KO]
    fitted, trim = fit_request(oner_request(ps, "빅뱅은 언제 데뷔했나요?"), words, 140)
    assert trim.fits and trim.after <= trim.budget and (trim.truncated or trim.dropped)


def test_a_prompt_without_passages_is_sent_as_it_is_and_says_so():
    req = Request(prompt="word " * 500, max_tokens=10)
    fitted, trim = fit_request(req, words, 100)
    assert fitted is req and trim is not None and not trim.fits


def test_oner_on_five_long_korean_paragraphs_fits_a_small_context_and_records_the_trim():
    backend = ScriptedLLM([(r"질문: 빅뱅", "2006년입니다.")])
    backend.context_size = 600
    ctx = RunContext(llm=TrackedLLM(backend, backoff_s=0), retriever=ListRetriever(LONG_KO))
    t = OneR(k=5, passage_chars=100_000).run("빅뱅은 언제 데뷔했나요?", ctx)
    assert t.status == "ok" and t.answer == "2006년"
    (call,) = t.root.calls
    assert call.trim["fits"] and call.trim["after"] <= call.trim["budget"] < call.trim["before"]
    assert call.prompt_tokens <= 600 - 64  # what the backend saw fits with the reply
    facts = [f for f in t.root.display if f.label == "컨텍스트"]
    assert facts and "answer:" in facts[0].text
    assert Trace.from_json(t.to_json()).root.calls[0].trim == call.trim


def test_tracked_llm_records_no_trim_when_none_was_needed():
    node = Node()
    TrackedLLM(ScriptedLLM(default="x")).chat(node, "answer", [{"role": "user", "content": "hi"}])
    assert node.calls[0].trim == {}
