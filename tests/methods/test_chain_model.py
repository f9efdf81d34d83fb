"""Chain (paper 003) on the real 0.5B model: two steps and the final answer over a tiny corpus, and the
log-likelihood scoring used to pick synthetic chains (eq. 4). A smoke test of prompts and accounting,
not of a 0.5B model's answers."""
from __future__ import annotations

import pytest

from gaji.llm.base import Request
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.chain import Chain
from gaji.testing import ListRetriever

CORPUS = [
    ("lost-gravity", "Lost Gravity (roller coaster)", "Lost Gravity is a steel roller coaster at Walibi Holland "
     "in the Netherlands. It was manufactured by Mack Rides and opened in 2016."),
    ("mack-rides", "Mack Rides", "Mack Rides GmbH & Co KG is an amusement ride manufacturer based in Waldkirch, "
     "Germany. The company was founded in 1780."),
    ("intamin", "Intamin", "Intamin is a Swiss amusement ride manufacturer based in Schaan, Liechtenstein."),
]


@pytest.mark.model
@pytest.mark.timeout(180)
def test_chain_runs_on_the_small_model(small_model):
    ctx = RunContext(llm=TrackedLLM(small_model), retriever=ListRetriever(CORPUS))
    t = Chain(k=2, max_length=2, subq_tokens=32, answer_tokens=16).run(
        "In which country is the manufacturer of Lost Gravity based?", ctx)
    assert t.status == "ok", t.error
    steps = t.root.children
    assert len(steps) == 2 and all(s.question and s.answer for s in steps)
    assert [c.purpose for c in steps[0].calls] == ["sub_question", "sub_answer"]
    assert t.root.calls[-1].purpose == "answer" and t.usage().calls == 5
    assert all(c.prompt_tokens > 0 for c in t.calls())
    assert t.answer.strip() and t.root.query == t.question


@pytest.mark.model
@pytest.mark.timeout(120)
def test_gold_answer_log_likelihood_prefers_the_supported_answer(small_model):
    m = Chain(k=2)
    hist = [("Who manufactured Lost Gravity?", "Mack Rides"), ("Where is Mack Rides based?", "Waldkirch, Germany")]
    msgs = m.final_messages("en", "In which country is the manufacturer of Lost Gravity based?", hist, [])

    def ll(answer):
        return sum(t["logprob"] for t in small_model.score(Request(messages=msgs, logprobs=1), answer).logprobs)

    assert ll("Germany") > ll("Brazil")
