"""The replay double: a call is answered with the recorded output of the same prompt; a prompt never recorded is
a divergence (where it differs, both texts there), after which the question's calls are refused."""
import pytest

from gaji.llm.base import Request
from gaji.llm.confidence import summarize
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node
from gaji_lab.bench.replay_llm import (Divergence, PromptNotRecorded, RecordedCall, ReplayLLM, first_difference,
                                       logprobs_for, prompt_key)

SYSTEM = {"role": "system", "content": "Answer with a short phrase."}


def ask(text: str) -> list[dict]:
    return [SYSTEM, {"role": "user", "content": text}]


CALLS = [
    RecordedCall(ask("Question: Where was Yi Sun-sin born?"), "Seoul", "answer", prompt_tokens=12, completion_tokens=1),
    RecordedCall(ask("질문: 이순신은 어디에서 태어났나?"), "한성", "answer", prompt_tokens=15, completion_tokens=2),
    RecordedCall("Q: raw completion prompt\nA:", "raw output", "step"),
]


def test_a_recorded_prompt_gets_its_recorded_output_and_counts():
    llm = ReplayLLM(CALLS, name="qwen")
    res = llm.generate(Request(messages=ask("질문: 이순신은 어디에서 태어났나?")))
    assert (res.text, res.prompt_tokens, res.completion_tokens, res.model) == ("한성", 15, 2, "qwen")
    assert llm.generate(Request(prompt="Q: raw completion prompt\nA:")).text == "raw output"
    assert llm.matched == 2 and not llm.diverged
    assert [c.output for c in llm.unused()] == ["Seoul"]


def test_matching_is_by_the_messages_not_by_other_request_fields():
    llm = ReplayLLM(CALLS)
    res = llm.generate(Request(messages=ask("Question: Where was Yi Sun-sin born?"), max_tokens=7, seed=3))
    assert res.text == "Seoul"


def test_a_prompt_never_recorded_diverges_where_it_differs_and_stops_the_question():
    llm = ReplayLLM(CALLS)
    with pytest.raises(PromptNotRecorded, match="character"):
        llm.generate(Request(messages=ask("Question: Where was Yi Sun-sin buried?")))
    d = llm.divergence
    assert isinstance(d, Divergence) and d.recorded_purpose == "answer" and not d.repeated
    asked = "[system]\nAnswer with a short phrase.\n[user]\nQuestion: Where was Yi Sun-sin b"
    assert d.position == len(asked)  # the first differing character: "u" of "buried" against "o" of "born"
    assert d.asked.endswith("buried?") and d.recorded.endswith("born?")
    # every later call of the question is refused, even a recorded one, and counted apart
    with pytest.raises(PromptNotRecorded, match="earlier call"):
        llm.generate(Request(messages=ask("질문: 이순신은 어디에서 태어났나?")))
    assert llm.matched == 0 and llm.asked_after == 1 and len(llm.unused()) == 3


def test_a_prompt_asked_more_often_than_recorded_diverges_as_repeated():
    llm = ReplayLLM(CALLS[:1])
    llm.generate(Request(messages=ask("Question: Where was Yi Sun-sin born?")))
    with pytest.raises(PromptNotRecorded):
        llm.generate(Request(messages=ask("Question: Where was Yi Sun-sin born?")))
    assert llm.divergence.repeated and "more times" in llm.divergence.describe()


def test_the_same_prompt_recorded_twice_replays_in_recorded_order():
    bad, good = RecordedCall(ask("json please"), "{oops"), RecordedCall(ask("json please"), '{"a": 1}')
    llm = ReplayLLM([bad, good])
    node = Node(question="q")
    # TrackedLLM.json retries an invalid reply with the same messages: the second recorded output answers it
    assert TrackedLLM(llm, retries=1, backoff_s=0).json(node, "p", ask("json please"), {"type": "object"}) == {"a": 1}
    assert llm.matched == 2 and not llm.diverged


def test_nothing_recorded_for_the_question():
    llm = ReplayLLM([])
    with pytest.raises(PromptNotRecorded):
        llm.generate(Request(prompt="anything"))
    assert "no call was recorded" in llm.divergence.describe()


def test_a_failed_replay_call_is_recorded_on_the_node_through_tracked_llm():
    node = Node(question="q")
    with pytest.raises(Exception, match="failed after"):
        TrackedLLM(ReplayLLM(CALLS), retries=1, backoff_s=0).chat(node, "answer", ask("not recorded"))
    assert node.calls[-1].ok is False


@pytest.mark.parametrize("conf", [
    {"tokens": 1, "mean": -0.25, "min": -0.25, "first": -0.25, "margin": 0.0, "p_mean": 0.7788},
    {"tokens": 2, "mean": -0.3, "min": -0.5, "first": -0.1, "margin": 0.5, "p_mean": 0.7408},
    {"tokens": 5, "mean": -0.4, "min": -1.2, "first": -0.05, "margin": 0.35, "p_mean": 0.6703},
])
def test_a_recorded_confidence_comes_back_through_the_log_probabilities(conf):
    assert summarize(logprobs_for(conf)) == conf
    llm = ReplayLLM([RecordedCall("p", "19", confidence=conf)])
    assert llm.generate(Request(prompt="p", logprobs=2)).logprobs is not None
    assert ReplayLLM([RecordedCall("p", "19", confidence=conf)]).generate(Request(prompt="p")).logprobs is None


def test_helpers():
    assert first_difference("abc", "abd") == 2 and first_difference("ab", "abc") == 2
    assert prompt_key(ask("x")) != prompt_key("[system]\nAnswer with a short phrase.\n[user]\nx")
    assert RecordedCall.from_dict({"prompt": "p", "output": None, "purpose": "answer"}).output == ""
    assert ReplayLLM([], counter=lambda t: 42).count_tokens("a b") == 42
