"""Method descriptions (Node.display): every registered method describes its nodes, the trace JSON
carries the description, and the CLI tree shows it without knowing the method."""
from __future__ import annotations

import io
import itertools
import json
import re
from typing import Any

import pytest
from rich.console import Console

from gaji.cli.render_tree import render_tree
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.describe import stop_facts
from gaji.methods.trace_display import fill_display
from gaji.registry import METHODS
from gaji.testing import ListRetriever, any_llm
from gaji.types import Fact, Node, Stop, Trace

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("leyte", "Battle of Leyte", "The Battle of Leyte began on 17 October 1944."),
]
QUESTION = "Which battle came first, the Battle of Manila or the Battle of Guam?"


def run_method(name: str) -> Trace:
    cls = METHODS.get(name)
    ctx = RunContext(llm=TrackedLLM(any_llm(), retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)
    return cls().run(QUESTION, ctx)


def rendered(trace: Trace) -> str:
    con = Console(record=True, width=400, color_system=None, file=io.StringIO())
    con.print(render_tree(trace))
    return con.export_text()


@pytest.mark.parametrize("name", METHODS.names())
def test_every_method_describes_its_nodes_and_the_json_and_the_cli_show_it(name):
    t = run_method(name)
    cls = METHODS.get(name)
    nodes = list(t.root.walk())
    assert all(n.display == cls.describe(n, t.lang) for n in nodes)  # filled when the run ended
    back = Trace.from_json(t.to_json())
    assert [n.display for n in back.root.walk()] == [n.display for n in nodes]
    assert [n.stop for n in back.root.walk()] == [n.stop for n in nodes]
    out = rendered(back)
    for n in nodes:
        for f in n.display:
            assert f.text in out, (name, f)
            if f.tone != "tag":
                assert f"{f.label}: {f.text}" in out, (name, f)


def test_the_methods_that_decide_something_say_so():
    """Not a vacuous loop above: the tree methods describe their decisions (split, stop, verdict)."""
    labels = {name: {f.label for n in run_method(name).root.walk() for f in n.display}
              for name in ("toq", "chain", "contregen", "ircot")}
    assert {"split", "sub-question", "type"} <= labels["toq"] and "stop" in labels["chain"]
    assert "verdict" in labels["contregen"] and "step" in labels["ircot"]


def test_labels_follow_the_trace_language():
    node = Node(stop=Stop(True, reason="최대 깊이", by="max_depth"))
    node.data.update(decomposition="bridging", index=2, type="bridging", depends_on=[1])
    facts = METHODS.get("toq").describe(node, "ko")
    assert Fact("하위 질문", "#2", "tag") in facts and Fact("분해", "bridging", "decision") in facts
    assert Fact("의존", "#1 필요", "tag") in facts and Fact("멈춤", "최대 깊이", "decision") in facts


def test_a_stop_without_anything_to_say_is_not_shown():
    assert stop_facts(Node(stop=Stop(False, by="none")), "en") == []
    assert stop_facts(Node(stop=Stop(False, reason="P(sufficient) 0.12 < 0.5", by="classifier", score=0.12)), "en") \
        == [Fact("go on", "P(sufficient) 0.12 < 0.5", "decision")]
    assert stop_facts(Node(stop=Stop(True, by="evaluator", score=8.0)), "ko") == [Fact("멈춤", "evaluator (score 8.0)", "decision")]
    assert stop_facts(Node(), "en") == []


def test_a_version_1_trace_is_read_into_the_new_shape_and_described():
    """Traces stored by earlier versions (benchmarks/results) keep a ToQ stop string or a chain stop dict
    in data; they load as Node.stop, and the renderer describes them with the trace's method."""
    old = Trace(question=QUESTION, method="toq", lang="en").to_dict()
    old["version"] = 1
    old["root"].pop("stop")
    old["root"].pop("display")
    old["root"]["data"] = {"stop": "max depth", "decomposition": "bridging"}
    step = {"kind": "step", "question": "q1", "data": {"step": 1, "stop": {"stop": True, "policy": "classifier",
                                                                            "score": 0.9, "threshold": 0.5, "ms": 1.0}}}
    old["root"]["children"] = [step]
    t = Trace.from_dict(old)
    assert t.root.stop == Stop(True, reason="max depth") and "stop" not in t.root.data
    assert t.root.children[0].stop == Stop(True, by="classifier", score=0.9, detail={"threshold": 0.5, "ms": 1.0})
    assert t.version == 2 and Trace.from_json(t.to_json()).to_dict() == t.to_dict()
    out = rendered(t)
    assert "split: bridging" in out and "stop: max depth" in out


def test_fill_display_describes_only_bare_nodes_of_a_known_method():
    t = Trace(question="q", method="toq")
    t.root.stop = Stop(True, reason="node budget")
    kept = t.root.add(Node(question="c", display=[Fact("mine", "kept")]))
    fill_display(t)
    assert t.root.display == [Fact("stop", "node budget", "decision")] and kept.display == [Fact("mine", "kept")]
    unknown = Trace(question="q", method="not-registered")
    unknown.root.stop = Stop(True, reason="x")
    assert fill_display(unknown).root.display == []


RENDERERS = ("gaji/cli/render_tree.py", "gaji/serve/static/app.js")
# trace facts only their own methods write (the renderers must not read them); the framework's own
# retrieval facts (passage_scores, retrieval_ms, written by RunContext.retrieve) are not method-specific
# ("explanation" is not listed: it is also Trace.explanation, the typed sentence behind every answer, which the
# renderers show; ToQ's node data["explanation"] stays out of reach through the data-reads check below)
METHOD_KEYS = ("decomposition", "route", "verdict", "topic_cos", "reason", "depends_on", "slot_answers",
               "cited", "waves", "repeat_of", "stop_reason", "closed_book", "first_scores",
               "eval_reason", "verified_passage_ids", "forced_final", "p_compare", "reasoning", "iteration")


@pytest.mark.parametrize("path", RENDERERS)
def test_the_renderers_know_no_method(path):
    from pathlib import Path

    src = (Path(__file__).resolve().parents[2] / path).read_text(encoding="utf-8")
    for name in METHODS.names():
        assert not re.search(rf"\b{re.escape(name)}\b", src), f"{path} names the method {name!r}"
    for key in METHOD_KEYS:
        assert not re.search(rf"\b{key}\b", src), f"{path} reads the method key {key!r}"
    # node data is read for the framework's retrieval facts only
    reads = set(re.findall(r"\.data\.(\w+)", src))
    reads |= set(re.findall(r"(?<![\w.])\(\s*\w+\.data\s*\|\|\s*\{\}\s*\)\s*\.\s*(\w+)", src))  # (n.data || {}).key
    reads |= set(re.findall(r"\.data\[\s*[\"'](\w+)", src)) | set(re.findall(r"\.data\.get\(\s*[\"'](\w+)", src))
    assert reads <= {"passage_scores", "retrieval_ms"}, reads
