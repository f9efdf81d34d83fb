"""The Korean intersection asked by its second condition (gaji/methods/intersection.py) and auto's use of it."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from gaji.corpus.shared_data import dataset_paths, find_data_dir, load_korquad_questions
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.method import Auto
from gaji.methods.base import RunContext
from gaji.methods.intersection import parse_intersection, set_names
from gaji.testing import ListRetriever
from gaji.types import Passage, Trace

DOCS = [
    ("yoo", "유아인", "유아인은 드라마 《육룡이 나르샤》에서 이방원을 연기했고, 청룡영화상 남우주연상을 받았다."),
    ("kim", "김민희", "김민희는 영화 《아가씨》로 청룡영화상 여우주연상을 받았다."),
    ("kimhj", "김홍집", "김홍집은 1894년 일본에 의해 총리대신 자리에 앉혀졌다."),
]
SIX = "드라마 《육룡이 나르샤》에 출연한 배우 가운데 청룡영화상 남우주연상을 받은 사람은?"


def _set(name: str) -> list[dict]:
    return [json.loads(line) for line in
            (resources.files("gaji") / "data" / "komultihop" / f"{name}.jsonl").read_text("utf-8").splitlines()]


def test_the_set_and_the_second_condition_are_split_where_korean_marks_them():
    x = parse_intersection(SIX, "ko")
    assert (x.members, x.filter, x.form) == ("드라마 《육룡이 나르샤》에 출연한 배우", "청룡영화상 남우주연상을 받은 사람은?",
                                             "among")
    assert x.query() == "청룡영화상 남우주연상을 받은 사람은? 육룡이 나르샤"
    y = parse_intersection("고종과 명성황후의 신임으로 통리기무아문에 복직했고, 1894년 일본에 의해 총리대신 자리에 앉혀진 "
                           "인물은?", "ko")
    assert y.form == "and" and y.filter == "1894년 일본에 의해 총리대신 자리에 앉혀진 인물은?"
    # a verb's form before 가운데 is no set; English and a plain question are not split
    assert parse_intersection("서울 도심 한 가운데 있는 궁궐은 무엇인가?", "ko") is None
    assert parse_intersection("Which actor among the cast won the award?", "en") is None
    assert parse_intersection("훈민정음은 몇 년에 반포되었나요?", "ko") is None


def test_the_sets_names_are_its_titles_and_proper_nouns():
    assert set_names("드라마 《육룡이 나르샤》에 출연한 배우") == ["육룡이 나르샤"]
    assert "김영삼" in set_names("김영삼 대통령 시절 군사정권과 관계없는 신진 인사로 등용된 인물")
    assert set_names("2007년 대선 경선 후보로 결정된 다섯 명") == []


def test_every_hand_written_intersection_splits_and_no_other_type_does():
    assert all(parse_intersection(r["question"], "ko") for r in _set("intersection"))
    for other in ("bridging", "comparison", "hybrid"):
        assert [r["id"] for r in _set(other) if parse_intersection(r["question"], "ko")] == []


def test_a_question_after_a_story_is_no_intersection():
    story = ("갑과 을은 같은 회사의 임원이다. 두 사람 가운데 이사회 승인 없이 신용공여를 한 사람이 있다.\n"
             "그 회사의 임원 가운데 형사처벌을 받을 수 있는 사람은?")
    assert parse_intersection(story, "ko") is None
    assert parse_intersection(story.split("\n")[1], "ko") is not None


@pytest.mark.data
@pytest.mark.skipif(find_data_dir() is None, reason="shared data dir absent")
def test_almost_no_korquad_one_hop_question_splits_and_none_of_the_first_hundred():
    """A split one-hop question still costs one call (the filter replaces the one retrieval), but is asked a part of
    itself: KorQuAD's first 100 are not split, and at most 0.5 % of the first 2,000 (0.1 % today)."""
    questions = [q["question"] for q in load_korquad_questions(dataset_paths("korquad")[0])][:2000]
    assert [q for q in questions[:100] if parse_intersection(q, "ko")] == []
    assert sum(parse_intersection(q, "ko") is not None for q in questions) <= 0.005 * len(questions)


