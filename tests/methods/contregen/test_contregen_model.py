"""ConTReGen end to end on the real 0.5B model, over a tiny corpus (a smoke test: it runs, it counts,
it answers; the quality of a 0.5B model's plans is not tested here)."""
from __future__ import annotations

import pytest
from contregen_fakes import WordRetriever

from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.contregen.method import ConTReGen

CORPUS = [
    ("tea-origin", "Green tea", "Green tea originated in China, where it was first drunk as a medicine."),
    ("tea-making", "Green tea processing", ("Green tea leaves are steamed or pan-fired soon after picking, "
                                            "which stops oxidation and keeps them green.")),
    ("tea-japan", "Green tea in Japan", ("Japanese green teas such as sencha and matcha are steamed; matcha is "
                                         "ground into a fine powder and whisked with hot water.")),
    ("tea-health", "Green tea and health", ("Green tea contains catechins and caffeine; studies link it to "
                                            "alertness, but claims about disease prevention are uncertain.")),
    ("coffee", "Coffee", "Coffee is brewed from roasted coffee beans and is popular in Brazil and Italy."),
    ("bridges", "Suspension bridges", "A suspension bridge hangs its deck from cables slung between towers."),
]




@pytest.mark.model
@pytest.mark.timeout(300)  # ~1 min on an idle 2-core machine; the guard allows for a shared one
def test_contregen_runs_on_the_small_model(small_model):
    ctx = RunContext(llm=TrackedLLM(small_model), retriever=WordRetriever(CORPUS))
    method = ConTReGen(k=2, max_subquestions=1, max_depth=1, summary_words=30, answer_words=60)
    trace = method.run("How is green tea made and what is it known for?", ctx)
    assert trace.answer.strip(), trace.error
    calls = trace.calls()
    purposes = [c.purpose for c in calls]
    assert purposes.count("plan") == 1 and purposes.count("final") == 1
    assert trace.usage().calls == len(calls) >= 2
    ok = [c for c in calls if c.ok]
    assert ok and all(c.prompt_tokens > 0 for c in ok)
    # every prompt fitted the slot's context (2048 tokens) with room for the reply
    assert all(c.prompt_tokens + c.completion_tokens <= small_model.context_size for c in ok)
    assert trace.root.data["verified_passage_ids"]
    assert set(trace.citations) <= set(trace.root.data["verified_passage_ids"])
