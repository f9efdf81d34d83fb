"""Short answers and their explanations (gaji/methods/span.py), and every method returning both."""
from __future__ import annotations

import pytest

from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.nor import NoR
from gaji.methods.oner import OneR
from gaji.methods.span import (Shaped, explain, filled_in, is_sentence, points_ahead, shape_answer, slot_filled,
                               span_of)
from gaji.testing import ListRetriever
from gaji.types import Passage


@pytest.mark.parametrize("reply,question,span", [
    ("영화 『푸른 밤』에서 도윤 역을 맡은 배우는 한지호입니다.", "영화 『푸른 밤』에서 도윤 역을 맡은 배우는 누구인가요?", "한지호"),
    ("빅뱅은 2006년에 데뷔했습니다.", "빅뱅은 언제 데뷔했나요?", "2006년"),
    ("빅뱅입니다", "2006년에 데뷔한 그룹은?", "빅뱅"),
    ("그 드라마는 '학교 2'입니다.", "그 배우가 처음 출연한 드라마는?", "학교 2"),
    ("세종대왕이 1446년에 반포했습니다.", "훈민정음은 몇 년에 반포되었나요?", "1446년"),
    ("서울특별시에 있습니다.", "한빛고등학교는 어디에 있나요?", "서울특별시"),
    ("정답은 1995년입니다.", "회사는 언제 세워졌나요?", "1995년"),
])
def test_korean_sentences_give_their_span(reply, question, span):
    assert is_sentence(reply, "ko")
    assert span_of(reply, question, "ko") == span


def test_spans_are_not_sentences_and_english_is_cut_only_on_clear_patterns():
    # nouns that end in 다 / 요 are not predicates
    for short in ("1995년", "학교 2", "빅뱅", "Battle of Guam", "Hector Berlioz", "북아메리카의 캐나다", "동해 바다"):
        assert not is_sentence(short, "ko" if any("가" <= c <= "힣" for c in short) else "en")
    assert span_of("The answer is Battle of Guam.", "Which battle came first?", "en") == "Battle of Guam"
    assert span_of("Seoul is the answer.", "Where?", "en") == "Seoul"
    # the answer line closing a sentence of reasoning
    assert span_of("Simone Bolelli was born earlier than Caroline Wozniacki, so the answer is: Simone Bolelli",
                   "Who was born earlier, Simone Bolelli or Caroline Wozniacki?", "en") == "Simone Bolelli"
    # a sentence without a clear pattern is kept whole rather than guessed at
    s = "The Battle of Guam was fought before the Battle of Manila."
    assert span_of(s, "Which battle came first?", "en") == s


def test_explanation_is_the_evidence_sentence_holding_the_answer():
    ps = [Passage("a", "a", "세종은 조선의 왕이다. 훈민정음은 1446년에 반포되었다."),
          Passage("b", "b", "1446년은 세종 28년이다.")]
    assert explain("1446년", ps, "훈민정음은 몇 년에 반포되었나요?") == "훈민정음은 1446년에 반포되었다."
    assert explain("1500년", ps, "훈민정음은 몇 년에 반포되었나요?") == ""  # not in the evidence: none
    shaped = shape_answer("1446년입니다.", "훈민정음은 몇 년에 반포되었나요?", ps, "ko")
    assert (shaped.answer, shaped.explanation) == ("1446년", "1446년입니다.")
    shaped = shape_answer("1446년", "훈민정음은 몇 년에 반포되었나요?", ps, "ko")
    assert (shaped.answer, shaped.explanation) == ("1446년", "훈민정음은 1446년에 반포되었다.")
    assert shape_answer("알 수 없음", "q", ps, "ko").answer == "알 수 없음"


DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944. It ended Japanese rule."),
    ("bigbang", "빅뱅", "빅뱅은 대한민국의 보이 그룹이다. 빅뱅은 2006년에 데뷔했다."),
]


def _ctx(llm, retriever=None):
    return RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=retriever)