def _ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)


def _reader(filter_reply: str, whole_reply: str = "수학하", choice_reply: str = "모름"):
    """The plain reader: `filter_reply` to the second condition asked alone, `whole_reply` to the whole question,
    `choice_reply` to the check's choice among names."""
    def reply(req):
        user = req.messages[-1]["content"]
        if "다음 이름 중" in user:
            return choice_reply
        return whole_reply if "가운데" in user else filter_reply
    return ScriptedLLM(default=reply)


def test_auto_asks_the_second_condition_in_one_call_and_says_so():
    t = Auto().run(SIX, _ctx(_reader("유아인")))
    c = t.root.data["cascade"]
    assert t.answer == "유아인" and c["decision"] == "narrowed" and len(t.calls()) == 1
    node, checked = t.root.children
    assert node.question == "청룡영화상 남우주연상을 받은 사람은?" and node.query.endswith("육룡이 나르샤")
    assert t.citations == ["yoo"]
    assert [f.text for f in node.display] == ["두 번째 조건만 물음: 유아인"]
    # the set's own retrieval names the answer: no second call
    assert checked.query == "드라마 《육룡이 나르샤》에 출연한 배우" and checked.data["intersect_check"]["verdict"] == "in the set"
    assert [f.text for f in checked.display] == ["첫 번째 조건의 문서에도 나옴: 유아인"]
    shown = {f.label: f.text for f in t.root.display}
    assert shown["단계"] == "두 번째 조건으로 물음" and "두 번째 조건(청룡영화상 남우주연상을 받은 사람은?)만" in shown["확신도"]
    assert shown["확신도"].endswith("첫 번째 조건의 문서에도 나옴")
    back = Trace.from_json(t.to_json())  # JSON for the CLI, the API and the page
    assert back.root.data["cascade"]["intersection"]["answer"] == "유아인"


def test_a_filter_that_finds_nothing_leaves_the_question_to_the_one_retrieval():
    t = Auto().run(SIX, _ctx(_reader("모름", whole_reply="유아인")))
    c = t.root.data["cascade"]
    # the filter, the check's choice (no name picked), then the one retrieval
    assert t.answer == "유아인" and c["decision"] != "narrowed" and len(t.calls()) == 3
    assert t.root.children[0].data["value"] is None
    assert t.root.children[1].data["intersect_check"]["verdict"] == "picked none"


def test_low_effort_and_the_option_off_keep_the_one_retrieval():
    for auto in (Auto(effort="low"), Auto(intersect=False)):
        t = auto.run(SIX, _ctx(_reader("유아인")))
        assert t.answer == "수학하" and not any("intersect_filter" in n.data for n in t.root.walk())


def test_an_answer_that_names_nothing_is_no_answer():
    from gaji.methods.intersection import names_the_kind, polarity_word
    assert polarity_word("네") and not polarity_word("나경원")
    assert names_the_kind("1958년 공개된 일렉트릭 기타", "펜더사 최초의 좌우 비대칭 일렉트릭 기타는?")
    assert not names_the_kind("재즈마스터", "펜더사 최초의 좌우 비대칭 일렉트릭 기타는?")
    assert not names_the_kind("골든디스크 시상식", "…방탄소년단에게 음반 부문 대상을 안긴 시상식은?")  # a name ending in it
    t = Auto().run(SIX, _ctx(_reader("네", whole_reply="유아인")))  # the reader said yes to a who-question
    assert t.root.data["cascade"]["decision"] != "narrowed" and t.answer == "유아인"


