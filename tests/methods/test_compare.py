"""A comparison answered by code (gaji/methods/compare.py): the question's items and order read by code, one value
looked up per item, the verdict; and auto taking it (scripted LLM: control flow, not quality)."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.method import Auto
from gaji.methods.base import RunContext
from gaji.methods.compare import Lookup, decide, parse_comparison, same_entity, with_antecedent
from gaji.testing import ListRetriever
from gaji.types import Trace

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("lubin", "Arthur Lubin", "Arthur Lubin (July 25, 1898 - May 11, 1995) was an American film director."),
    ("ivanovsky", "Aleksandr Ivanovsky", "Aleksandr Viktorovich Ivanovsky (22 November 1881 - 1968) was a Soviet "
                                        "film director."),
    ("park", "박형식", "박형식(1991년 11월 16일 ~ )은 대한민국의 가수이자 배우이다."),
    ("seungri", "승리", "승리(1990년 12월 12일 ~ )는 대한민국의 가수이다."),
]


@pytest.mark.parametrize("question, lang, items, kind, direction, first_sub", [
    ("Who was born first, Aleksandr Ivanovsky or Arthur Lubin?", "en", ("Aleksandr Ivanovsky", "Arthur Lubin"),
     "date", "min", "When was Aleksandr Ivanovsky born?"),
    ("Who was born first Mahbub ul Haq or Ibn Arabi?", "en", ("Mahbub ul Haq", "Ibn Arabi"), "date", "min",
     "When was Mahbub ul Haq born?"),
    ("Which film director is younger, Robert Z. Leonard or Sinclair Hill?", "en",
     ("Robert Z. Leonard", "Sinclair Hill"), "date", "max", "When was Robert Z. Leonard born?"),
    ("Which musical fantasy film is older, Bedknobs and Broomsticks or The Muppet Christmas Carol?", "en",
     ("Bedknobs and Broomsticks", "The Muppet Christmas Carol"), "date", "min",
     "When was Bedknobs and Broomsticks released?"),
    ("Which women's magazine was published first, Mirabella or Home Monthly?", "en", ("Mirabella", "Home Monthly"),
     "date", "min", "When was Mirabella published?"),
    ("Who died first, Bryce Courtenay or Juan Carlos Onetti?", "en", ("Bryce Courtenay", "Juan Carlos Onetti"),
     "date", "min", "When did Bryce Courtenay die?"),
    ("Which battle occurred first, the Battle of Manila or the Battle of Guam?", "en",
     ("Battle of Manila", "Battle of Guam"), "date", "min", "When did Battle of Manila take place?"),
    ("Which Karakoram mountain is higher: Distaghil Sar or The Crown", "en", ("Distaghil Sar", "The Crown"), "number",
     "max", "What is the height of Distaghil Sar?"),
    ("Which opera has more acts, Parsifal or Manon by Massenet?", "en", ("Parsifal", "Manon by Massenet"),
     "number", "max", "How many acts does Parsifal have?"),
    # a capital "The" is the title's own word ("The Wild" is not "Wild"); a lower-case "the" is the question's
    ("Which animated film was released first, The Country Bears or The Wild?", "en", ("The Country Bears", "The Wild"),
     "date", "min", "When was The Country Bears released?"),
    # a subtitle's colon is inside the item, the colon before the choice is not
    ("Which film was released earlier, Molokai: The Story Of Father Damien or Brahma – The Creator?", "en",
     ("Molokai: The Story Of Father Damien", "Brahma – The Creator"), "date", "min",
     "When was Molokai: The Story Of Father Damien released?"),
    ("박형식과 승리 중 누가 먼저 태어났나?", "ko", ("박형식", "승리"), "date", "min", "박형식은 언제 태어났나?"),
    ("김무성과 김이수 중 누가 나이가 더 많은가?", "ko", ("김무성", "김이수"), "date", "min", "김무성은 언제 태어났나?"),
    ("알렉산더 헤이그와 김영삼 전 대통령 중 누가 먼저 세상을 떠났나?", "ko", ("알렉산더 헤이그", "김영삼 전 대통령"),
     "date", "min", "알렉산더 헤이그는 언제 세상을 떠났나?"),
    ("미국 텔레비전 시스템 위원회(NTSC)와 퍼블릭 라이브러리 오브 사이언스(PLoS) 중 먼저 설립된 곳은?", "ko",
     ("미국 텔레비전 시스템 위원회(NTSC)", "퍼블릭 라이브러리 오브 사이언스(PLoS)"), "date", "min",
     "미국 텔레비전 시스템 위원회(NTSC)은(는) 언제 설립되었나?"),
    ("캐시 크루즈 인형과 센테니얼 라이트 전구 중 먼저 만들어진 것은?", "ko", ("캐시 크루즈 인형", "센테니얼 라이트 전구"),
     "date", "min", "캐시 크루즈 인형은 언제 만들어졌나?"),
    ("갤럭시 S8과 갤럭시 S7 엣지 중 배터리 용량이 더 큰 것은?", "ko", ("갤럭시 S8", "갤럭시 S7 엣지"), "number", "max",
     "갤럭시 S8의 배터리 용량은 얼마인가?"),
    ("영화 《도둑들》과 《연애의 온도》 중 관객이 더 많이 든 영화는?", "ko", ("도둑들", "연애의 온도"), "number", "max",
     "도둑들의 관객은 얼마인가?"),
])
def test_a_choice_between_two_named_items_is_parsed(question, lang, items, kind, direction, first_sub):
    c = parse_comparison(question, lang)
    assert c is not None, question
    assert (c.items, c.kind, c.direction, c.sub_questions()[0]) == (items, kind, direction, first_sub)


@pytest.mark.parametrize("question, lang", [
    ("Are Yingkou and Fuding the same level of city?", "en"),  # yes/no
    ("Which band formed in England, Of Montreal or Vib Gyor?", "en"),  # no order asked
    ("What officially ended the first phase of the military conflict between the British Raj and the Emirate of "
     "Afghanistan from 1878 to 1880?", "en"),  # "between A and B" in a question that asks no choice
    ("Was Am Rong born earlier than Ava DuVernay?", "en"),
    ("Which film has more than one director, Alien or Jaws?", "en"),  # a filter
    ("갤럭시 S8과 갤럭시 노트5의 RAM 용량은 같은가?", "ko"),
    ("김현웅 전 법무부 장관과 김이수 헌법재판관은 둘 다 전라도 출신인가?", "ko"),
    ("훈민정음은 몇 년에 반포되었나요?", "ko"),
])
def test_what_code_cannot_decide_is_left_to_the_model(question, lang):
    assert parse_comparison(question, lang) is None


def test_every_hand_written_korean_comparison_either_parses_cleanly_or_is_left_alone():
    rows = [json.loads(line) for line in
            (resources.files("gaji") / "data" / "komultihop" / "comparison.jsonl").read_text("utf-8").splitlines()]
    parsed = [c for c in (parse_comparison(r["question"], "ko") for r in rows) if c]
    assert len(parsed) >= len(rows) // 2
    def plain(s: str) -> str:
        return "".join(ch for ch in s if ch not in "《》'")

    for c in parsed:  # an item is a stretch of the question, never the whole choice
        assert all(item and plain(item) in plain(c.question) for item in c.items), c.items
        assert all(" 중 누가" not in item and not item.endswith(("와", "과")) for item in c.items)
        assert not any(c.described)  # the comparison type names its items; the hybrids describe them


def test_a_described_item_is_resolved_to_a_name_first():
    c = parse_comparison("Who was born first, the director of Alien or the director of Jaws?", "en")
    assert c.described == (True, True) and c.resolve_question(c.items[0]) == "Who is director of Alien?"
    ko = parse_comparison("영화 《아가씨》에서 히데코 역을 맡은 배우와 2007년 핑크리본 홍보대사로 유방암의 위험성을 알린 배우 중 "
                          "누가 먼저 연기를 시작했나?", "ko")
    assert ko.described == (True, True) and ko.kind == "date" and ko.direction == "min"
    assert ko.resolve_question(ko.items[0]) == "영화 《아가씨》에서 히데코 역을 맡은 배우는 누구인가?"
    assert ko.sub_question("김민희") == "김민희는 언제 연기를 시작했나?"
    mixed = parse_comparison("유길준이 명성황후를 비판하며 견준 프랑스 왕비와 명성황후 중 누가 먼저 세상을 떠났나?", "ko")
    assert mixed.items == ("유길준이 명성황후를 비판하며 견준 프랑스 왕비", "명성황후") and mixed.described == (True, False)
    named = parse_comparison("강완구 판사와 김현웅 전 법무부 장관 중 누가 먼저 태어났나?", "ko")
    assert named.described == (False, False)
    office = parse_comparison("2017년 헌법재판소장 임명동의안이 국회에서 부결된 헌법재판관과 제64대 법무부 장관 중 누가 먼저 "
                              "태어났나?", "ko")  # an office by its number is whoever held it
    assert office.described == (True, True) and office.resolve_question(office.items[1]) == "제64대 법무부 장관은 누구인가?"
    # people asked for by the noun the question ends on, not by 누가: each resolved with 누구
    actors = parse_comparison("영화 《아가씨》에서 히데코 역을 맡은 배우와 영화 《도둑들》에서 예니콜 역을 맡은 배우 중 먼저 태어난 "
                              "배우는?", "ko")
    assert actors.person and actors.resolve_question(actors.items[1]).endswith("배우는 누구인가?")
    films = parse_comparison("《아가씨》와 《화차》 중 먼저 개봉한 영화는?", "ko")
    assert films is not None and not films.person
    rows = [json.loads(line) for line in
            (resources.files("gaji") / "data" / "komultihop" / "hybrid.jsonl").read_text("utf-8").splitlines()]
    parsed = [c for c in (parse_comparison(r["question"], "ko") for r in rows) if c]
    assert len(parsed) >= len(rows) // 2 and all(any(c.described) for c in parsed)


def _lookups(c, *answers):
    from gaji.methods.toq.order import parse_date, parse_number
    return [Lookup(item, q, a, parse_date(a) if c.kind == "date" else parse_number(a))
            for item, q, a in zip(c.items, c.sub_questions(), answers)]


def test_the_verdict_is_the_item_at_the_asked_for_end_and_nothing_when_unsure():
    born = parse_comparison("Who was born first, Aleksandr Ivanovsky or Arthur Lubin?", "en")
    assert decide(born, _lookups(born, "22 November 1881", "July 25, 1898")).answer == "Aleksandr Ivanovsky"
    younger = parse_comparison("Which film director is younger, Robert Z. Leonard or Sinclair Hill?", "en")
    v = decide(younger, _lookups(younger, "October 7, 1889", "1894"))
    assert v.answer == "Sinclair Hill" and "1889" in v.hint and "1894" in v.hint
    assert decide(born, _lookups(born, "1898", "July 25, 1898")).why == "same year"  # the year alone cannot tell
    assert decide(born, _lookups(born, "unknown", "1898")).why == "no value"
    taller = parse_comparison("Which mountain is taller, Gasherbrum II or Langtang Ri?", "en")
    assert decide(taller, _lookups(taller, "8,035 m", "7,205 m")).answer == "Gasherbrum II"
    assert decide(taller, _lookups(taller, "8,035 m", "8,035 m")).why == "tie"
    ko = parse_comparison("박형식과 승리 중 누가 먼저 태어났나?", "ko")
    assert decide(ko, _lookups(ko, "1991년 11월 16일", "1990년 12월 12일")).answer == "승리"


def _values_llm(values: dict[str, str], first: str) -> ScriptedLLM:
    """The one retrieval's reader says `first`; a look-up read answers the value of the item its question names."""
    def reply(req):
        user = req.messages[-1]["content"]
        system = req.messages[0]["content"]
        if "Give only the date" in system or "날짜만 답하고" in system or "Give only the number" in system:
            return next((v for item, v in values.items() if item in user), "unknown")
        return first
    return ScriptedLLM(default=reply)


