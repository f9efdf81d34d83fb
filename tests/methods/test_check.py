"""A yes/no or which-one question about two items decided item by item (gaji/methods/check.py): the split read by
code, the per-item verdicts combined, and auto taking them (scripted LLM: control flow, not quality)."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from gaji.corpus.shared_data import dataset_paths, find_data_dir, load_korquad_questions
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.method import Auto
from gaji.methods.base import RunContext
from gaji.methods.check import decide, parse_check, polarity, same_value
from gaji.methods.compare import Lookup
from gaji.testing import ListRetriever
from gaji.types import Trace

data = pytest.mark.data
needs_data = pytest.mark.skipif(find_data_dir() is None, reason="shared data dir absent")


def korquad_questions() -> list[str]:
    """The KorQuAD v1 dev questions of ../shared/data, in file order."""
    return [q["question"] for q in load_korquad_questions(dataset_paths("korquad")[0])]


DOCS = [
    ("mort", "Cynthia Mort", "Cynthia Mort is an American television writer and director."),
    ("arch", "George Archainbaud", "George Archainbaud was a French-born film and television director."),
    ("russell", "David O. Russell", "David Owen Russell is an American filmmaker."),
    ("gatlif", "Tony Gatlif", "Tony Gatlif is a French film director of Romani ethnicity."),
    ("milosz", "Czesław Miłosz", "Czesław Miłosz was a Polish poet, prose writer and translator."),
    ("deka", "Bhabananda Deka", "Prof Bhabananda Deka was an Indian economist and author."),
    ("kim", "김희선", "김희선은 1993년 광고 모델로 데뷔한 대한민국의 배우이다."),
    ("taehee", "김태희", "김태희는 2000년 광고로 데뷔한 대한민국의 배우이다."),
]


@pytest.mark.parametrize("question, lang, kind, items, first_sub", [
    ("Are both Cynthia Mort and George Archainbaud American?", "en", "both", ("Cynthia Mort", "George Archainbaud"),
     "Is Cynthia Mort American?"),
    ('Are both "Cooking Light" and "Vibe" magazines?', "en", "both", ("Cooking Light", "Vibe"),
     "Is Cooking Light magazines?"),
    ("Are Pterostyrax and Dregea both native to Asia?", "en", "both", ("Pterostyrax", "Dregea"),
     "Is Pterostyrax native to Asia?"),
    ("Did John Updike and Tom Clancy both publish more than 15 bestselling novels?", "en", "both",
     ("John Updike", "Tom Clancy"), "Did John Updike publish more than 15 bestselling novels?"),
    ("Are both Yangzhou and Jiangyan District considered coastal cities?", "en", "both",
     ("Yangzhou", "Jiangyan District"), "Is Yangzhou considered coastal cities?"),
    ("Are David O. Russell and Tony Gatlif from the same country?", "en", "same", ("David O. Russell", "Tony Gatlif"),
     "Which country is David O. Russell from?"),
    ("Are the flowering plants Ecballium and Elatostema in the same family?", "en", "same",
     ("Ecballium", "Elatostema"), "Which family is Ecballium in?"),
    ("Were The Bomb and Rolling Papers released in the same year?", "en", "same", ("The Bomb", "Rolling Papers"),
     "When was The Bomb released?"),
    ("Are Aladdin and Song of the South produced by the same company?", "en", "same", ("Aladdin", "Song of the South"),
     "Which company is Aladdin produced by?"),
    ("Do both directors of films Kaalapani and Leaving Home – The Life & Music Of Indian Ocean have the same "
     "nationality?", "en", "same", ("the director of Kaalapani", "the director of Leaving Home – The Life & Music Of "
                                    "Indian Ocean"), "What is the nationality of the director of Kaalapani?"),
    ("Do both films Levity (Film) and I Come With The Rain have the directors that share the same nationality?", "en",
     "same", ("the director of Levity (Film)", "the director of I Come With The Rain"),
     "What is the nationality of the director of Levity (Film)?"),
    ("Which author is an economist, Czesław Miłosz or Bhabananda Deka?", "en", "which",
     ("Czesław Miłosz", "Bhabananda Deka"), "Which author is an economist? Is it Czesław Miłosz?"),
    ("Which dog's ancestors include Gordon and Irish Setters: the Manchester Terrier or the Scotch Collie?", "en",
     "which", ("Manchester Terrier", "Scotch Collie"),
     "Which dog's ancestors include Gordon and Irish Setters? Is it Manchester Terrier?"),
    ("김현웅 전 법무부 장관과 김이수 헌법재판관은 둘 다 전라도 출신인가?", "ko", "both", ("김현웅 전 법무부 장관", "김이수 헌법재판관"),
     "김현웅 전 법무부 장관은 전라도 출신인가?"),
    ("김희선과 김태희는 같은 해에 광고로 연예계에 데뷔했나?", "ko", "same", ("김희선", "김태희"),
     "김희선은 몇 년에 광고로 연예계에 데뷔했나?"),
    ("갤럭시 S8과 갤럭시 노트5의 RAM 용량은 같은가?", "ko", "same", ("갤럭시 S8", "갤럭시 노트5"), "갤럭시 S8의 RAM 용량은 무엇인가?"),
    ("반기문이 유엔 사무총장에 당선된 해와 오세훈이 서울시장에 처음 당선된 해는 같은가?", "ko", "same",
     ("반기문이 유엔 사무총장에 당선된 해", "오세훈이 서울시장에 처음 당선된 해"), "반기문이 유엔 사무총장에 당선된 해는 언제인가?"),
])
def test_a_question_about_two_items_is_split_by_code(question, lang, kind, items, first_sub):
    c = parse_check(question, lang)
    assert c is not None, question
    assert (c.kind, c.items, c.sub_questions()[0]) == (kind, items, first_sub)
    assert any(c.described) == items[0].startswith("the director of")  # a person of each item: resolved first


@pytest.mark.parametrize("question, lang", [
    ("Who was born first, Ulf Merbold or Mirosław Hermaszewski?", "en"),  # an order: compare.py's
    ("Which was published more frequently, Popular Science or Girlfriends?", "en"),  # an order no read can give
    ("Which canal is located further North, Beaver and Erie Canal or the Dismal Swamp Canal?", "en"),
    ('What type of film are both "500 Years Later" and "Manson"?', "en"),  # asks a thing, not yes or no
    ("Is Gasherbrum II or Nuptse closest to the tallest mountain in the world?", "en"),
    ("Which film has the director who is older than the other, Kanchana Sita or Ghost Of The China Sea?", "en"),
    ("강완구와 김이수 중 사법연수원 기수가 더 빠른 사람은?", "ko"),  # an order
    ("1982년 월드컵 조별리그에서 이탈리아와 우루과이가 모두 이긴 나라는 어디인가?", "ko"),  # a wh-question
    ("정도전의 개혁과 요동 정벌 준비는 같은 개국공신 누구의 반발을 불러일으켰나?", "ko"),
    ("김영삼이 유진산과 김대중 대신 당의 총수 역할을 맡긴 사람은?", "ko"),  # "김대중" holds no 중 of a choice
    ("2015년 여성 최초로 국회 외교통일위원장에 선출된 사람은 2010년 한나라당 서울시장 후보 경선에서 오세훈과 맞붙은 경쟁자 가운데 "
     "누구인가?", "ko"),  # an intersection's set, not two items
    ("훈민정음은 몇 년에 반포되었나요?", "ko"),
])
def test_what_is_no_such_question_is_left_alone(question, lang):
    assert parse_check(question, lang) is None


@data
@needs_data
def test_no_korquad_question_of_the_first_thousand_is_taken_for_one():
    questions = korquad_questions()[:1000]
    assert [q for q in questions if parse_check(q, "ko")] == []


def test_every_hand_written_korean_yes_no_question_is_split():
    rows = []
    for kind in ("comparison", "hybrid"):
        text = (resources.files("gaji") / "data" / "komultihop" / f"{kind}.jsonl").read_text("utf-8")
        rows += [json.loads(line) for line in text.splitlines()]
    yes_no = [r for r in rows if r["answers"][0] in ("예", "아니오")]
    parsed = [parse_check(r["question"], "ko") for r in yes_no]
    assert len(yes_no) >= 10 and all(parsed), [r["question"] for r, c in zip(yes_no, parsed) if not c]
    assert {c.kind for c in parsed} == {"both", "same"}


def test_polarity_reads_yes_and_no_in_both_languages():
    assert [polarity(x) for x in ("Yes.", "no", "예", "네, 맞습니다", "아니오", "아니요.", "unknown", "Not sure")] == [
        True, False, True, True, False, False, None, None]


def test_same_value_compares_years_numbers_and_letters():
    assert same_value((1993, 0, 0), (1993, 5, 1)) is True and same_value((1993, 0, 0), (2000, 0, 0)) is False
    assert same_value("4GB", "4 GB") is True and same_value("4GB", "3GB") is False
    assert same_value("French", "France") is None  # different words: a judgement for the model
    assert same_value("Walt Disney Productions", "Walt Disney") is True


def test_two_values_that_each_name_the_compared_thing_are_compared_by_those_words():
    # the 1.5B judge called these the same university; the words ending in 대학교 tell them apart by code
    assert same_value("부산대학교", "이명박은 서울대학교를 나왔습니다", "대학교") is False
    assert same_value("서울대학교 철학과", "서울대학교를 졸업했다", "대학교") is True
    assert same_value("고려대학교 경영학과", "서울대학교 철학과", "대학교") is False
    assert same_value("부산대학교", "서울", "대학교") is None  # one value names no university: the judge's call
    assert same_value("American", "United States", "country") is None  # no glued word to compare


def _lookups(c, *values):
    return [Lookup(item, q, str(v), v) for item, q, v in zip(c.items, c.sub_questions(), values)]


def test_the_per_item_reads_decide_or_leave_it_open():
    both = parse_check("Are both Cynthia Mort and George Archainbaud American?", "en")
    assert decide(both, _lookups(both, True, False)).answer == "no"
    assert decide(both, _lookups(both, True, True)).answer == "yes"
    assert decide(both, _lookups(both, True, None)).why == "no value"
    assert decide(both, _lookups(both, None, False)).answer == "no"  # one "no" decides
    which = parse_check("Which author is an economist, Czesław Miłosz or Bhabananda Deka?", "en")
    assert decide(which, _lookups(which, False, True)).answer == "Bhabananda Deka"
    assert decide(which, _lookups(which, True, True)).why == "both fit"
    assert decide(which, _lookups(which, True, None)).answer == "Czesław Miłosz"  # nothing says the other fits
    assert decide(which, _lookups(which, None, None)).why == "neither fits"
    same = parse_check("Are David O. Russell and Tony Gatlif from the same country?", "en")
    assert decide(same, _lookups(same, "United States", "France"), judge=lambda a, b: False).answer == "no"
    assert decide(same, _lookups(same, "United States", "France")).why == "unsure"  # no judge, no verdict
    ko = parse_check("김희선과 김태희는 같은 해에 광고로 연예계에 데뷔했나?", "ko")
    assert decide(ko, _lookups(ko, (1993, 0, 0), (2000, 0, 0))).answer == "아니오"


def _read(c, i, reply, value, passages=("p1",)):
    return Lookup(c.items[i], c.sub_questions()[i], reply, value, passage_ids=list(passages))


def test_both_is_no_when_one_item_is_confirmed_and_the_others_passages_say_nothing():
    both = parse_check("Are both Adolfo Bioy Casares and James Norman Hall Argentinian authors?", "en")
    found, silent = _read(both, 0, "yes", True), _read(both, 1, "unknown", None)
    verdict = decide(both, [found, silent])
    assert (verdict.answer, verdict.why) == ("no", "one unconfirmed")
    assert verdict.hint.endswith("the passages of James Norman Hall do not say so")
    assert decide(both, [silent, found]).answer == "no"  # whichever item it is
    # neither found: the question's words likely missed the passages; no verdict
    assert decide(both, [_read(both, 0, "unknown", None), silent]).why == "no value"
    # a read that did not happen (no passages) or said something else is no evidence that the fact is missing
    assert decide(both, [found, _read(both, 1, "unknown", None, passages=())]).why == "no value"
    assert decide(both, [found, _read(both, 1, "Argentina", None)]).why == "no value"
    ko = parse_check("김현웅 전 법무부 장관과 김이수 헌법재판관은 둘 다 전라도 출신인가?", "ko")
    assert decide(ko, [_read(ko, 0, "예", True), _read(ko, 1, "모름", None)]).answer == "아니오"


def _reader(yes: dict[str, str], values: dict[str, str], first: str, judge: str = "no"):
    """A scripted reader: a yes/no read answers by the first key its question holds, a value or date read gives the
    value of the first key, the judgement of two values `judge`, anything else `first`."""
    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if system.startswith(("Answer with only", '"예" 또는')):
            return judge
        if '"yes" or "no"' in system or '"예" 또는 "아니오"로만 답하고' in system:
            return next((v for k, v in yes.items() if k in user), "unknown")
        if "few words" in system or "되도록 짧게" in system or "날짜만" in system or "Give only the date" in system:
            return next((v for k, v in values.items() if k in user), "unknown")
        return first
    return ScriptedLLM(default=reply)


def _ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)


def test_auto_replaces_a_yes_said_without_looking_with_the_per_item_verdict():
    q = "Are both Cynthia Mort and George Archainbaud American?"
    t = Auto().run(q, _ctx(_reader({"Mort": "Yes", "Archainbaud": "No"}, {}, first="Yes, both are American.")))
    c = t.root.data["cascade"]
    assert t.answer == "no" and c["decision"] == "computed" and c["first_answer"].startswith("Yes, both are American")
    assert [n.question for n in t.root.children] == ["Is Cynthia Mort American?", "Is George Archainbaud American?"]
    assert [f.text for n in t.root.children for f in n.display] == ["yes", "no"]
    assert sorted(x.purpose for x in t.calls()) == ["answer", "compare", "compare"]
    assert set(t.citations) <= {"mort", "arch"} and t.citations
    back = Trace.from_json(t.to_json())
    assert back.root.data["cascade"]["computed"]["kind"] == "both"


def test_an_agreeing_yes_no_answer_is_worded_plainly():
    q = "Are both Cynthia Mort and George Archainbaud American?"
    t = Auto().run(q, _ctx(_reader({"Mort": "Yes", "Archainbaud": "No"}, {}, first="No, George Archainbaud is French")))
    assert t.root.data["cascade"]["decision"] == "stand" and t.answer == "no"


def test_a_same_question_with_two_different_words_asks_one_judgement():
    q = "Are David O. Russell and Tony Gatlif from the same country?"
    llm = _reader({}, {"Russell": "American", "Gatlif": "France"}, first="Yes", judge="No")
    t = Auto().run(q, _ctx(llm))
    assert t.answer == "no" and t.root.data["cascade"]["decision"] == "computed"
    judge = [n for n in t.root.children if n.data.get("check") == "same_judge"]
    assert len(judge) == 1 and [f.text for f in judge[0].display] == ["not the same"]
    assert len(t.calls()) == 4


def test_which_picks_the_one_item_that_fits_and_korean_says_ye_or_anio():
    q = "Which author is an economist, Czesław Miłosz or Bhabananda Deka?"
    t = Auto().run(q, _ctx(_reader({"Miłosz": "No", "Deka": "Yes"}, {}, first="Czesław Miłosz")))
    assert t.answer == "Bhabananda Deka" and t.root.data["cascade"]["decision"] == "computed"
    ko = Auto().run("김희선과 김태희는 같은 해에 광고로 연예계에 데뷔했나?",
                    _ctx(_reader({}, {"김희선": "1993년", "김태희": "2000년"}, first="네")))
    assert ko.answer == "아니오" and ko.root.data["cascade"]["decision"] == "computed"
    assert "코드로 비교" in ko.root.stop.reason
    assert [f.text for f in ko.root.children[0].display] == ["1993년"]


def test_an_unsure_read_leaves_the_cascade_to_go_on_and_the_option_turns_it_off():
    q = "Are both Cynthia Mort and George Archainbaud American?"
    t = Auto(route="").run(q, _ctx(_reader({}, {}, first="Yes")))  # neither item's passages say anything
    computed = t.root.data["cascade"]["computed"]
    assert computed["answer"] is None and computed["why"] == "no value"
    one = Auto(route="").run(q, _ctx(_reader({"Mort": "Yes"}, {}, first="Yes")))  # one found, one not: no
    assert one.answer == "no" and one.root.data["cascade"]["computed"]["why"] == "one unconfirmed"
    off = Auto(compare=False).run(q, _ctx(_reader({}, {}, first="Yes")))
    assert not any(n.kind == "compare_item" for n in off.root.walk()) and len(off.calls()) == 1


def test_a_check_that_would_overrun_the_time_limit_stops_and_the_cheap_answer_stands():
    q = "Are David O. Russell and Tony Gatlif from the same country?"
    left = [20.0]
    inner = _reader({}, {"Russell": "American", "Gatlif": "France"}, first="Yes", judge="No")
    reply = inner.default

    def timed(req):
        left[0] -= 6.0  # each call takes 6 s of the 20 s the run has
        return reply(req)

    inner.default = timed
    c = _ctx(inner)
    c.time_left = lambda: left[0]
    t = Auto().run(q, c)
    cas = t.root.data["cascade"]
    assert t.answer == "Yes" and cas["out_of_time"] and "computed" not in cas
    assert len(t.calls()) == 3  # the cheap answer and both reads; the judgement would have started with 2 s left
    assert not any(n.status == "running" for n in t.root.walk())


def test_a_yes_no_answer_is_worded_as_the_plain_word_and_other_questions_are_left_alone():
    from gaji.methods.check import asks_yes_no, plain_yes_no

    assert plain_yes_no("나경원과 김무성은 둘 다 새누리당 소속 국회의원이었나?", "네, 두 사람 모두 국회의원이었습니다", "ko") == "예"
    assert plain_yes_no("이회장은 감사원장 공관입주를 받아들였나?", "아니요.", "ko") == "아니오"
    assert plain_yes_no("Were The Bomb and Rolling Papers released in the same year?", "Yes, both in 2011", "en") == "yes"
    assert plain_yes_no("네덜란드의 수도는 어디인가?", "네덜란드", "ko") is None  # a wh-question, and no "네"
    assert plain_yes_no("이 선수는 어느 나라 출신인가?", "네덜란드", "ko") is None
    assert not asks_yes_no("Is Gasherbrum II or Nuptse closest to the tallest mountain in the world?", "en")
    assert not asks_yes_no("훈민정음은 몇 년에 반포되었나요?", "ko") and not asks_yes_no("금강산의 주봉은?", "ko")
    t = Auto(compare=False).run("나경원과 김무성은 둘 다 새누리당 소속 국회의원이었나?",
                                _ctx(_reader({}, {}, first="네, 두 사람 모두 새누리당 소속 국회의원이었습니다")))
    assert t.answer == "예" and t.explanation.startswith("네, 두 사람 모두")
    assert t.root.data["cascade"]["worded"]["to"] == "예"


@data
@needs_data
def test_no_korquad_question_that_asks_a_thing_reads_as_yes_no():
    from gaji.methods.check import asks_yes_no

    questions = korquad_questions()
    assert sum(asks_yes_no(q, "ko") for q in questions) <= len(questions) // 500  # a few real yes/no ones
