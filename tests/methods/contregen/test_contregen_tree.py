"""ConTReGen top-down stage: planning, two-step verification, recursion, depth limit, failures."""
from __future__ import annotations

from contregen_fakes import QUESTION, Brain, WordRetriever, by_question, make_ctx

from gaji.methods.contregen.method import ConTReGen
from gaji.methods.contregen.tree import FacetNode, rank_union
from gaji.types import Passage

MUSIC_Q = "What music is played?"
FOOD_Q = "What is sold at the stalls?"
MARS_Q = "What is the weather on Mars?"
MUSIC_QUERY = "Aurora Festival music choirs drums"
FOOD_QUERY = "Norvik smoked fish food stalls"
DRUM_Q = "Who makes the drums?"
DRUM_QUERY = "Norvik drum makers festival choirs"


def festival_brain(**kw) -> Brain:
    return Brain(
        plans={QUESTION: [MUSIC_Q, FOOD_Q, MARS_Q], MUSIC_QUERY: [DRUM_Q]},
        verdicts={MUSIC_Q: MUSIC_QUERY, FOOD_Q: FOOD_QUERY, MARS_Q: None, DRUM_Q: DRUM_QUERY},
        irrelevant={"Norvik Harbour"},
        **kw,
    )


def run(brain, **opts):
    ctx, llm = make_ctx(brain)
    opts.setdefault("k", 2)
    trace = ConTReGen(**opts).run(QUESTION, ctx)
    return trace, llm, ctx


def test_plan_verify_recurse_and_synthesise():
    trace, llm, ctx = run(festival_brain(), max_subquestions=3, max_depth=2)
    assert trace.status == "ok", trace.error
    nodes = by_question(trace.root)
    root = trace.root
    assert [c.question for c in root.children] == [MUSIC_Q, FOOD_Q, MARS_Q]
    # the planner was shown the root's passages, and one plan call went on the root
    assert [c.purpose for c in root.calls].count("plan") == 1

    # step (i) rejected the Mars question: visible, skipped, with its reason, never searched
    mars = nodes[MARS_Q]
    assert mars.status == "skipped" and mars.data["verdict"] == "not needed" and mars.data["reason"]
    assert mars.passage_ids == [] and MARS_Q not in ctx.retriever.queries

    # verified sub-questions were rewritten into self-contained queries and searched with them
    music, food = nodes[MUSIC_Q], nodes[FOOD_Q]
    assert music.filled_question == MUSIC_QUERY and music.query == MUSIC_QUERY
    assert food.query == FOOD_QUERY and FOOD_QUERY in ctx.retriever.queries

    # recursion: the music node was planned again; its child is at depth 2 and was not planned (depth limit)
    drum = nodes[DRUM_Q]
    assert drum.level == 2 and drum.status == "ok" and "drums" in drum.passage_ids
    assert "plan" not in [c.purpose for c in drum.calls]
    assert [c.purpose for c in food.calls].count("plan") == 1 and food.children == []  # empty plan: a leaf

    # bottom-up: leaves summarise, the inner node merges, the root writes the final answer with citations
    assert drum.answer.startswith("SUMMARY of " + DRUM_QUERY)
    assert food.answer.startswith("SUMMARY of " + FOOD_QUERY)
    assert music.answer.startswith("MERGE of " + MUSIC_QUERY)
    assert trace.answer.startswith("FINAL from 2 notes") and trace.answer == root.answer
    assert trace.citations and all(c in trace.passages for c in trace.citations)
    verified = root.data["verified_passage_ids"]
    assert "drums" in verified and "harbour" not in verified
    assert set(trace.citations) <= set(verified)
    # every call is counted in the trace
    assert trace.usage().calls == len(llm.requests)


def test_relevance_filter_drops_passages_and_records_verdicts():
    trace, _, _ = run(festival_brain(), max_subquestions=3, max_depth=1)
    food = by_question(trace.root)[FOOD_Q]
    # the food query also retrieves the harbour passage (Norvik, smoked fish); the judge drops it
    assert food.passage_ids == ["food", "harbour"] and set(food.relevance) == set(food.passage_ids)
    for pid, verdict in food.relevance.items():
        assert verdict["relevant"] == (pid != "harbour")
    assert "harbour" not in trace.root.data["verified_passage_ids"]


def test_subquestion_with_no_relevant_passage_is_skipped_and_not_expanded():
    brain = Brain(
        plans={QUESTION: ["Where do the ships go?"], "Norvik harbour ships timber": ["never asked"]},
        verdicts={"Where do the ships go?": "Norvik harbour ships timber"},
        irrelevant={"Norvik Harbour", "Aurora Festival", "Festival Food", "Drum Makers", "Festival Music"},
    )
    trace, _, _ = run(brain, max_depth=2)
    ships = by_question(trace.root)["Where do the ships go?"]
    assert ships.status == "skipped" and "relevant" in ships.data["reason"]
    assert ships.passage_ids and not any(v["relevant"] for v in ships.relevance.values())
    assert ships.children == [] and ships.answer == ""
    assert trace.answer.startswith("FINAL from 0 notes")


