"""Follow-up questions: rewritten into standalone ones from the conversation, as a "rewrite" node of the
trace, through the run's TrackedLLM (control flow with the scripted LLM; the real model is measured by
`gaji bench followups`)."""
from __future__ import annotations

import re

from gaji.api import Gaji
from gaji.config import Settings
from gaji.conversation.rewrite import parse_rewrite, rewrite_followup, rewrite_messages
from gaji.conversation.turns import Turn
from gaji.llm.base import Request
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.testing import ListRetriever

DOCS = [
    ("ko-gyeongbokgung", "경복궁", "경복궁은 서울 종로구에 있는 조선 왕조의 법궁으로 1395년에 창건되었다."),
    ("ko-hallasan", "한라산", "한라산은 제주특별자치도에 있는 화산으로 높이는 1,947미터이다. 정상에는 백록담이라는 화구호가 있다."),
    ("en-hangul", "Hangul", "Hangul was created in 1443 under King Sejong the Great."),
    ("en-sejong", "Sejong the Great", "Sejong the Great was born in 1397 in Hanseong and died in 1450."),
]

# what the model would write: follow-up (the last line of the rewrite prompt) -> standalone question
REWRITES = {
    "그럼 두 번째는 높이가 얼마야?": "한라산의 높이는 얼마야?",
    "거기 정상에 있는 호수 이름은?": "한라산 정상에 있는 호수 이름은?",
    "When was he born?": "When was King Sejong born?",
    "Where did he die?": "Where did King Sejong die?",
}
ANSWERS = {
    "조선의 법궁과 한라산은 각각 어디에 있어?": "경복궁은 서울, 한라산은 제주도",
    "한라산의 높이는 얼마야?": "1,947미터",
    "한라산 정상에 있는 호수 이름은?": "백록담",
    "Who created Hangul?": "King Sejong",
    "When was King Sejong born?": "1397",
}
_LAST = re.compile(r"(?:Last question|마지막 질문): (.+)\n")


def last_user(req: Request) -> str:
    return str(req.messages[-1]["content"]) if req.messages else str(req.prompt)


def reply(req: Request) -> str:
    text = last_user(req)
    m = _LAST.search(text)
    if m:  # the rewrite prompt
        return REWRITES.get(m.group(1), m.group(1))
    q = re.search(r"(?:Question|질문): (.+)", text).group(1).strip()
    return ANSWERS.get(q, "unknown")


def make_gaji(llm: ScriptedLLM) -> Gaji:
    return Gaji(llm=llm, retriever=ListRetriever(DOCS), settings=Settings(retries=0, k=2))


def ask_turns(g: Gaji, questions: list[str]) -> list:
    history: list[Turn] = []
    traces = []
    for q in questions:
        t = g.ask(q, method="oner", history=history)
        conv = t.root.data.get("conversation") or {}
        history.append(Turn(question=q, answer=t.answer, standalone=conv.get("standalone", "")))
        traces.append(t)
    return traces


def test_three_turn_korean_conversation_resolves_its_follow_ups():
    llm = ScriptedLLM([(r".", reply)])
    t1, t2, t3 = ask_turns(make_gaji(llm), ["조선의 법궁과 한라산은 각각 어디에 있어?",
                                              "그럼 두 번째는 높이가 얼마야?", "거기 정상에 있는 호수 이름은?"])
    # the first question is never rewritten: no rewrite node, no rewrite call
    assert [n.kind for n in t1.root.walk()] == ["root"] and t1.usage().calls == 1
    assert (t2.question, t2.answer) == ("한라산의 높이는 얼마야?", "1,947미터")
    assert (t3.question, t3.answer) == ("한라산 정상에 있는 호수 이름은?", "백록담")
    for t, asked in ((t2, "그럼 두 번째는 높이가 얼마야?"), (t3, "거기 정상에 있는 호수 이름은?")):
        rw = t.root.children[0]
        assert (rw.kind, rw.question, rw.filled_question, rw.level) == ("rewrite", asked, t.question, 1)
        assert [c.purpose for c in rw.calls] == ["rewrite"] and rw.calls[0].ok
        assert t.root.data["conversation"]["asked"] == asked
        # counted like every other call: the trace's usage holds the rewrite and the answer
        assert t.usage().calls == 2 and t.usage().prompt_tokens == sum(c.prompt_tokens for c in t.calls())
        assert t.root.query == t.question  # the search used the standalone question
    rewrite_prompts = [last_user(r) for r in llm.requests if _LAST.search(last_user(r))]
    assert len(rewrite_prompts) == 2
    # Korean follow-ups get the Korean prompt; the third sees the second turn as resolved, not as asked
    assert all(p.startswith("대화:") for p in rewrite_prompts)
    assert "질문2: 한라산의 높이는 얼마야?\n답2: 1,947미터" in rewrite_prompts[1]
    assert "그럼 두 번째는" not in rewrite_prompts[1].split("마지막 질문")[0]


