"""Synthetic classifier data (paper 003 §3.1): labels per prefix, best chain by log-likelihood (eq. 4),
down-sampling of length-1 chains, the explicit report/train split, resumable runs."""
import json

import pytest

from gaji.errors import ConfigError
from gaji.eval.datasets import EvalItem
from gaji_lab.learn.synth import (
    INSUFFICIENT,
    SUFFICIENT,
    ChainSampler,
    SynthConfig,
    chain_instances,
    downsample,
    is_sufficient,
    make_data,
    make_split,
    read_jsonl,
)
from gaji.llm.base import Result
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.testing import ListRetriever

DOCS = [("lg", "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides."),
        ("mr", "Mack Rides", "Mack Rides is a German manufacturer based in Waldkirch.")]


def chain_llm(predict):
    """Sub-question n -> 'qn?', sub-answer -> 'an'; the prediction after step i is predict(i, temperature)."""
    state = {"i": 0, "t": 0.0}

    def reply(req):
        system = req.messages[0]["content"]
        if "search engine can answer" in system:
            if "(none yet)" in req.messages[1]["content"]:
                state["i"] = 0  # a new chain
            state["i"] += 1
            state["t"] = req.temperature
            return f"q{state['i']}?"
        if "complex question using the sub-questions" in system:
            return predict(state["i"], state["t"])
        return f"a{state['i']}"

    llm = ScriptedLLM(default=reply)
    llm.state = state
    return llm


def test_labels_stop_at_the_first_sufficient_prefix():
    llm = chain_llm(lambda i, t: "Germany" if i == 2 else "France")
    s = ChainSampler(TrackedLLM(llm, backoff_s=0), ListRetriever(DOCS), SynthConfig(n=1, max_length=6), None)
    rec = s.question(EvalItem(id="1", question="Where is the maker of Lost Gravity?", answers=["Germany"]), "fx")
    ch = rec["chains"][0]
    assert [st["label"] for st in ch["steps"]] == [INSUFFICIENT, SUFFICIENT]
    assert rec["length"] == 2 and rec["sufficient"] and ch["calls"] == 6  # 2 x (subq, suba, predict)
    assert [st["question"] for st in ch["steps"]] == ["q1?", "q2?"]
    inst = chain_instances(rec["question"], ch["steps"])
    assert [x["label"] for x in inst] == [INSUFFICIENT, SUFFICIENT]
    assert inst[1]["history"] == [["q1?", "a1"], ["q2?", "a2"]]


def test_chain_reaching_l_ends_insufficient_and_closed_book_works():
    llm = chain_llm(lambda i, t: "no idea")
    s = ChainSampler(TrackedLLM(llm, backoff_s=0), None, SynthConfig(n=1, max_length=3), None)
    rec = s.question(EvalItem(id="1", question="Q?", answers=["Germany"]), "bamboogle")
    assert rec["length"] == 3 and not rec["sufficient"] and rec["closed_book"]
    assert all(st["label"] == INSUFFICIENT for st in rec["chains"][0]["steps"])