def _ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)


def test_auto_replaces_a_wrong_cheap_answer_with_the_verdict_and_says_so():
    q = "Who was born first, Aleksandr Ivanovsky or Arthur Lubin?"
    llm = _values_llm({"Ivanovsky": "22 November 1881", "Lubin": "July 25, 1898"}, first="Arthur Lubin")
    t = Auto().run(q, _ctx(llm))
    c = t.root.data["cascade"]
    assert t.answer == "Aleksandr Ivanovsky" and c["decision"] == "computed" and c["first_answer"] == "Arthur Lubin"
    assert [n.kind for n in t.root.children] == ["compare_item", "compare_item"]
    assert [n.question for n in t.root.children] == ["When was Aleksandr Ivanovsky born?", "When was Arthur Lubin born?"]
    assert sorted(x.purpose for x in t.calls()) == ["answer", "compare", "compare"]
    assert "ivanovsky" in t.citations and "1881" in t.explanation
    assert "replaced the first answer 'Arthur Lubin'" in t.root.stop.reason
    shown = [f.text for f in t.root.children[0].display]
    assert shown == ["date to compare: 1881-11-22"]
    back = Trace.from_json(t.to_json())  # JSON for the CLI, the API and the page
    assert back.root.data["cascade"]["computed"]["lookups"][1]["value"] == [1898, 7, 25]