def test_depth_limit():
    trace, _, _ = run(festival_brain(), max_subquestions=3, max_depth=1)
    assert max(n.level for n in trace.root.walk()) == 1
    assert all("plan" not in [c.purpose for c in c_.calls] for c_ in trace.root.children)
    # depth 0 is retrieve-then-generate: one final call, no planning
    trace0, _, _ = run(festival_brain(), max_depth=0)
    assert trace0.root.children == [] and [c.purpose for c in trace0.calls()] == ["final"]


def test_repeated_subquestions_are_skipped_without_a_call():
    brain = Brain(plans={QUESTION: [MUSIC_Q, "what music is played", QUESTION, FOOD_Q]},
                  verdicts={MUSIC_Q: MUSIC_QUERY, FOOD_Q: FOOD_QUERY})
    trace, _, _ = run(brain, max_subquestions=4, max_depth=1)
    kids = trace.root.children
    # the planner's own case-/punctuation-insensitive repeat is dropped; a repeat of the question is skipped
    assert [c.question for c in kids] == [MUSIC_Q, QUESTION, FOOD_Q]
    repeat = kids[1]
    assert repeat.status == "skipped" and repeat.data["verdict"] == "duplicate" and repeat.calls == []
    assert [k.status for k in kids] == ["ok", "skipped", "ok"]


def test_a_child_repeating_its_parents_rewritten_query_is_skipped():
    brain = Brain(plans={QUESTION: [MUSIC_Q], MUSIC_QUERY: [MUSIC_QUERY.lower() + "?"]}, verdicts={MUSIC_Q: MUSIC_QUERY})
    trace, _, _ = run(brain, max_subquestions=2, max_depth=2)
    music = by_question(trace.root)[MUSIC_Q]
    assert [(c.status, c.data["verdict"]) for c in music.children] == [("skipped", "duplicate")]


def test_plan_is_bounded_by_s():
    from gaji.methods.contregen.planner import plan_schema

    schema = plan_schema(3)["properties"]["subquestions"]
    assert schema["maxItems"] == 3 and schema["items"]["maxLength"] > 0
    # a backend that ignores the schema and proposes more than S fails the plan: the node is marked
    # failed, and the run still answers from the root's passages
    trace, _, _ = run(festival_brain(), max_subquestions=2, max_depth=1)
    assert trace.root.status == "failed" and "JSON" in trace.root.error
    assert trace.root.children == [] and trace.answer.startswith("FINAL from 0 notes")
    assert trace.status == "failed"


def test_llm_failure_on_one_node_marks_it_failed_and_the_run_still_answers():
    trace, _, _ = run(festival_brain(fail=["Proposed sub-question: " + FOOD_Q]), max_subquestions=3, max_depth=2)
    nodes = by_question(trace.root)
    food = nodes[FOOD_Q]
    assert food.status == "failed" and "failed after" in food.error
    assert [(c.purpose, c.ok, c.attempts) for c in food.calls] == [("verify", False, 3)]  # retried, then recorded
    assert nodes[MUSIC_Q].status == "ok" and nodes[DRUM_Q].status == "ok"
    assert trace.status == "ok" and trace.answer.startswith("FINAL from 1 notes")


def test_failed_summary_passes_its_childrens_notes_up():
    trace, _, _ = run(festival_brain(fail=["Sub-question: " + MUSIC_QUERY]), max_subquestions=3, max_depth=2)
    nodes = by_question(trace.root)
    assert nodes[MUSIC_Q].status == "failed" and nodes[MUSIC_Q].answer == ""
    # the root sees the drum summary (music's child) in music's place, plus the food summary
    assert trace.answer.startswith("FINAL from 2 notes")


def test_failed_planning_keeps_the_node_as_a_leaf():
    trace, _, _ = run(festival_brain(fail=["Question: " + MUSIC_QUERY]), max_subquestions=3, max_depth=2)
    music = by_question(trace.root)[MUSIC_Q]
    assert music.status == "failed" and music.children == []
    assert music.answer.startswith("SUMMARY of")  # its verified passages still count
    assert trace.status == "ok" and trace.answer.startswith("FINAL from 2 notes")


def test_failed_final_call_falls_back_to_the_notes():
    trace, _, _ = run(festival_brain(fail=["comprehensive"]), max_subquestions=3, max_depth=1)
    assert trace.status == "failed" and trace.root.status == "failed" and trace.error
    assert "SUMMARY of " + FOOD_QUERY in trace.answer


def test_rank_union_fuses_ranks_across_nodes():
    def p(i, r):
        return Passage(id=i, doc_id=i, text=i, rank=r)

    root = FacetNode(node=None, passages=[p("a", 1), p("b", 2)])  # type: ignore[arg-type]
    root.children = [FacetNode(node=None, passages=[p("b", 1), p("c", 2)], parent=root),  # type: ignore[arg-type]
                     FacetNode(node=None, passages=[p("d", 1)], parent=root)]  # type: ignore[arg-type]
    # b: found twice; a and d: rank 1 once (a first: breadth-first tie order); c: rank 2 once
    assert [x.id for x in rank_union(root)] == ["b", "a", "d", "c"]


def test_retriever_word_overlap_fake():
    r = WordRetriever()
    assert [p.id for p in r.search("drum makers", 2)] == ["drums", "festival"]