class ScoringLLM(ScriptedLLM):
    """log P(answer | prompt) = minus the number of sub-questions in the prompt not containing 'good'."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.scored = []

    def score(self, request, continuation):
        text = request.messages[-1]["content"]
        self.scored.append((text, continuation))
        return Result(text=continuation, logprobs=[{"token": continuation, "logprob": -1.0 if "a1" in text and "a2" not in text else -5.0}])


def test_n_chains_keep_the_most_likely_gold_answer():
    calls = {"n": 0}

    def predict(i, t):
        return "Germany" if (t > 0 and i == 1) or (t == 0 and i == 2) else "x"

    llm = chain_llm(predict)
    backend = ScoringLLM(default=llm.default)
    tl = TrackedLLM(backend, backoff_s=0)

    def scorer(messages, cont):
        calls["n"] += 1
        return sum(t["logprob"] for t in backend.score(type("R", (), {"messages": messages})(), cont).logprobs)

    s = ChainSampler(tl, ListRetriever(DOCS), SynthConfig(n=2, max_length=4, temperature=0.7), scorer)
    rec = s.question(EvalItem(id="1", question="Q?", answers=["Germany", "DE"]), "fx")
    greedy, sampled = rec["chains"]
    assert greedy["temperature"] == 0.0 and sampled["temperature"] == 0.7
    assert greedy["length"] == 2 and sampled["length"] == 1
    assert rec["best"] == 1 and rec["length"] == 1 and calls["n"] == 2
    assert backend.scored[0][1] == "Germany"  # the first gold answer is scored


def test_sampling_needs_a_scorer():
    with pytest.raises(ConfigError, match="log-probabilities"):
        ChainSampler(TrackedLLM(ScriptedLLM(default="x")), None, SynthConfig(n=2), None)


def test_is_sufficient_threshold():
    assert is_sufficient("Germany", ["germany"], 0.8)
    assert is_sufficient("the Federal Republic of Germany", ["Federal Republic of Germany"], 0.8)
    assert not is_sufficient("Germany and France", ["Germany"], 0.8)
    assert is_sufficient("Germany and France", ["Germany"], 0.5)  # F1 = 0.5
    assert is_sufficient("서울특별시", ["서울특별시"], 0.8)


def test_downsample_length_one_chains():
    recs = [{"length": 1, "id": str(i)} for i in range(10)] + [{"length": 3, "id": f"l{i}"} for i in range(6)]
    kept = downsample(recs, 0.4, seed=0)
    ones = [r for r in kept if r["length"] == 1]
    assert len(ones) == 4 and len(kept) == 10  # 4 / 10 = 40 %
    assert downsample(recs, 1.0) == recs


def items(n, prefix="q"):
    return [EvalItem(id=f"{prefix}{i}", question=f"Question {i}?", answers=["Germany"]) for i in range(n)]


def test_split_is_explicit_and_disjoint():
    sp = make_split({"a": items(5), "b": items(2)}, report=3)
    assert sp["datasets"]["a"] == {"report_ids": ["q0", "q1", "q2"], "train_ids": ["q3", "q4"]}
    assert sp["datasets"]["b"]["train_ids"] == []


def test_make_data_resumes_and_never_uses_report_questions(tmp_path):
    sets = {"a": items(6), "b": items(5, "b")}
    split = make_split(sets, report=2)
    cfg = SynthConfig(n=1, max_length=3)
    seen = []

    def make_sampler(name):
        at = 1 if name == "a" else 2  # set a: length-1 chains; set b: length 2
        llm = chain_llm(lambda i, t: "Germany" if i == at else "x")

        class Spy(ChainSampler):
            def question(self, item, dataset):
                seen.append((dataset, item.id))
                return super().question(item, dataset)

        return Spy(TrackedLLM(llm, backoff_s=0), None, cfg, None)

    st = make_data(tmp_path, sets, split, make_sampler, cfg, limit=1)
    assert seen == [("a", "q2"), ("b", "b2")] and st["questions"] == 2
    st = make_data(tmp_path, sets, split, make_sampler, cfg)
    assert st["questions"] == 7 and len(seen) == 7  # nothing done twice
    assert not {("a", "q0"), ("a", "q1"), ("b", "b0"), ("b", "b1")} & set(seen)
    assert json.loads((tmp_path / "split.json").read_text())["datasets"]["a"]["report_ids"] == ["q0", "q1"]
    inst = read_jsonl(tmp_path / "instances.jsonl")
    # 4 length-1 chains (a) and 3 of length 2 (b): at most 40.8 % length 1 -> 2 of them kept
    assert st["chain_length"] == {"1": 2, "2": 3} and st["chains_kept"] == 5
    assert len(inst) == 2 + 3 * 2 and st["sufficient"] == 5 and st["insufficient"] == 3
    assert [r["label"] for r in inst if r["dataset"] == "b"][:2] == [INSUFFICIENT, SUFFICIENT]
    # a torn last line (interrupted run) is ignored and that question redone
    with open(tmp_path / "chains.jsonl", "a") as f:
        f.write('{"id": "trunc')
    st = make_data(tmp_path, sets, split, make_sampler, cfg)
    assert st["questions"] == 7
    # another split or other settings in the same directory are refused
    with pytest.raises(ConfigError, match="another split"):
        make_data(tmp_path, sets, make_split(sets, report=1), make_sampler, cfg)
    with pytest.raises(ConfigError, match="other settings"):
        make_data(tmp_path, sets, split, make_sampler, SynthConfig(n=1, max_length=4))


def test_time_limit_stops_cleanly(tmp_path):
    sets = {"a": items(4)}
    cfg = SynthConfig(n=1, max_length=2)
    st = make_data(tmp_path, sets, make_split(sets, 1), lambda n: None, cfg, max_minutes=0)
    assert st["stopped_early"] and st["questions"] == 0