def test_an_agreeing_sentence_is_worded_as_the_item():
    q = "강완구 판사와 김현웅 전 법무부 장관 중 누가 먼저 태어났나?"
    llm = _values_llm({"강완구": "1945년", "김현웅": "1959년 5월 4일"}, first="강완구 판사는 1945년 서울특별시에서 태어났습니다")
    t = Auto().run(q, _ctx(llm))
    assert t.root.data["cascade"]["decision"] == "stand" and t.answer == "강완구"  # the person, not their title


def test_a_computed_korean_answer_drops_the_title():
    q = "강완구 판사와 김현웅 전 법무부 장관 중 누가 먼저 태어났나?"
    llm = _values_llm({"강완구": "1962년", "김현웅": "1959년 5월 4일"}, first="강완구 판사입니다")
    t = Auto().run(q, _ctx(llm))
    assert t.root.data["cascade"]["decision"] == "computed" and t.answer == "김현웅"


def test_an_agreeing_name_keeps_its_own_shorter_wording():
    q = "윤정훈 목사와 '미네르바' 박대성 중 누가 먼저 태어났나?"
    llm = _values_llm({"윤정훈": "1974년", "박대성": "1978년"}, first="윤정훈")
    t = Auto().run(q, _ctx(llm))
    assert t.root.data["cascade"]["decision"] == "stand" and t.answer == "윤정훈"
    # the tail of a title is not the title: the item as the question names it
    q = "Which film was released earlier, Molokai: The Story Of Father Damien or Brahma – The Creator?"
    llm = _values_llm({"Molokai": "1999", "Brahma": "23 February 2007"}, first="The Story Of Father Damien")
    t = Auto().run(q, _ctx(llm))
    assert t.root.data["cascade"]["decision"] == "stand" and t.answer == "Molokai: The Story Of Father Damien"


