"""How sure the model was: the log-probability summary, from plain and streamed OpenAI responses, kept on the call."""
from __future__ import annotations

from gaji.llm.base import Request
from gaji.llm.confidence import summarize
from gaji.llm.openai_compat import StreamCollector
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node


def tok(t: str, lp: float, alt: float | None = None) -> dict:
    top = [{"token": t, "logprob": lp}] + ([{"token": t + "x", "logprob": alt}] if alt is not None else [])
    return {"token": t, "logprob": lp, "top": top}


def test_summary_skips_whitespace_and_punctuation_and_reads_the_margin():
    s = summarize([tok(" ", -3.0), tok("Seoul", -0.2, -2.2), tok(".", -5.0), tok("!", -4.0)])
    assert s["tokens"] == 1 and s["mean"] == -0.2 and s["first"] == -0.2 and s["margin"] == 2.0
    assert summarize([]) == {} and summarize([tok(" ", -1.0)]) == {}
    assert summarize([tok("a", -1e9)])["min"] == -30.0  # -inf-like values are clipped


def test_streamed_chunks_carry_their_logprobs_into_the_result():
    got: list[str] = []
    col = StreamCollector(True, "m", "test", got.append)
    col.add({"choices": [{"delta": {"content": "19"}, "logprobs": {"content": [
        {"token": "19", "logprob": -0.1, "top_logprobs": [{"token": "19", "logprob": -0.1}]}]}}]})
    col.add({"choices": [{"delta": {"content": "45"}, "logprobs": {"content": [
        {"token": "45", "logprob": -0.3, "top_logprobs": []}]}}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    res = col.result()
    assert res.text == "1945" and [t["logprob"] for t in res.logprobs] == [-0.1, -0.3]


def test_tracked_calls_keep_the_summary_only_when_asked():
    llm = ScriptedLLM(default="Seoul")
    llm.token_logprob = -0.25
    tracked, node = TrackedLLM(llm, retries=0), Node()
    tracked.call(node, "answer", Request(messages=[{"role": "user", "content": "q"}], logprobs=2))
    tracked.call(node, "answer", Request(messages=[{"role": "user", "content": "q"}]))
    assert node.calls[0].confidence["mean"] == -0.25 and node.calls[1].confidence == {}
    llm.token_logprob = None  # a backend that gives none records none
    tracked.call(node, "answer", Request(messages=[{"role": "user", "content": "q"}], logprobs=2))
    assert node.calls[2].confidence == {}