def test_english_follow_up_gets_the_english_prompt():
    llm = ScriptedLLM([(r".", reply)])
    _, t2 = ask_turns(make_gaji(llm), ["Who created Hangul?", "When was he born?"])
    assert t2.question == "When was King Sejong born?" and t2.answer == "1397"
    prompt = [last_user(r) for r in llm.requests if "Last question" in last_user(r)][0]
    assert prompt.startswith("Conversation:\nQ1: Who created Hangul?\nA1: King Sejong")
    system = [r for r in llm.requests if "Last question" in last_user(r)][0].messages[0]["content"]
    assert "rewrite the last question" in system


def test_a_failed_rewrite_answers_the_question_as_asked():
    llm = ScriptedLLM([(r"Last question", RuntimeError("model gone")), (r".", reply)])
    g = Gaji(llm=llm, retriever=ListRetriever(DOCS), settings=Settings(retries=0))
    t = g.ask("When was King Sejong born?", method="oner", history=[Turn("Who created Hangul?", "King Sejong")])
    rw = t.root.children[0]
    assert rw.status == "failed" and "answered as asked" in rw.error and not rw.calls[0].ok
    assert t.question == "When was King Sejong born?" and t.answer == "1397" and t.status == "ok"


def test_rewrite_node_alone_and_its_output_parsing():
    llm = TrackedLLM(ScriptedLLM(default='Rewritten question: "Where did King Sejong die?"\nextra'))
    node = rewrite_followup(llm, "Where did he die?", [Turn("Who created Hangul?", "King Sejong")])
    assert node.filled_question == "Where did King Sejong die?" and node.data["changed"]
    assert parse_rewrite("다시 쓴 질문: 한라산은 어디에 있어?") == "한라산은 어디에 있어?"
    assert parse_rewrite("  \n ") == "" and parse_rewrite("?") == ""
    empty = rewrite_followup(TrackedLLM(ScriptedLLM(default="")), "Where did he die?", [Turn("q", "a")])
    assert empty.filled_question == "Where did he die?" and empty.data["unusable_output"] == ""


def test_the_prompt_keeps_the_latest_turns_and_cuts_long_answers():
    history = [Turn(f"question {i}?", "x" * 1000) for i in range(6)]
    msgs = rewrite_messages("en", history, "And the next one?")
    user = msgs[-1]["content"]
    assert "question 2?" not in user and "Q3: question 5?" in user  # the last three turns
    assert len(user) < 1500 and " …" in user
    assert msgs[0]["role"] == "system" and len(msgs) == 1 + 2 * 5 + 1  # system, five exemplars, the question


def test_the_rewrite_node_describes_its_standalone_question_in_the_traces_language():
    from rich.console import Console

    from gaji.cli.render_tree import node_label
    from gaji.types import Fact, Trace

    ko = rewrite_followup(TrackedLLM(ScriptedLLM(default="한라산 정상에 있는 호수 이름은?")), "거기 정상에 있는 호수 이름은?",
                          [Turn("한라산은 어디에 있어?", "제주도")])
    assert Fact("다시 쓴 질문", "한라산 정상에 있는 호수 이름은?", "note") in ko.display
    en = rewrite_followup(TrackedLLM(ScriptedLLM(default="Where did King Sejong die?")), "Where did he die?",
                          [Turn("Who created Hangul?", "King Sejong")])
    assert Fact("rewritten as", "Where did King Sejong die?", "note") in en.display
    same = rewrite_followup(TrackedLLM(ScriptedLLM(default="Where did he die?")), "Where did he die?", [Turn("q", "a")])
    assert [f.label for f in same.display] == ["follow-up"]  # nothing was rewritten: nothing to say
    # the CLI tree heads the node with the follow-up as asked (its input), and the rewrite on its own line
    con = Console(record=True, width=200, color_system=None)
    con.print(node_label(en, Trace(question="Where did King Sejong die?", method="oner")))
    lines = con.export_text().splitlines()
    assert lines[0].endswith("Where did he die?") and "  rewritten as: Where did King Sejong die?" in lines
    assert not any("from:" in ln for ln in lines)