def _ko_reads(names: dict[str, str], dates: dict[str, str], first: str):
    """Replies of a scripted Korean reader: a name read gives the name of the first key its question holds, a date
    read the date of the first key its question holds, any other call `first`."""
    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        table = names if "이름만 답하고" in system else dates if "날짜만 답하고" in system else None
        if table is None:
            return first
        return next((v for k, v in table.items() if k in user), "모름")
    return reply


def test_a_description_echoed_back_is_no_name():
    q = "영화 《도둑들》에서 예니콜 역을 맡은 배우와 2005년 스위스에서 독도 사랑 캠페인을 벌인 배우 중 누가 먼저 영화에 데뷔했나?"

    reply = _ko_reads(names={"도둑들": "전지현", "2005년": "2005년 스위스에서 독도 사랑 캠페인을 벌인 배우"},
                      dates={"": "1997년"}, first="전지현")
    t = Auto().run(q, _ctx(ScriptedLLM(default=reply)))
    computed = t.root.data["cascade"]["computed"]
    assert computed["answer"] is None and computed["why"] == "no name" and t.answer == "전지현"


def test_auto_keeps_an_answer_the_verdict_agrees_with_and_korean_reads_korean():
    llm = _values_llm({"박형식": "1991년 11월 16일", "승리": "1990년 12월 12일"}, first="승리")
    t = Auto().run("박형식과 승리 중 누가 먼저 태어났나?", _ctx(llm))
    c = t.root.data["cascade"]
    assert t.answer == "승리" and c["decision"] == "stand" and c["computed"]["answer"] == "승리"
    assert "코드로 비교한 결과가 답과 같음" in t.root.stop.reason
    assert [f.text for f in t.root.children[1].display] == ["비교할 날짜: 1990년 12월 12일"]


