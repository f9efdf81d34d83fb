from gaji.types import LLMCall, Node, Passage, Trace


def make_trace() -> Trace:
    t = Trace(question="세종은 언제 태어났나?", method="toq", lang="ko", model="m")
    child = t.root.add(Node(question="[ANS_1]의 출생 연도는?", kind="sub", filled_question="세종의 출생 연도는?"))
    ids = t.remember([Passage(id="p1", doc_id="d1", text="세종은 1397년에 태어났다.", title="세종", score=1.5, rank=1, source="bm25")])
    child.passage_ids = ids
    child.relevance = {"p1": {"relevant": True, "span": "1397년"}}
    child.scores = {"semantic_coherence": 9, "answerability": 80, "overall": 8.5, "response_validity": True}
    child.calls.append(LLMCall(model="m", purpose="answer", prompt_tokens=100, completion_tokens=7, cached_tokens=40, wall_ms=12.5))
    t.root.calls.append(LLMCall(model="m", purpose="decompose", prompt_tokens=50, completion_tokens=20, cache_hit=True))
    t.answer, t.citations = "1397년", ["p1"]
    return t


def test_trace_json_round_trip_is_lossless():
    t = make_trace()
    s = t.to_json()
    t2 = Trace.from_json(s)
    assert t2.to_dict() == t.to_dict()
    assert t2.root.children[0].calls[0].cached_tokens == 40
    assert "세종" in s  # not escaped: traces stay readable


def test_usage_counts_every_call_in_the_tree():
    u = make_trace().usage()
    assert (u.calls, u.prompt_tokens, u.completion_tokens, u.cache_hits) == (2, 150, 27, 1)
    assert u.total_tokens == 177


def test_retrieved_ids_are_unique_in_tree_order():
    t = make_trace()
    t.root.passage_ids = ["p0", "p1"]
    assert t.retrieved_ids() == ["p0", "p1"]


def test_node_levels_follow_parents():
    root = Node(question="q")
    c = root.add(Node(question="c"))
    g = c.add(Node(question="g"))
    assert (root.level, c.level, g.level) == (0, 1, 2)
    assert [n.question for n in root.walk()] == ["q", "c", "g"]


def test_stop_and_display_round_trip_typed():
    from gaji.types import Fact, Stop

    t = make_trace()
    child = t.root.children[0]
    child.stop = Stop(False, reason="P(sufficient) 0.12 < 0.5", by="classifier", score=0.12, detail={"ms": 1.5})
    child.display = [Fact("step", "#1", "tag"), Fact("go on", "P(sufficient) 0.12 < 0.5", "decision")]
    d = t.to_dict()
    assert d["root"]["stop"] is None and d["root"]["children"][0]["stop"]["by"] == "classifier"
    assert d["root"]["children"][0]["display"][0] == {"label": "step", "text": "#1", "tone": "tag"}
    back = Trace.from_json(t.to_json())
    assert back.to_dict() == d and back.root.children[0].stop == child.stop
    assert back.root.children[0].display == child.display and isinstance(back.root.children[0].display[1], Fact)


def test_fact_tones_are_checked_and_an_unknown_stored_one_reads_as_a_note():
    import pytest

    from gaji.types import Fact

    with pytest.raises(ValueError, match="tone"):
        Fact("x", "y", "shout")
    assert Fact.from_dict({"label": "x", "text": "y", "tone": "shout"}).tone == "note"


def test_location_round_trips_and_labels():
    from gaji.types import Chunk, Location, Passage, Trace, format_location

    loc = Location(file="예산.xlsx", sheet="2024년", rows=[2, 5], sha256="ab" * 32)
    p = Passage(id="예산.xlsx#sheet1", doc_id="예산.xlsx#sheet1", text="부서: 모바일사업부", location=loc)
    t = Trace(question="q", method="oner", passages={p.id: p}, citations=[p.id])
    back = Trace.from_json(t.to_json())
    assert back.passages[p.id].location == loc
    assert format_location(back.passages[p.id]) == "예산.xlsx · 2024년 · rows 2–5"
    assert Location(file="a.pdf", page=3).label() == "a.pdf · p. 3"
    assert Location(file="d.docx", section=["1. 개요", "1.1 배경"]).label() == "d.docx · 1. 개요 › 1.1 배경"
    old = Passage.from_dict({"id": "x", "doc_id": "x", "text": "t"})  # traces written before locations
    assert old.location is None and format_location(old) == ""
    c = Chunk.from_dict(Chunk(id="c", doc_id="d", text="t", location=Location(file="f.md")).to_dict())
    assert c.location == Location(file="f.md")


def test_usage_by_purpose_counts_each_component_and_round_trips():
    t = make_trace()
    t.root.calls.append(LLMCall(model="m", purpose="answer", prompt_tokens=10, completion_tokens=1))
    by = t.usage_by_purpose()
    assert list(by) == ["decompose", "answer"]  # the order calls were made in, tree order
    assert (by["answer"].calls, by["answer"].total_tokens) == (2, 118) and by["decompose"].cache_hits == 1
    assert sum(u.total_tokens for u in by.values()) == t.usage().total_tokens
    d = t.to_dict()
    assert d["usage_by_purpose"]["answer"]["total_tokens"] == 118


def test_explanation_round_trips_and_old_traces_have_none():
    t = make_trace()
    t.explanation = "세종은 1397년에 태어났다."
    assert Trace.from_json(t.to_json()).explanation == t.explanation
    d = t.to_dict()
    del d["explanation"]
    assert Trace.from_dict(d).explanation == ""