def test_oner_returns_span_and_explanation_in_both_languages():
    llm = ScriptedLLM([(r"질문: 빅뱅", "빅뱅은 2006년에 데뷔했습니다."), (r"Question: When", "21 July to 10 August 1944")])
    t = OneR(k=2).run("빅뱅은 언제 데뷔했나요?", _ctx(llm, ListRetriever(DOCS)))
    assert (t.answer, t.explanation) == ("2006년", "빅뱅은 2006년에 데뷔했습니다")  # the reply, cleaned
    assert t.root.answer == "2006년" and t.to_dict()["explanation"] == t.explanation
    t = OneR(k=2).run("When was the Battle of Guam fought?", _ctx(llm, ListRetriever(DOCS)))
    assert t.answer == "21 July to 10 August 1944"
    assert t.explanation == "The Battle of Guam was fought from 21 July to 10 August 1944."


def test_closed_book_has_a_span_and_no_evidence_sentence():
    t = NoR().run("빅뱅은 언제 데뷔했나요?", _ctx(ScriptedLLM(default="2006년이에요.")))
    assert t.answer == "2006년" and t.explanation == "2006년이에요"


def test_long_form_answers_are_kept_whole():
    para = "빅뱅은 2006년에 데뷔했습니다. 이후 여러 앨범을 냈습니다."
    t = OneR(k=1, style="long").run("빅뱅에 대해 알려주세요.", _ctx(ScriptedLLM(default=para), ListRetriever(DOCS)))
    assert t.answer == para and t.explanation == ""


def test_a_choice_restated_as_a_sentence_gives_the_chosen_option():
    from gaji.methods.span import span_of

    assert span_of("박형식이 먼저 태어났습니다", "박형식과 승리 중 누가 먼저 태어났나?", "ko") == "박형식"
    assert span_of("진돗개가 더 큽니다", "진돗개와 삽살개 중 어느 개가 더 큰가요?", "ko") == "진돗개"
    # not a choice: a sentence that only restates the question has no span
    assert span_of("박형식이 태어났습니다", "박형식은 언제 태어났나?", "ko") == "박형식이 태어났습니다"


def test_an_english_copula_reply_gives_its_complement_without_the_asked_noun():
    q = "What citizen was Sharyn McCrumb?"
    assert shape_answer("Sharyn McCrumb was an American citizen", q, [], "en").answer == "American"
    assert shape_answer("Sharyn McCrumb is an American", "What nationality is Sharyn McCrumb?", [], "en").answer \
        == "American"
    assert shape_answer("Empress Wang's mother-in-law is Empress Zhangsun.", "Who is Empress Wang's mother-in-law?", [],
                        "en").answer == "Empress Zhangsun"
    # a complement in the question's own words restates the question: the reply stays whole
    q = "Which Formula One World Champion had a teammate named Richie Ginther?"
    r = "Richie Ginther was a Formula One World Champion."
    assert shape_answer(r, q, [], "en").answer == r
    # the subject is not the question's: no restatement, nothing cut
    r = "Sharyn McCrumb was an American citizen"
    assert shape_answer(r, "What citizen was the author of Bimbos of the Death Sun?", [], "en").answer == r


def test_an_english_reply_that_says_where_its_restated_subject_is_gives_the_place():
    assert shape_answer("Flora was born in Flora", "What is the place of birth of Flora?", [], "en").answer == "Flora"
    q = "Where is the stadium at which the 1964 Georgia Tech Yellow Jackets football team played?"
    assert shape_answer("The stadium is located in Atlanta, Georgia.", q, [], "en").answer == "Atlanta, Georgia"
    # not a place question, or a subject the question does not name: the reply stays whole
    r = "Flora was born in Flora"
    assert shape_answer(r, "Who is the father of Flora?", [], "en").answer == r
    assert shape_answer("Henrik Ibsen was born in Skien", "Where was Flora born?", [], "en").answer \
        == "Henrik Ibsen was born in Skien"