def test_without_a_verdict_the_cascade_goes_on_and_low_effort_never_looks_up():
    q = "Who was born first, Aleksandr Ivanovsky or Arthur Lubin?"
    llm = _values_llm({"Ivanovsky": "unknown", "Lubin": "July 25, 1898"}, first="Arthur Lubin")
    t = Auto(route="").run(q, _ctx(llm))
    c = t.root.data["cascade"]
    assert c["computed"]["answer"] is None and c["computed"]["why"] == "no value" and c["decision"] != "computed"
    low = Auto(effort="low").run(q, _ctx(_values_llm({}, first="Arthur Lubin")))
    assert len(low.calls()) == 1 and "computed" not in low.root.data["cascade"]
    off = Auto(compare=False).run(q, _ctx(_values_llm({}, first="Arthur Lubin")))
    assert not any(n.kind == "compare_item" for n in off.root.walk())


def test_described_items_are_resolved_then_compared_and_the_answer_is_the_name():
    q = "영화 《아가씨》에서 히데코 역을 맡은 배우와 2007년 핑크리본 홍보대사로 유방암의 위험성을 알린 배우 중 누가 먼저 연기를 시작했나?"

    reply = _ko_reads(names={"아가씨": "김민희", "핑크리본": "송윤아"}, dates={"김민희": "1999년", "송윤아": "1995년"},
                      first="아가씨")  # the one retrieval's reader echoes a title
    t = Auto().run(q, _ctx(ScriptedLLM(default=reply)))
    c = t.root.data["cascade"]
    assert t.answer == "송윤아" and c["decision"] == "computed"
    kids = t.root.children
    assert [n.question for n in kids][:2] == ["영화 《아가씨》에서 히데코 역을 맡은 배우는 누구인가?",
                                            "2007년 핑크리본 홍보대사로 유방암의 위험성을 알린 배우는 누구인가?"]
    assert [n.question for n in kids][2:] == ["김민희는 언제 연기를 시작했나?", "송윤아는 언제 연기를 시작했나?"]
    assert [f.text for f in kids[0].display] == ["가리키는 이름: 김민희"]
    assert len(t.calls()) == 5


def test_a_description_that_resolves_to_nothing_gives_no_verdict():
    q = "Who was born first, the director of Alien or the director of Jaws?"

    def reply(req):
        system = req.messages[0]["content"]
        if "Give only the name" in system:
            return "unknown"
        return "Ridley Scott"

    t = Auto(route="").run(q, _ctx(ScriptedLLM(default=reply)))
    computed = t.root.data["cascade"]["computed"]
    assert computed["answer"] is None and computed["why"] == "no name"
    assert not any(n.question.startswith("When was") for n in t.root.walk())


def test_a_pronoun_in_a_described_item_is_the_other_items_name():
    c = parse_comparison("알렉산더 헤이그와, 그를 사성 장군이자 육군 부참모로 진급시킨 대통령 중 누가 먼저 결혼했나?", "ko")
    assert c.items == ("알렉산더 헤이그", "알렉산더 헤이그를 사성 장군이자 육군 부참모로 진급시킨 대통령")
    assert c.resolve_question(c.items[1]) == "알렉산더 헤이그를 사성 장군이자 육군 부참모로 진급시킨 대통령은 누구인가?"
    # the particle follows the name's last syllable; a pronoun with no particle ("그 대통령": that) is left alone
    assert with_antecedent(("김홍집", "그를 총리로 앉힌 인물"), (False, True)) == ("김홍집", "김홍집을 총리로 앉힌 인물")
    assert with_antecedent(("김홍집", "그와 함께 일한 인물"), (False, True))[1] == "김홍집과 함께 일한 인물"
    assert with_antecedent(("이순신", "그 시절 왕"), (False, True))[1] == "그 시절 왕"
    # two descriptions: no name to point at
    assert with_antecedent(("그를 만난 왕", "그의 아들"), (True, True)) == ("그를 만난 왕", "그의 아들")


def test_same_entity_reads_one_name_inside_another():
    assert same_entity("알렉산더 헤이그", "알렉산더 메이그스 헤이그 2세") and same_entity("리처드 닉슨", "닉슨")
    assert not same_entity("김태희", "김희선") and not same_entity("알렉산더 헤이그", "리처드 닉슨")


def test_a_description_resolved_to_the_other_item_is_no_name():
    q = "알렉산더 헤이그와, 그를 사성 장군이자 육군 부참모로 진급시킨 대통령 중 누가 먼저 결혼했나?"
    reply = _ko_reads(names={"대통령": "알렉산더 메이그스 헤이그 2세"}, dates={"": "1950년"}, first="알렉산더 헤이그")
    t = Auto().run(q, _ctx(ScriptedLLM(default=reply)))
    computed = t.root.data["cascade"]["computed"]
    assert computed["answer"] is None and computed["why"] == "no name"


