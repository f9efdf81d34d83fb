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


def test_cost_per_component_sums_to_the_total_and_summaries_show_it():
    from gaji.eval.summary import format_value, metric_label, summarize

    t = Trace(question="q", method="m")
    t.root.calls += [LLMCall(model="x", purpose="decompose", prompt_tokens=300, completion_tokens=40),
                     LLMCall(model="x", purpose="answer", prompt_tokens=100, completion_tokens=10)]
    t.root.add(Node(question="sub")).calls.append(LLMCall(model="x", purpose="answer", prompt_tokens=50, completion_tokens=5))
    c = cost_metrics(t)
    assert (c["tokens:decompose"], c["tokens:answer"]) == (340, 165)
    assert sum(v for k, v in c.items() if k.startswith("tokens:")) == c["tokens"]
    s = summarize([{"metrics": c}, {"metrics": {"tokens": 10, "tokens:answer": 10}}])
    assert s["metrics"]["tokens:answer"] == {"mean": 87.5, "n": 2} and s["metrics"]["tokens:decompose"]["n"] == 1
    assert metric_label("tokens:answer") == "tok/q answer" and format_value("tokens:answer", 87.5) == "88"