def test_an_english_reply_that_fills_in_the_asked_phrase_gives_the_filler():
    q = "Channel 8 has broadcast which American sports series that premiered in 1973?"
    assert shape_answer("Channel 8 has broadcast HBO World Championship Boxing.", q, [], "en").answer \
        == "HBO World Championship Boxing"
    q = "Connetquot High School  is a public high school in what city in New York?"
    assert shape_answer("Connetquot High School is a public high school in Bohemia, New York.", q, [], "en").answer \
        == "Bohemia"
    # a filler with no answer in it, and a reply that changes more than the asked phrase, stay whole
    r = "Woman's Era and Naj are both magazines"
    assert shape_answer(r, "Woman's Era and Naj are what kind of magazines?", [], "en").answer == r
    r = "HBO broadcast the Boxing series"
    assert shape_answer(r, q, [], "en").answer == r


def test_a_reply_that_echoes_its_context_line_keeps_only_the_answer():
    q = "박형식과 승리 중 누가 먼저 태어났나?"
    shaped = shape_answer(f"{q} -> 박형식이 먼저 태어났다", q, [], "ko")
    assert (shaped.answer, shaped.explanation) == ("박형식", "박형식이 먼저 태어났다")
    assert shape_answer("Which came first? -> Battle of Guam", "Which came first?", [], "en").answer == "Battle of Guam"
    # an arrow without a question before it is not an echo
    assert shape_answer("A -> B", "q?", [], "en").answer == "A -> B"


def test_any_korean_past_tense_ends_a_sentence():
    assert is_sentence("박형식이 먼저 태어났다", "ko") and is_sentence("그 회사는 1995년에 세워졌다", "ko")
    assert span_of("그 회사는 1995년에 세워졌다", "그 회사는 언제 세워졌나요?", "ko") == "1995년"


def test_a_short_korean_reply_drops_the_head_it_repeats_from_the_question():
    q = "영화 《아가씨》에서 히데코 역을 맡은 배우는 누구인가요?"
    assert shape_answer("배우는 김민희", q, [], "ko").answer == "김민희"
    assert shape_answer("김민희", q, [], "ko").answer == "김민희"
    # the head is kept when nothing new would remain, or when it is not in the question
    assert shape_answer("박형식이 먼저", "박형식과 승리 중 누가 먼저 태어났나?", [], "ko").answer == "박형식이 먼저"
    assert shape_answer("감독은 박찬욱", q, [], "ko").answer == "감독은 박찬욱"


def test_a_reply_that_runs_on_is_shaped_from_its_first_sentence():
    q = "빅뱅 멤버 중 가장 먼저 뮤지컬에 출연한 사람은?"
    reply = "빅뱅 멤버 중 가장 먼저 뮤지컬에 출연한 사람은 승리입니다. 제국의 아이들 멤버 중 누가 먼저 데뷔했나? 방탄소년단은"
    assert shape_answer(reply, q, [], "ko") == Shaped("승리", "빅뱅 멤버 중 가장 먼저 뮤지컬에 출연한 사람은 승리입니다.")
    # an abbreviation is no sentence end worth cutting at
    assert shape_answer("Washington, D.C.", "Where?", [], "en").answer == "Washington, D.C."


def test_a_reply_opening_with_yes_or_no_is_that_answer():
    q = "두 정치인은 같은 대학교를 나왔나?"
    reply = "네, 김대중로부터 사면을 요구받은 대통령과 정치인은 같은 대학교를 나왔습니다"
    assert shape_answer(reply, q, [], "ko") == Shaped("네", reply)
    assert shape_answer("No, they were born in different years.", "Were they born in the same year?", [], "en").answer == "No"
    # a name that begins with such a word is no yes/no answer
    assert shape_answer("No Doubt", "Which band recorded it?", [], "en").answer == "No Doubt"
    assert shape_answer("네", q, [], "ko").answer == "네"