def _film_reads(req) -> str:
    """A scripted Korean reader for two items that each hide a person: names by the role, the film by the person and
    the co-star (the plain reader of the bridge's second hop), the audience by the film."""
    system, user = req.messages[0]["content"], req.messages[-1]["content"].split("질문:")[-1]
    if "이름만 답하고" in system:
        return "김태희" if "최승희" in user else "김민희" if "지금은맞고그때는틀리다" in user else "모름"
    if "수치만" in system:
        return "187만 명" if "연애의 온도" in user else "138만 명" if "중천" in user else "모름"
    if "김태희" in user and "정우성" in user:
        return "중천"
    if "김민희" in user and "이민기" in user:
        return "연애의 온도"
    return "드라마 《아이리스》"  # the one retrieval's reader echoes a title of the question


def test_an_item_that_hides_a_person_is_resolved_as_a_bridge():
    q = ("홍상수 감독의 《지금은맞고그때는틀리다》에 출연한 배우가 이민기와 함께 주연한 로맨스 영화와, 드라마 《아이리스》에서 "
         "최승희를 연기한 배우가 정우성과 함께 출연한 영화 중 관객이 더 많이 든 영화는?")
    t = Auto().run(q, _ctx(ScriptedLLM(default=_film_reads)))
    c = t.root.data["cascade"]
    assert t.answer == "연애의 온도" and c["decision"] == "computed"
    resolve = [n for n in t.root.children if n.data.get("resolve")]
    assert [n.data["value"] for n in resolve] == ["연애의 온도", "중천"]
    hops = [k.question for k in resolve[1].children]
    assert hops == ["드라마 《아이리스》에서 최승희를 연기한 배우는 누구인가?", "김태희가 정우성과 함께 출연한 영화는 무엇인가?"]
    assert resolve[1].data["bridge"]["name"] == "김태희"
    assert len(t.calls()) == 1 + 2 * 2 + 2  # the first read, two hops per item, one value per film


def _tie_reads(first: str, pick: str):
    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if "이름만 답하고" in system:
            if "중 하나의 이름만" in user:
                return pick
            return "전지현" if "도둑들" in user else "김태희" if "독도" in user else "모름"
        if "날짜만 답하고" in system:
            return "2000년"
        return first
    return reply


def test_a_choice_the_values_leave_open_is_put_to_the_reader_when_the_first_answer_names_neither():
    q = "영화 《도둑들》에서 예니콜 역을 맡은 배우와 2005년 스위스에서 독도 사랑 캠페인을 벌인 배우 중 누가 먼저 영화에 데뷔했나?"
    t = Auto().run(q, _ctx(ScriptedLLM(default=_tie_reads(first="유아인", pick="전지현입니다"))))
    c = t.root.data["cascade"]
    assert t.answer == "전지현" and c["computed"]["why"] == "chosen" and c["decision"] == "computed"
    chooser = t.root.children[-1]
    assert chooser.data.get("choose") and chooser.passage_ids
    assert [f.text for f in chooser.display] == ["고른 이름: 전지현"]
    assert "둘 다 아님" in t.root.stop.reason and len(t.calls()) == 6
    # a first answer that names one of the two keeps its place: no call more
    kept = Auto().run(q, _ctx(ScriptedLLM(default=_tie_reads(first="김태희", pick="전지현"))))
    assert kept.answer == "김태희" and len(kept.calls()) == 5 and kept.root.data["cascade"]["computed"]["why"] == "tie"
    # one that holds a name but ends as the question does asks the choice back: the reader picks
    asked = Auto().run(q, _ctx(ScriptedLLM(default=_tie_reads(
        first="2005년 스위스에서 독도 사랑 캠페인을 벌인 배우는 김태희가 먼저 영화에 데뷔했나", pick="전지현"))))
    c = asked.root.data["cascade"]
    assert asked.answer == "전지현" and c["asked_back"] and c["computed"]["why"] == "chosen"
    assert "질문을 되풀이" in asked.root.stop.reason
    # a reply that picks neither (or both) leaves the verdict open
    neither = Auto(route="").run(q, _ctx(ScriptedLLM(default=_tie_reads(first="유아인", pick="모름"))))
    assert neither.root.data["cascade"]["computed"]["why"] == "tie"


