"""ConTRe retrieval-only mode: union of verified passages, ranking, tracing under the calling node, factory."""
from __future__ import annotations

import dataclasses

import pytest
from contregen_fakes import QUESTION, Brain, WordRetriever, make_ctx

from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.retrieve.contre import ConTReRetriever, make_contre
from gaji.methods.contregen.tree import TreeConfig
from gaji.registry import RETRIEVERS
from gaji.types import Node, Trace

BRAIN = {
    "plans": {QUESTION: ["What music is played?", "What food is sold?", "Is Mars cold?"]},
    "verdicts": {"What music is played?": "drums choirs festival music",
                 "What food is sold?": "Norvik smoked fish food stalls", "Is Mars cold?": None},
    "irrelevant": {"Norvik Harbour"},
}


def contre(k: int | None = 2, depth: int = 1, **brain) -> tuple[ConTReRetriever, WordRetriever, ScriptedLLM]:
    base = WordRetriever()
    llm = ScriptedLLM(default=Brain(**{**BRAIN, **brain}))
    cfg = TreeConfig(max_subquestions=3, max_depth=depth)
    return ConTReRetriever(base, get_llm=lambda: llm, config=cfg, node_k=k), base, llm


def test_search_returns_the_ranked_union_of_verified_passages():
    r, base, llm = contre()
    plain = [p.id for p in base.search(QUESTION, 2)]
    got = r.search(QUESTION, k=10)
    ids = [p.id for p in got]
    # root passages, plus what the verified sub-questions found; the harbour passage was judged irrelevant
    assert set(plain) <= set(ids) and "food" in ids and "drums" in ids and "harbour" not in ids
    assert len(ids) == len(set(ids))
    # ranked by fusion: the music passage is found by the root and the music sub-question, so it leads
    assert ids[0] == "music"
    assert [p.rank for p in got] == list(range(1, len(got) + 1))
    assert [p.score for p in got] == sorted((p.score for p in got), reverse=True)
    assert {p.source for p in got} == {"contre"}
    assert "Is Mars cold?" not in base.queries  # rejected at verification step (i)
    # k cuts the ranked union
    assert [p.id for p in r.search(QUESTION, k=2)] == ids[:2]
    assert llm.requests  # it did plan and verify


def test_search_traced_records_the_work_under_the_calling_node():
    r, _, own_llm = contre()
    # inside a run, the retriever works with the caller's tracked LLM, so its calls count in the caller's trace
    ctx, caller_llm = make_ctx(Brain(**BRAIN), retriever=r)
    trace = Trace(question=QUESTION, method="test")
    ctx = dataclasses.replace(ctx, trace=trace)
    node = trace.root
    got = ctx.retrieve(node, QUESTION, 3)
    purposes = [c.purpose for c in node.calls]
    assert purposes and all(p.startswith("contre.") for p in purposes)
    assert {"contre.plan", "contre.verify", "contre.relevance"} <= set(purposes)
    assert node.children == []  # the caller's tree keeps its shape; the ConTRe tree is an outline in data
    outline = node.data["contre"]
    assert [c["status"] for c in outline["children"]] == ["ok", "ok", "skipped"]
    assert outline["children"][1]["relevance"]["harbour"] == {"relevant": False}
    # only the returned passages enter the caller's trace
    assert node.passage_ids == [p.id for p in got] and set(trace.passages) == set(node.passage_ids)
    assert trace.usage().calls == len(purposes) == len(caller_llm.requests) and own_llm.requests == []


def test_failed_llm_call_in_contre_still_returns_the_root_passages():
    r, base, _ = contre(fail=["What food is sold?"])
    ids = [p.id for p in r.search(QUESTION, k=10)]
    assert {p.id for p in base.search(QUESTION, 2)} <= set(ids) and "food" not in ids


class FakeIndex:
    def __init__(self):
        self.asked: list[str] = []

    def retriever(self, name: str):
        self.asked.append(name)
        return WordRetriever()


def test_factory_builds_on_the_base_retriever_and_is_registered():
    idx = FakeIndex()
    llm = ScriptedLLM(default=Brain(**BRAIN))
    r = make_contre(idx, get_llm=lambda: llm, base="bm25", max_subquestions=2, max_depth=1, node_k=3)
    assert idx.asked == ["bm25"] and isinstance(r, ConTReRetriever)
    assert r.config == TreeConfig(max_subquestions=2, max_depth=1, k=3) and r.node_k == 3
    assert r.describe()["base"] == {"name": "words"} and r.describe()["k"] == 3
    assert r.search(QUESTION, 1)
    assert RETRIEVERS.get("contre") is make_contre


def test_factory_errors_are_config_errors():
    with pytest.raises(ConfigError):
        make_contre(FakeIndex(), base="contre")
    r = make_contre(FakeIndex())  # no LLM: fails when asked to search, with a message
    with pytest.raises(ConfigError, match="needs an LLM"):
        r.search(QUESTION, 2)
    with pytest.raises(ConfigError):
        ConTReRetriever(r)


def test_each_node_retrieves_the_searched_k_by_default():
    r, _, llm = contre(k=None)
    node = Node(question=QUESTION)
    got = r.search_traced(QUESTION, 3, node=node, llm=TrackedLLM(llm))
    outline = node.data["contre"]
    assert len(got) == 3 and len(outline["passage_ids"]) == 3
    assert all(len(c["passage_ids"]) == 3 for c in outline["children"] if c["passage_ids"])