def test_a_korean_reply_cut_off_mid_sentence_is_shaped_from_its_first_clause():
    from gaji.methods.span import first_clause

    q = "알렉산더 헤이그와, 그를 사성 장군이자 육군 부참모로 진급시킨 대통령 중 누가 먼저 결혼했나?"
    reply = ("알렉산더 헤이그와 그를 사성 장군이자 육군 부참모로 진급시킨 대통령 중 누가 먼저 결혼했나는 것은 알렉산더 헤이그가 "
             "먼저 결혼했으며, 그는 1950년 5월 한번 자신의 사령관 알론조 폭스 장군의 딸 퍼트리샤 앤토이넷")
    assert first_clause(reply) == "알렉산더 헤이그가 먼저 결혼했다"
    assert shape_answer(reply, q, [], "ko") == Shaped("알렉산더", reply)  # a choice's option: its first word
    q2 = "영화 《아가씨》에서 히데코 역을 맡은 배우가 처음 출연한 드라마는?"
    reply2 = "히데코 역을 맡은 배우가 처음 출연한 드라마는 학교 2이며, 그녀는 그 뒤 여러 영화에 출연하여 이름을 알렸고 그 뒤"
    assert shape_answer(reply2, q2, [], "ko").answer == "학교 2"
    # a short reply, or one that ends like a sentence, is not cut
    assert first_clause("학교 2이며, 그 뒤") == "학교 2이며, 그 뒤"
    assert shape_answer("김민희", q2, [], "ko").answer == "김민희"


def test_same_or_different_answers_a_korean_yes_no_question_about_sameness():
    q = "갤럭시 S8과 갤럭시 노트5의 RAM 용량은 같은가?"
    assert shape_answer("같습니다", q, [], "ko") == Shaped("네", "같습니다")
    assert shape_answer("같다.", q, [], "ko").answer == "네"
    assert shape_answer("다릅니다", q, [], "ko") == Shaped("아니요", "다릅니다")
    assert shape_answer("같지 않습니다", q, [], "ko").answer == "아니요"
    # only where the question asks about sameness, and only a bare reply
    assert shape_answer("같습니다", "두 사람 중 누가 먼저 태어났나?", [], "ko").answer == "같습니다"
    assert shape_answer("같은 해에 태어났습니다", q, [], "ko").answer != "네"


def test_a_restated_question_is_cut_only_before_an_answer():
    from gaji.methods.span import after_restated

    q = "정동영이 검찰에 출두한 날은?"
    assert after_restated("정동영이 검찰에 출두한 날은 2012년 7월 5", q) == "2012년 7월 5"  # cut off mid-date
    assert after_restated("정동영이 출두한 날은 2012년 7월 5일", q) == "2012년 7월 5일"
    # a word before the asked one that the question does not hold: no restatement
    assert after_restated("이명박이 출두한 날은 2012년", q) == "이명박이 출두한 날은 2012년"
    # what follows goes on as a verb ("영입하여 …", read by kiwipiepy): a fragment, not an answer
    from gaji.text.analyzers import kiwi_available

    assert not kiwi_available() or after_restated("정동영이 출두한 날은 영입하여 민주자유당", q) == "정동영이 출두한 날은 영입하여 민주자유당"