@pytest.mark.parametrize("question, via, direction, verb", [
    ("Which film has the director who died later, Majhli Didi or Dream Of The Rhine?", "director", "max", "die"),
    ("Which film whose director is younger, Oorige Upakari or Rathimanmadhan?", "director", "max", "born"),
    ("Which film has the producer who is older, Aatma Gowravam or Vitti Dandu?", "producer", "min", "born"),
    ("Which film has the director who is older than the other, A Lady To Love or Queen Of Burlesque?", "director",
     "min", "born"),
])
def test_items_chosen_by_a_person_in_a_role_of_each_are_resolved_to_that_person(question, via, direction, verb):
    c = parse_comparison(question, "en")
    assert (c.via, c.direction, c.verb, c.described) == (via, direction, verb, (True, True))
    assert c.resolve_question(c.items[0]) == f"Who is the {via} of {c.items[0]}?"
    assert parse_comparison("Who was born first, Aleksandr Ivanovsky or Arthur Lubin?", "en").via == ""


def test_the_answer_of_a_choice_by_a_role_is_the_item_not_the_person():
    q = "Which film has the director who died later, Majhli Didi or Dream Of The Rhine?"

    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if "Give only the name" in system:
            return "Ajoy Kar" if "Majhli Didi" in user else "Helmut Käutner" if "Rhine" in user else "unknown"
        if "Give only the date" in system:
            return "1985" if "Ajoy Kar" in user else "14 April 1980" if "Käutner" in user else "unknown"
        return "Dream Of The Rhine"

    t = Auto().run(q, _ctx(ScriptedLLM(default=reply)))
    c = t.root.data["cascade"]
    assert t.answer == "Majhli Didi" and c["decision"] == "computed" and c["computed"]["via"] == "director"
    assert [n.question for n in t.root.children] == [
        "Who is the director of Majhli Didi?", "Who is the director of Dream Of The Rhine?",
        "When did Ajoy Kar die?", "When did Helmut Käutner die?"]


def test_a_second_hops_answer_is_cut_to_the_name_it_gives():
    from gaji.methods.bridge import as_name
    assert as_name('출연한 "4인용 식탁') == "4인용 식탁"  # the reader restated the end of its question
    assert as_name("연애의 온도") == "연애의 온도" and as_name("중천") == "중천"


def test_who_lived_longer_is_a_lifespan_read_as_two_dates_per_item():
    c = parse_comparison("Who lived longer, Mukat Behari Lal Bhargava or Salvador J. Lara?", "en")
    assert (c.kind, c.direction) == ("lifespan", "max")
    assert c.sub_questions()[1] == "When was Salvador J. Lara born, and when did Salvador J. Lara die?"
    ko = parse_comparison("김영삼과 김대중 중 누가 더 오래 살았나?", "ko")  # a name ending in 중 keeps it
    assert (ko.items, ko.kind, ko.direction) == (("김영삼", "김대중"), "lifespan", "max")
    assert ko.sub_questions()[0] == "김영삼은 언제 태어났고 언제 세상을 떠났나?"
    assert parse_comparison("Which river is longer, the Nile or the Amazon?", "en").kind == "number"  # a length


def test_parse_life_reads_two_dates_and_how_much_they_leave_open():
    from gaji.methods.compare import parse_life

    assert parse_life("8 October 1885 – 12 May 1960") == (74.59, 0.0)
    assert parse_life("1920년 3월 1일 – 2009년 8월 18일") == (89.46, 0.0)
    assert parse_life("1885–1960") == (75.0, 2.0)  # years only: each leaves a year open
    assert parse_life("born in 1901") is None and parse_life("unknown") is None  # not two dates
    assert parse_life("1960 – 1885") is None  # a death before the birth is no lifespan


