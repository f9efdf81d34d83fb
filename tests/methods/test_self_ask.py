"""Self-Ask control flow: follow-ups answered from retrieval, final answer, forced final answer."""
import pytest

from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.common import interleave_ranked
from gaji.methods.self_ask import SelfAsk, parse_move, parse_reader
from gaji.testing import ListRetriever
from gaji.types import Passage

DOCS = [
    ("lg", "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides."),
    ("mr", "Mack Rides", "Mack Rides is a German manufacturer based in Waldkirch."),
    ("x", "Other", "Unrelated text."),
]
Q = "Which country is the manufacturer of Lost Gravity from?"


def run(chain, reader, question=Q, **opts):
    """chain: replies to the completion calls (the chain); reader: replies to the follow-up reader (chat)."""
    chain_it, reader_it = iter(chain), iter(reader)
    llm = ScriptedLLM(default=lambda req: next(reader_it) if req.is_chat else next(chain_it))
    r = ListRetriever(DOCS)
    t = SelfAsk(k=2, **opts).run(question, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=r))
    return t, llm, r


def test_follow_up_loop_then_final_answer():
    t, llm, r = run(
        [" Yes.\nFollow up: Who built Lost Gravity?\n", "Follow up: Where is Mack Rides from?\n",
         "So the final answer is: Germany\n"],
        ["Answer: Mack Rides\nSources: [1]", "Answer: Germany\nSources: [2]"],
    )
    assert t.status == "ok", t.error
    assert t.answer == "Germany"
    fus = t.root.children
    assert [n.kind for n in fus] == ["followup", "followup"]
    assert [n.question for n in fus] == ["Who built Lost Gravity?", "Where is Mack Rides from?"]
    assert r.queries == ["Who built Lost Gravity?", "Where is Mack Rides from?"]
    assert [n.answer for n in fus] == ["Mack Rides", "Germany"]
    # the intermediate answer is inserted in the chain the model continues
    completions = [q for q in llm.requests if not q.is_chat]
    assert completions[1].prompt.endswith(
        f"Question: {Q}\nAre follow up questions needed here: Yes.\nFollow up: Who built Lost Gravity?\n"
        "Intermediate answer: Mack Rides\n")
    assert "Intermediate answer:" in completions[0].stop
    assert t.root.data["reasoning"].endswith("Intermediate answer: Germany\nSo the final answer is: Germany")
    assert t.citations == [fus[0].passage_ids[0], fus[1].passage_ids[1]]
    assert t.usage().calls == 5


def test_max_followups_forces_the_final_answer():
    t, llm, r = run(
        [" Yes.\nFollow up: A?\n", "Follow up: B?\n", "Follow up: C?\n", " Germany"],
        ["Answer: a", "Answer: b"], max_followups=2,
    )
    assert [n.question for n in t.root.children] == ["A?", "B?"]
    assert t.answer == "Germany" and t.root.data["forced_final"] is True
    last = [q for q in llm.requests if not q.is_chat][-1]
    assert last.prompt.endswith("Follow up: B?\nIntermediate answer: b\nSo the final answer is:")
    assert "C?" not in last.prompt.split("\n\n\n")[-1]


def test_no_follow_up_needed_and_unusable_output():
    t, _, r = run([" No.\nSo the final answer is: Germany.\n"], [])
    assert t.answer == "Germany" and t.root.children == [] and r.queries == []
    t, llm, _ = run([" I am not sure", "Germany"], [])
    assert t.answer == "Germany" and t.root.data["forced_final"] is True
    assert llm.requests[-1].prompt.endswith("Are follow up questions needed here: No.\nSo the final answer is:")