@pytest.mark.parametrize("reply,question,filler", [
    ("노아는 하나님의 명령에 따라 배를 만들고 가족과 동물들을 태웠는가", "노아는 누구의 명령에 따라 배를 만들고 가족과 동물들을 태웠는가?",
     "하나님"),
    ("목재 선박은 강도상의 문제로 통상 길이 100m가 한계인가", "목재 선박은 강도상의 문제로 통상 길이 몇m가 한계인가?", "100m"),
    ("훈민정음은 1446년에 반포되었나요?", "훈민정음은 몇 년에 반포되었나요?", "1446년"),  # one word for two
    # told, not asked back: the closing word ends otherwise ("용어입니다" for "용어인가"), quotes aside
    ("'철학'은 고대 그리스어에서 유래한 용어입니다", "'철학'은 어디에서 유래한 용어인가?", "고대 그리스어"),
    ("노아는 하나님의 명령에 따라 배를 만들고 가족과 동물들을 태웠습니다", "노아는 누구의 명령에 따라 배를 만들고 가족과 동물들을 태웠는가?",
     "하나님"),
    ('알렉산더 헤이그는 레이건의 조언자들을 "외교 정책의 아마추어"로 묘사하였다', "알렉산더 헤이그는 레이건의 조언자들을 무엇이라고 묘사하였는가?",
     "외교 정책의 아마추어"),
    # a question closed by "…는지": the told word ends in "습니다"
    ("범인이 그날 밤 창고에서 무기를 숨겼습니다", "범인이 그날 밤 어디에서 무기를 숨겼는지?", "창고"),
])
def test_a_reply_that_fills_in_the_asked_word_answers_with_the_filler(reply, question, filler):
    assert filled_in(reply, question) == filler
    assert shape_answer(reply, question, [], "ko") == Shaped(filler, reply)


@pytest.mark.parametrize("reply,question", [
    ("노아는 누구의 명령에 따라 배를 만들었는가", "노아는 누구의 명령에 따라 배를 만들고 가족과 동물들을 태웠는가?"),  # no filler
    ("하나님", "노아는 누구의 명령에 따라 배를 만들고 가족과 동물들을 태웠는가?"),  # already short
    ("서울시장과 부산시장 중 서울시장이 먼저 태어났다", "서울시장과 부산시장 중 누가 먼저 태어났나?"),  # a changed ending too
    ("트위터 좋아요 수는 블룸버그 통신 집계로 5억 200만 회였습니다", "트위터 좋아요 수는 블룸버그 통신 집계로 몇 회였나?"),  # a sentence
])
def test_no_filler_is_cut_from_other_replies(reply, question):
    assert filled_in(reply, question) == ""


def test_a_korean_question_asking_for_a_work_takes_the_bracketed_title_of_the_reply():
    from gaji.methods.span import work_title
    q = "김태희가 서주희 역으로 출연한 영화는 무엇인가?"
    reply = "김태희가 서주희 역으로 출연한 영화는 2010년 1월에 영화 《그랑프리》에서 서주희 역할로 출연했다."
    assert shape_answer(reply, q, [], "ko").answer == "《그랑프리》"  # not "역할", the last word the question lacks
    assert shape_answer("전지현이 박신양과 함께 주연한 공포 영화는 2003년에 출연한 《4인용 식탁》입니다.",
                        "전지현이 박신양과 함께 주연한 공포 영화는 무엇인가?", [], "ko").answer == "《4인용 식탁》"
    # a person asked for, two titles, a title the question holds, a JSON reply: no title taken
    assert work_title("김민희입니다. 영화 《아가씨》에 출연했다.", "영화 《아가씨》에 출연한 배우는?") == ""
    assert work_title("《도둑들》과 《암살》에 출연했다.", "전지현이 출연한 영화는?") == ""
    assert work_title("영화 《아가씨》입니다.", "영화 《아가씨》의 감독이 만든 영화는?") == ""
    assert work_title('{"items": ["아이리스"], "question": "영화 『[ITEM]』"}', "더 높았던 드라마는?") == ""