# the filter fits two people; only the set's passages tell them apart
TWO = "명성황후의 후원으로 돈령부 도정에 올랐고, 고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?"
JEONG = Passage(id="jeong", doc_id="jeong", title="정도전",
                text="고종이 정도전의 복권을 강행하자 김평묵과 함께 최익현이 강하게 반발했다.")
MYEONG = Passage(id="myeong", doc_id="myeong", title="명성황후",
                 text="명성황후는 최익현을 지원하였고 최익현은 통정대부 돈령부 도정으로 올랐다.")


class _ByCondition(ListRetriever):
    """The filter's query finds both passages; the set's own words find the set's passage alone."""

    def __init__(self):
        super().__init__([JEONG, MYEONG])

    def search(self, query, k=5):
        return super().search(query, k) if "반발" in query else super().search(query, 1)


def _two(filter_reply: str, choice_reply: str):
    def reply(req):
        return choice_reply if "다음 이름 중" in req.messages[-1]["content"] else filter_reply
    ctx = RunContext(llm=TrackedLLM(ScriptedLLM(default=reply), retries=0, backoff_s=0), retriever=_ByCondition(),
                     parallel=False)
    return Auto().run(TWO, ctx)


def test_an_answer_the_set_does_not_name_is_chosen_again_among_the_names_both_sides_hold():
    t = _two("김평묵", "최익현")
    assert t.answer == "최익현" and len(t.calls()) == 2
    check = t.root.children[1]
    c = check.data["intersect_check"]
    assert c["verdict"] == "chosen" and c["replaced"] == "김평묵" and c["choices"][0] == "최익현"
    assert "김평묵" not in c["choices"] and "정도전" not in c["choices"]  # not in the set; a name the question gives
    assert check.question.endswith("다음 이름 중 하나만 답하세요: " + ", ".join(c["choices"]) + ".")
    assert check.passage_ids == ["jeong", "myeong"]
    assert [f.text for f in check.display][0].endswith(": 최익현 (김평묵 대신)")
    assert t.root.data["cascade"]["intersection"]["why"] == "chosen"
    back = Trace.from_json(t.to_json())
    assert back.root.children[1].data["intersect_check"]["verdict"] == "chosen"


def test_a_choice_that_names_none_leaves_the_answer_unconfirmed_and_says_so():
    t = _two("김평묵", "모름")
    assert t.answer == "김평묵" and len(t.calls()) == 2
    assert t.root.data["cascade"]["intersection"]["why"] == "unconfirmed"
    assert "확인하지 못함" in {f.label: f.text for f in t.root.display}["확신도"]


def test_a_filter_without_answer_is_still_chosen_for():
    t = _two("모름", "최익현")
    assert t.answer == "최익현" and t.root.data["cascade"]["decision"] == "narrowed" and len(t.calls()) == 2


def test_the_check_reads_names_not_sentences():
    from gaji.methods.intersection import chosen, names_member
    assert names_member("오세훈 변호사", [MYEONG, Passage(id="o", doc_id="o", title="오세훈", text="")], "…사람은?")
    assert not names_member("정도전", [JEONG], TWO)  # a name the question gives is no member
    assert chosen("스기우라 주고", ["스기우라", "도쿄"], "…사람은?") == "스기우라 주고"
    assert chosen("답은 최익현입니다. 김평묵도 반발했습니다.", ["최익현", "대원군"], TWO) == "최익현"
    assert chosen("최익현과 대원군 모두 해당합니다", ["최익현", "대원군"], TWO) == ""
    assert chosen("모름", ["최익현"], TWO) == ""


def test_proper_nouns_one_space_apart_are_one_name():
    from gaji.methods.intersection import passage_names
    assert passage_names("알렉산더 메이그스 헤이그는 레이건 정부의 국무장관을 지냈다.") == ["알렉산더 메이그스 헤이그", "레이건"]
    assert passage_names("경복궁\n경복궁은 법궁이다.") == ["경복궁"]  # a line break joins nothing