def test_the_longer_life_is_decided_only_when_the_spans_surely_differ():
    c = parse_comparison("Who lived longer, Mukat Behari Lal Bhargava or Salvador J. Lara?", "en")

    def reads(a, b):
        return [Lookup(item, q, r, 1.0) for item, q, r in zip(c.items, c.sub_questions(), (a, b))]

    v = decide(c, reads("1903 – 1980", "12 May 1911 – 3 June 1970"))
    assert v.answer == "Mukat Behari Lal Bhargava" and v.hint.startswith("Lifespans, shortest first: Salvador J. Lara")
    assert decide(c, reads("1903 – 1980", "1904 – 1980")).why == "too close"  # 77 against 76 years, by years alone
    shorter = parse_comparison("Who lived shorter, Mukat Behari Lal Bhargava or Salvador J. Lara?", "en")
    assert decide(shorter, reads("1903 – 1980", "12 May 1911 – 3 June 1970")).answer == "Salvador J. Lara"
    ko = parse_comparison("마리 앙투아네트와 히로히토 중 누가 더 오래 살았나?", "ko")
    kv = decide(ko, [Lookup(item, q, r, 1.0) for item, q, r in
                     zip(ko.items, ko.sub_questions(), ("1755년 11월 2일 ~ 1793년 10월 16일", "1901년 – 1989년 1월 7일"))])
    assert kv.answer == "히로히토" and kv.hint.startswith("산 기간, 짧은 순: 마리 앙투아네트")


def test_auto_decides_who_lived_longer_from_one_read_per_item():
    q = "Who lived longer, Mukat Behari Lal Bhargava or Salvador J. Lara?"
    lives = {"Bhargava": "18 February 1903 – 21 April 1980", "Lara": "5 May 1925 – 1 January 1960"}

    def reply(req):
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if "Give only the two dates" in system:
            return next((v for k, v in lives.items() if k in user), "unknown")
        return "Salvador J. Lara"

    t = Auto().run(q, _ctx(ScriptedLLM(default=reply)))
    assert t.answer == "Mukat Behari Lal Bhargava" and t.root.data["cascade"]["decision"] == "computed"
    assert sorted(x.purpose for x in t.calls()) == ["answer", "compare", "compare"]
    assert [f.text for f in t.root.children[0].display] == ["years lived: 77.17"]


def test_an_items_read_leaves_out_its_namesakes_pages_when_its_own_page_is_there():
    import re

    from gaji.methods.compare import without_namesakes

    docs = [("lara", "Salvador J. Lara", "Salvador J. Lara (July 11, 1920 – September 1, 1945) was a U.S. Army "
                                         "veteran of World War II."),
            ("jorge", "Jorge Salvador Lara", "Jorge Salvador Lara (September 4, 1926 – February 8, 2012) was an "
                                             "Ecuadorian politician; Lara was born in Quito."),
            ("mukat", "Mukat Behari Lal Bhargava", "Mukat Behari Lal Bhargava (30 June 1903 – 18 December 1980) was "
                                                   "an Indian politician.")]

    def last_documents_dates(req):
        """A reader misled by the last page it reads whose title holds the asked surname: its dates."""
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if "Give only the two dates" in system:
            surname = "Lara" if "Lara" in user else "Bhargava"
            pages = [text for title, text in re.findall(r"\[\d+\] \(([^)]*)\) ([^\n]*)", system) if surname in title]
            return re.findall(r"\(([^()]*\d{4}[^()]*)\)", pages[-1])[0]
        return "Salvador J. Lara"

    q = "Who lived longer, Mukat Behari Lal Bhargava or Salvador J. Lara?"
    ctx = RunContext(llm=TrackedLLM(ScriptedLLM(default=last_documents_dates), retries=0, backoff_s=0),
                     retriever=ListRetriever(docs), parallel=False)
    t = Auto().run(q, ctx)
    lara = next(n for n in t.root.children if n.data.get("compare_item") == "Salvador J. Lara")
    assert lara.data["namesakes_dropped"] == ["Jorge Salvador Lara"] and "jorge" not in lara.passage_ids
    assert lara.answer == "July 11, 1920 – September 1, 1945" and t.answer == "Mukat Behari Lal Bhargava"
    assert [f.text for f in lara.display] == ["years lived: 25.14", "namesakes' pages: Jorge Salvador Lara"]
    # without the item's own page nothing is left out; a page titled otherwise is never a namesake
    pages = ListRetriever(docs).search("Salvador Lara", 3)
    assert without_namesakes([p for p in pages if p.id != "lara"], "Salvador J. Lara") == \
        [p for p in pages if p.id != "lara"]
    assert [p.id for p in without_namesakes(pages, "Mukat Behari Lal Bhargava")] == [p.id for p in pages]
