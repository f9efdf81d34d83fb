"""The adaptive method `auto`: each forced route's control flow, the text router (now the cascade's prior) and its
file. The cascade itself: tests/methods/test_auto_cascade.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gaji.config import Settings
from gaji.errors import ConfigError
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.features import FEATURES, question_features
from gaji.methods.auto.method import Auto
from gaji.methods.auto.router import ROUTE_METHODS, ROUTES, AutoRouter, shared_auto_router
from gaji.methods.base import RunContext
from gaji.registry import METHODS
from gaji.testing import ListRetriever, any_llm
from gaji.types import Trace

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
]
Q = "Which battle came first, the Battle of Manila or the Battle of Guam?"


def ctx(llm=None, retriever=True) -> RunContext:
    return RunContext(llm=TrackedLLM(llm or any_llm(), retries=0, backoff_s=0),
                      retriever=ListRetriever(DOCS) if retriever else None, parallel=False)


def test_auto_is_registered_and_the_default_everywhere():
    assert "auto" in METHODS.names() and Settings().method == "auto"
    from gaji.serve.app import ServeConfig

    assert ServeConfig().default_method == "auto"


@pytest.mark.parametrize("route,method,calls", [("closed", "nor", 1), ("one", "oner", 1), ("chain", "ircot", None),
                                                ("tree", "toq", None)])
def test_each_route_runs_its_method_on_the_trace_and_says_so(route, method, calls):
    t = Auto(route=route).run(Q, ctx())
    assert t.method == "auto" and t.status == "ok" and t.answer
    root = t.root
    assert root.data["auto"]["route"] == route and root.data["route_method"]["method"] == method
    assert all(n.data["routed_to"] == method for n in root.walk())
    if calls is not None:
        assert len(t.calls()) == calls
    else:
        assert len(t.calls()) > 1 and root.children  # a chain of steps / a tree of sub-questions
    if route != "closed":
        assert t.retrieved_ids()
    tags = [f for f in root.display if f.tone == "tag"]
    assert tags and tags[0].label == "route"
    assert any(f.tone == "decision" and f.label == "route" for f in root.display)
    # the routed method's own description of its nodes is kept (ircot: step tags; toq: sub-question tags)
    if route in ("chain", "tree"):
        assert any(f.tone == "tag" for n in root.children for f in n.display)
    assert Trace.from_json(t.to_json()).root.data["auto"] == root.data["auto"]


def test_the_tree_route_runs_the_routed_decomposer_options():
    t = Auto(route="tree").run(Q, ctx())
    opts = t.root.data["route_method"]["options"]
    assert opts["decomposer"] == "routed" and opts["respond"] == "plain" and opts["evaluate_root"] is False
    # comparisons whose order code knows are decided by code on the tree route (the toq default stays off)
    assert opts["order_decide"] is True and opts["order_hints"] is True
    assert (opts["integrate"], opts["evaluate_final"], opts["final_search"]) == ("none", False, True)
    assert (opts["intersect"], opts["intersect_decide"], opts["intersect_split"]) == (True, True, "code")
    assert opts["reask"] is True
    assert shared_auto_router().methods == ROUTE_METHODS  # the shipped router runs what training records


def router_toward(route: str) -> AutoRouter:
    """A router whose every decision is `route` unless it is not allowed (then the next most probable)."""
    k = len(FEATURES)
    bias = np.array([3.0 - abs(ROUTES.index(r) - ROUTES.index(route)) for r in ROUTES])
    return AutoRouter(np.zeros((len(ROUTES), k)), bias, np.zeros(k), np.ones(k))


def test_the_router_decides_the_prior_and_the_trace_keeps_it(tmp_path):
    path = tmp_path / "r.json"
    router_toward("chain").save(path)
    t = Auto(router=str(path)).run(Q, ctx())
    d = t.root.data["auto"]
    assert d["route"] == "chain" and not d["forced"] and abs(sum(d["probs"].values()) - 1) < 0.01
    assert set(d["features"]) == set(FEATURES)
    assert "cascade" in t.root.data  # the prior no longer decides: the cascade answered first and looked


def test_without_an_index_only_closed_book_is_offered(tmp_path):
    path = tmp_path / "r.json"
    router_toward("tree").save(path)
    t = Auto(router=str(path)).run(Q, ctx(retriever=False))
    assert t.root.data["auto"]["route"] == "closed" and t.root.data["routed_to"] == "nor"
    with pytest.raises(ConfigError, match="needs an index"):
        Auto(route="one").solve(Trace(question=Q, method="auto"), ctx(retriever=False))


def test_bad_options_and_router_files_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="route"):
        Auto.parse_options({"route": "sideways"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "gaji-auto-router/1", "routes": ["closed"], "features": ["words"],
                               "weights": [[1.0, 2.0]], "bias": [0.0], "mean": [0.0], "scale": [1.0],
                               "methods": {"closed": {"method": "nor"}}}))
    with pytest.raises(ConfigError, match="do not match"):
        Auto.parse_options({"router": str(bad)})
    old = tmp_path / "old.json"  # a router trained with the language feature, which routing no longer computes
    old.write_text(bad.read_text().replace('["words"]', '["ko"]'))
    with pytest.raises(ConfigError, match=r"unknown feature\(s\) \['ko'\].*train-auto"):
        Auto.parse_options({"router": str(old)})
    with pytest.raises(ConfigError, match="no auto router here"):
        Auto.parse_options({"router": str(tmp_path / "missing.json")})


def test_the_shipped_router_loads_and_records_its_training():
    r = shared_auto_router("")
    assert r.routes == ROUTES and r.features == FEATURES
    assert r.meta["split"]["kind"].startswith("k-fold") and "held_out" in r.meta


def test_features_read_english_and_korean_questions():
    en = question_features("Who was born first, Park Chan-wook or Bong Joon-ho?", p_compare=0.9)
    assert en["compare"] == 1 and en["names"] == 2 and en["who"] == 1 and en["p_compare"] == 0.9
    ko = question_features("영화 『올드보이』 감독의 고향은 어디인가요?", p_compare=0.1)
    assert ko["where"] == 1 and ko["nesting"] >= 1 and ko["names"] >= 1
    assert list(en) == list(FEATURES) and "ko" not in FEATURES


# a Korean question and its English translation: the router must not learn the language from the features
PAIRS = [
    ("훈민정음은 몇 년에 반포되었나요?", "In what year was Hunminjeongeum promulgated?"),
    ("한라산의 높이는 얼마인가요?", "How high is Hallasan?"),
    ("영화 『올드보이』 감독의 고향은 어디인가요?", "Where is the hometown of the director of the film Oldboy?"),
    ("박찬욱과 봉준호 중 누가 먼저 태어났나요?", "Who was born first, Park Chan-wook or Bong Joon-ho?"),
    ("명량 해전을 지휘한 장군은 누구인가요?", "Who was the admiral who commanded the Battle of Myeongnyang?"),
    ("세종이 즉위한 해에 태어난 사람은 누구인가요?", "Who was born in the year Sejong took the throne?"),
]


@pytest.mark.parametrize("ko, en", PAIRS)
def test_a_korean_question_and_its_translation_read_alike(ko, en):
    fk, fe = question_features(ko, p_compare=0.5), question_features(en, p_compare=0.5)
    for name in ("compare", "yes_no", "when", "who", "where", "number", "which", "digits"):
        assert fk[name] == fe[name], (name, ko, en)
    assert abs(fk["words"] - fe["words"]) < 0.45  # within a factor of about 1.5 in words
    assert abs(fk["names"] - fe["names"]) <= 1 and abs(fk["nesting"] - fe["nesting"]) <= 1


def test_korean_particles_are_not_cues():
    f = question_features("훈민정음은 몇 년에 반포되었나요?", p_compare=0.7)
    # "몇 년" asks when (not how many), "은" is a topic particle (not a relative clause), and one name with no
    # comparison cue has nothing to compare (the shape router's P(compare) does not count)
    assert f["when"] == 1 and f["number"] == 0 and f["nesting"] == 0 and f["p_compare"] == 0.0
    assert question_features("한라산의 높이는 몇 미터인가요?", p_compare=0.5)["number"] == 1


def test_the_shipped_router_routes_a_korean_question_like_its_translation():
    r = shared_auto_router("")
    for ko, en in PAIRS:
        pk, pe = r.decide(ko).probs, r.decide(en).probs
        assert max(abs(pk[x] - pe[x]) for x in ROUTES) < 0.1, (ko, pk, en, pe)
