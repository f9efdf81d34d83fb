import pytest

from gaji.eval.metrics.cost import atc, cost_metrics
from gaji.types import LLMCall, Node, Trace


def test_cost_counts_every_call_in_the_tree():
    t = Trace(question="q", method="m", wall_ms=2500.0)
    t.root.calls.append(LLMCall(model="x", prompt_tokens=100, completion_tokens=10))
    child = t.root.add(Node(question="sub"))
    child.calls.append(LLMCall(model="x", prompt_tokens=50, completion_tokens=5, cache_hit=True))
    child.calls.append(LLMCall(model="x", ok=False, error="boom"))
    c = cost_metrics(t)
    assert c["tokens"] == 165 and c["prompt_tokens"] == 150 and c["completion_tokens"] == 15
    assert c["calls"] == 3 and c["failed_calls"] == 1 and c["cache_hits"] == 1
    assert c["wall_s"] == 2.5


def test_atc_is_the_mean_of_per_question_tokens():
    assert atc([100, 200, 600]) == pytest.approx(300.0)
    assert atc([]) == 0.0
