"""Questions that want a paragraph (gaji/methods/auto/explain.py) and auto's one-call paragraph answer for them."""
from __future__ import annotations

import json

import pytest

from gaji.corpus.shared_data import dataset_paths, find_data_dir, load_korquad_questions
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.explain import wants_paragraph
from gaji.methods.auto.method import Auto
from gaji.methods.base import RunContext
from gaji.testing import ListRetriever
from gaji.types import Trace

DOCS = [
    ("criminal-366", "형법 제366조", "타인의 재물, 문서 또는 전자기록등 특수매체기록을 손괴 또는 은닉 기타 방법으로 기타 효용을 해한 자는 "
     "3년 이하의 징역 또는 700만원 이하의 벌금에 처한다."),
    ("air-alert", "대기환경보전법 시행령", "대기오염경보의 대상 오염물질은 미세먼지(PM-10), 초미세먼지(PM-2.5), 오존이다."),
]
STORY_KO = "갑은 을과 계약을 맺었다. 다툼 끝에 갑은 을의 중요한 계약 문서를 고의로 찢었다.\n갑은 어떤 처벌을 받게 되는가?"
PARAGRAPH = ("갑은 을의 문서를 고의로 손괴하였으므로 형법 제366조에 따라 3년 이하의 징역 또는 700만원 이하의 벌금에 처해질 수 "
             "있습니다 [1].")


@pytest.mark.parametrize("question,lang,why", [
    (STORY_KO, "ko", "story"),
    ("대기오염경보가 발령될 경우 취해야 할 조치는 무엇이며, 대기오염경보의 대상 오염물질은 무엇인가?", "ko", "several"),
    ("갑의 행위는 어떤 법적 책임을 수반하는가? XYZ 회사 자체에도 형사처벌 가능성이 있는가?", "ko", "several"),
    ("갑이 을의 자산을 압류했다.\n을의 자산에 대한 강제집행에 필요한 비용은 누가 부담하는가?", "ko", ""),  # who: a name
    ("훈민정음은 몇 년에 반포되었나요?", "ko", ""),
    ("알렉산더 헤이그와 쇼와 천황 중 누가 먼저 태어났나?", "ko", ""),
    ("…통리기무아문에 복직했고, 1894년 일본에 의해 총리대신 자리에 앉혀진 인물은?", "ko", ""),  # one ask, two clauses
    ("Person A destroyed Person B's contract on purpose.\nWhat punishment does Person A face?", "en", "story"),
    ("What measures must the shop take, and what pollutants does the alert cover?", "en", "several"),
    ("The shop is in Songpa-gu. How many alerts were issued in 2020?", "en", ""),  # how many: a number
    ("Which film has the director who died later, What Will You Do When You Catch Me? or School On Fire?", "en", ""),
    ("Who directed Oldboy?", "en", ""),
])
def test_a_question_wants_a_paragraph_when_it_asks_several_things_or_what_follows_from_a_story(question, lang, why):
    assert wants_paragraph(question, lang) == why


@pytest.mark.data
@pytest.mark.skipif(find_data_dir() is None, reason="shared data dir absent")
def test_the_factoid_sets_keep_short_answers_and_most_legal_questions_get_paragraphs():
    """No question of the short-answer sets wants a paragraph (KorQuAD's first 2,000, the hand-written Korean
    multi-hop set, the English multi-hop samples); at least two in three of KoBLEX's legal questions do (76 % today:
    the rest ask who, when or how much)."""
    root = find_data_dir()
    korquad = [q["question"] for q in load_korquad_questions(dataset_paths("korquad")[0])][:2000]
    assert [q for q in korquad if wants_paragraph(q, "ko")] == []
    for name in ("hotpotqa", "2wikimultihopqa", "musique", "bamboogle"):
        rows = [json.loads(line) for line in (root / f"{name}.jsonl").open(encoding="utf-8")]
        assert [r["question"] for r in rows if wants_paragraph(r["question"], "en")] == [], name
    from gaji.eval.komultihop import load_part

    for part in ("komultihop-dev", "komultihop-report"):
        assert [it.id for it in load_part(part).items if wants_paragraph(it.question, "ko")] == []
    from gaji.eval.datasets import load_dataset

    legal = load_dataset("koblex").items
    assert sum(1 for it in legal if wants_paragraph(it.question, "ko")) >= 2 * len(legal) / 3


def _ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)


def test_auto_answers_a_question_after_a_story_in_one_call_with_a_whole_cited_paragraph():
    llm = ScriptedLLM(default=PARAGRAPH)
    t = Auto().run(STORY_KO, _ctx(llm))
    assert len(t.calls()) == 1 and t.root.calls[0].purpose == "answer"
    assert "한 문단으로 답하세요" in llm.requests[0].messages[0]["content"]  # OneR's long style
    assert t.answer == PARAGRAPH  # kept whole: no span is cut from it
    assert t.citations == ["criminal-366"]
    c = t.root.data["cascade"]
    assert c["decision"] == "long" and c["why"] == "story" and c["to"] is None
    shown = {f.label: f.text for f in t.root.display}
    assert shown["단계"] == "문단으로 답함" and shown["확신도"].startswith("사실관계를 들고 그 결과를 묻는 질문")
    assert Trace.from_json(t.to_json()).root.data["cascade"] == c


def test_a_factoid_question_still_gets_a_span():
    llm = ScriptedLLM(default="형법 제366조에 따라 3년 이하의 징역에 처한다.")
    t = Auto(compare=False, bridge="off").run("문서를 손괴한 자는 몇 년 이하의 징역에 처하는가?", _ctx(llm))
    assert t.root.data["cascade"]["decision"] != "long" and t.answer != llm.default