def test_korean_markers():
    t, llm, r = run(
        [" 예.\n추가 질문: 로스트 그래비티는 누가 만들었나?\n", "따라서 최종 정답은: 독일\n"],
        ["답: 맥 라이드\n근거: [1]"], question="로스트 그래비티를 만든 회사는 어느 나라 회사인가?",
    )
    assert t.lang == "ko" and t.answer == "독일"
    assert r.queries == ["로스트 그래비티는 누가 만들었나?"]
    prompts = [q.prompt for q in llm.requests if not q.is_chat]
    assert "추가 질문이 필요한가요:" in prompts[0] and "중간 답변: 맥 라이드\n" in prompts[1]
    assert "질문: 로스트 그래비티는 누가 만들었나?" in [q for q in llm.requests if q.is_chat][0].messages[1]["content"]


def test_follow_up_failure_marks_node_and_trace():
    llm = ScriptedLLM(default=lambda req: (_ for _ in ()).throw(RuntimeError("reader down")) if req.is_chat
                      else " Yes.\nFollow up: Who?\n")
    t = SelfAsk(k=1).run(Q, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=ListRetriever(DOCS)))
    assert t.status == "failed" and "reader down" in t.error
    assert t.root.children[0].status == "failed"


def test_parsers():
    assert parse_move(" Yes.\nFollow up: X?\nFollow up: Y?").follow_up == "X?"
    assert parse_move("So the final answer is: 42\nFollow up: Z").final == "42"
    m = parse_move("gibberish")
    assert m.follow_up is None and m.final is None
    ps = [Passage(id=i, doc_id=i, text="t") for i in ("a", "b")]
    assert parse_reader("Answer: Seoul.\nSources: 2", ps) == ("Seoul", ["b"])
    assert parse_reader("Seoul", ps) == ("Seoul", [])


def test_long_style_writes_a_cited_paragraph_from_the_follow_ups_passages():
    paragraph = "Lost Gravity was built by Mack Rides [1], a German company [2]."
    t, llm, r = run(
        [" Yes.\nFollow up: Who built Lost Gravity?\n", "Follow up: Where is Mack Rides from?\n",
         "So the final answer is: Germany\n"],
        ["Answer: Mack Rides\nSources: [1]", "Answer: unknown", paragraph],
        style="long", words=40, long_passages=3,
    )
    assert t.status == "ok", t.error
    assert t.answer == paragraph and t.root.data["short_answer"] == "Germany"
    writer = [q for q in llm.requests if q.is_chat][-1]
    system, user = writer.messages[0]["content"], writer.messages[1]["content"]
    assert "about 40 words" in system
    # rank 1 of each follow-up, then rank 2, no repeats, cut at long_passages
    fus = t.root.children
    order = [fus[0].passage_ids[0], fus[1].passage_ids[0], fus[0].passage_ids[1], fus[1].passage_ids[1]]
    expected = list(dict.fromkeys(order))[:3]
    shown = [pid for pid in ("lg", "mr", "x") if f"({dict((d[0], d[1]) for d in DOCS)[pid]})" in system]
    assert sorted(shown) == sorted(expected)
    # notes: the answered follow-up, not the one the reader could not answer
    assert "- Who built Lost Gravity? -> Mack Rides" in user and "Where is Mack Rides from?" not in user
    assert user.endswith(f"Question: {Q}")
    assert t.citations and set(t.citations) <= set(expected)
    assert t.usage().calls == 6  # 3 chain steps, 2 readers, the writer; no forced short answer


def test_long_style_without_follow_ups_retrieves_with_the_question():
    t, llm, r = run([" No.\nSo the final answer is: Germany.\n"], ["Mack Rides is German [1]."], style="long")
    assert r.queries == [Q] and t.root.data["question_retrieval"] is True
    assert t.answer == "Mack Rides is German [1]." and t.citations == [t.root.passage_ids[0]]


def test_interleave_and_style_check():
    a, b, c = (Passage(id=i, doc_id=i, text=i) for i in "abc")
    assert [p.id for p in interleave_ranked([[a, b], [b, c]], 10)] == ["a", "b", "c"]
    assert [p.id for p in interleave_ranked([[a, b], [c]], 2)] == ["a", "c"]
    assert interleave_ranked([], 5) == []
    with pytest.raises(ConfigError, match="style must be short or long"):
        SelfAsk(style="paragraph")
