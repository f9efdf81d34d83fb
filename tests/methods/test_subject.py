"""The passages about a Korean question's own subject (gaji/methods/subject.py), and the one-retrieval reader that
reads only those (OneR's option subject_only, off by default and in auto's first rung)."""
from __future__ import annotations

import pytest

from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.oner import OneR
from gaji.methods.subject import about_one_thing, about_subject, subject_names
from gaji.testing import ListRetriever
from gaji.types import Passage

DOCS = [
    ("lin-1", "린스룽", "임세영은 광동성 남해현 출신으로 정육점을 경영하던 사람이었다. 그는 무예를 다시 배웠다."),
    ("lee-1", "이명박", "이명박 정부 출범의 뒤를 이어 총선거가 다시 치러졌고, 한나라당이 최다 의석을 차지했다."),
    ("lin-2", "린스룽", "임세영은 홍가권을 다시 개량하여 홍가권의 일대종사가 되었다."),
]


def passages() -> list[Passage]:
    return [Passage(id=i, doc_id=i, title=t, text=x) for i, t, x in DOCS]


@pytest.mark.parametrize("question, one", [
    ("임세영이 다시 개량한 권법의 이름은?", True),
    ("훈민정음은 몇 년에 반포되었나요?", True),
    ("영화 《아가씨》에서 히데코 역을 맡은 배우가 부일영화상 여우주연상을 받은 영화는?", False),  # a bridge: the
    # film's page is the actress's, which names neither the film asked from nor the role
    ("박형식과 승리 중 누가 먼저 태어났나?", False),  # a choice between two things
    ("경복궁과 창덕궁은 같은 도시에 있나?", False),  # a pair checked item by item
    ("도쿄 재판에서 사형 선고를 받은 장군 가운데 난징 점령 뒤 행진을 한 사람은?", False),  # two conditions
    ("갑은 을에게 부동산 거래를 위임했다. 갑이 해외로 떠난 뒤 을은 무엇을 해야 하나?", False),  # a story first
])
def test_only_a_question_about_one_thing_is_narrowed(question, one):
    assert about_one_thing(question) is one
    assert bool(subject_names(question, "ko")) is one


def test_the_passages_that_name_the_subject_are_read_in_rank_order():
    q = "임세영이 다시 개량한 권법의 이름은?"
    assert subject_names(q, "ko") == ["임세영", "권법"]
    assert [p.id for p in about_subject(passages(), q, "ko")] == ["lin-1", "lin-2"]


def test_nothing_is_set_aside_when_no_passage_names_the_subject_or_the_question_is_english():
    assert [p.id for p in about_subject(passages()[1:2], "임세영이 다시 개량한 권법의 이름은?", "ko")] == ["lee-1"]
    assert len(about_subject(passages(), "Which fist style did Lam Sai-wing refine?", "en")) == 3
    assert subject_names("Which fist style did Lam Sai-wing refine?", "en") == []
    assert len(about_subject(passages(), "박형식과 승리 중 누가 먼저 태어났나?", "ko")) == 3


def run(question: str, subject_only: bool):
    llm = ScriptedLLM(default="홍가권")
    ctx = RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=ListRetriever(DOCS))
    t = OneR(k=3, subject_only=subject_only).run(question, ctx)
    return t, llm.requests[0].messages[0]["content"]


def test_the_reader_gets_only_the_subjects_passages_and_the_trace_says_so():
    t, prompt = run("임세영이 다시 개량한 권법의 이름은?", subject_only=True)
    assert "이명박" not in prompt and "홍가권을 다시 개량하여" in prompt and "정육점" in prompt
    assert sorted(t.root.passage_ids) == ["lee-1", "lin-1", "lin-2"]  # what was retrieved stays on record
    assert t.root.data["subject_only"] == {"names": ["임세영", "권법"], "read": ["lin-1", "lin-2"], "of": 3}
    assert "lee-1" not in t.citations and t.answer == "홍가권"
    shown = {f.label: f.text for f in OneR.describe(t.root, "ko")}
    assert shown["읽은 문서"] == "3개 중 질문의 이름(임세영, 권법)이 나오는 2개"
    assert {f.label: f.text for f in OneR.describe(t.root, "en")}["passages read"] == "2 of 3, those naming 임세영, 권법"


def test_without_the_option_every_passage_is_read():
    t, prompt = run("임세영이 다시 개량한 권법의 이름은?", subject_only=False)
    assert "이명박" in prompt and "subject_only" not in t.root.data
    assert OneR.describe(t.root, "ko") == OneR.describe(t.root, "en") == []


def test_the_one_recipe_auto_starts_with_reads_every_passage():
    """Measured live, reading only the subject's passages scored lower (benchmarks/auto/cascade/NOTES.md)."""
    from gaji import recipes

    assert "subject_only" not in recipes.get("one").options