@pytest.mark.parametrize("reply,question,slot", [
    ("반류마루는 오후가 되면서 탄약이 완전히 소진되었기 때문에 부득이 퇴함을 결정했고, 벤텐 다이바 아래까지 물러나 얕은 물에 좌초시켰다.",
     "반류마루는 오후가 되면서 무엇이 소진되어 부득이 퇴함을 결정하였는가?", "탄약"),  # up to the word in the asked particle
    ("노아의 방주가 역사적으로 실재했다는 주장은 그 증거가 존재하지 않기에 관련 학계로부터 전혀 인정받지 못하고 있다.",
     "노아의 방주가 역사적으로 실재했다는 주장은 무엇이 존재하지 않아 학계로부터 전혀 인정받지 못하고 있는가?", "그 증거"),
    ("노아의 방주는 목재로 만들어졌기 때문에 현재까지 남아 있는 것이 불가능하다.",
     "노아의 방주는 무엇으로 만들었기 때문에 현재까지 남아 있는 것이 불가능한가?", "목재"),  # 으로 asked, 로 given
    ("알렉산더 헤이그는 로널드 레이건 대통령 밑에서 국무장관을 지냈으며, 리처드 닉슨과 제럴드 포드 대통령 밑에서 백악관 비서실장을 지냈다.",
     "알렉산더 헤이그는 어느 대통령의 밑에서 국무장관을 지냈는가?", "로널드 레이건"),
    ("그 배는 1869년에 하코다테에서 침몰하였고 선원들은 구조되었다.", "그 배는 언제 하코다테에서 침몰하였는가?", "1869년"),
])
def test_a_reply_that_fills_the_asked_slot_and_runs_on_answers_with_the_slot(reply, question, slot):
    assert filled_in(reply, question) == ""  # more than one place changed: the whole-question reading gives nothing
    assert slot_filled(reply, question) == slot
    assert shape_answer(reply, question, [], "ko").answer == slot


@pytest.mark.parametrize("reply,question", [
    # a count runs on into its counter word ("5억 200만 회"): the sentence's span reads it
    ("트위터 좋아요 수는 블룸버그 통신 집계로 5억 200만 회였으며 리트윗 수는 1억 회였다.", "트위터 좋아요 수는 블룸버그 통신 집계로 몇 회였나?"),
    # the opening is not the question's
    ("오후가 되자 반류마루는 탄약이 소진되어 물러났다.", "반류마루는 오후가 되면서 무엇이 소진되어 부득이 퇴함을 결정하였는가?"),
    # no word in the asked particle between the anchors
    ("반류마루는 오후가 되면서 완전히 소진되었다.", "반류마루는 오후가 되면서 무엇이 소진되어 부득이 퇴함을 결정하였는가?"),
    # a choice: its own reading
    ("전지현과 김태희 중 김태희가 먼저 데뷔했고 전지현은 나중이다.", "전지현과 김태희 중 누가 먼저 데뷔했나?"),
])
def test_no_slot_is_read_from_other_replies(reply, question):
    assert slot_filled(reply, question) == ""


def test_a_numbers_unit_of_ten_thousands_is_no_particle():
    # "200만" is two million: its 만 is not the particle "only" ("서울만")
    assert shape_answer("그 책은 모두 200만 부가 팔렸다", "그 책은 몇 부가 팔렸나?", [], "ko").answer.endswith("200만")


def test_a_reply_that_points_ahead_answers_with_its_list():
    from gaji.methods.common import plain_answer
    reply = ("출국 전후로 신고해야 할 사항은 다음과 같습니다.\n\n1. 출국 신고서를 제출해야 합니다.\n"
             "2. 출국 전까지 관할경찰관서의 장에게 출국신고서를 제출해야 합니다.")
    question = "출국 전후로 신고해야 할 사항은 무엇인가?"
    # a short reply is otherwise cut to its first line, which says only "다음"
    assert plain_answer(reply) == reply.strip()
    shaped = shape_answer(plain_answer(reply), question, [], "ko")
    assert shaped.answer == "출국 신고서를 제출해야 합니다. 출국 전까지 관할경찰관서의 장에게 출국신고서를 제출해야 합니다."
    assert shape_answer("The steps are as follows:\n- file the form\n- pay the fee", "What are the steps?", [],
                        "en").answer == "file the form pay the fee"
    # a number opening a listed line is no list mark
    assert points_ahead("증가율은 다음과 같습니다.\n1.5배 늘었습니다.\n2. 수출이 늘었습니다.") == \
        "1.5배 늘었습니다. 수출이 늘었습니다."
    # a first line that answers is no pointer
    assert shape_answer("출국 신고서입니다.\n1. 제출", question, [], "ko").answer != "제출"
