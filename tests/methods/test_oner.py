from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.nor import NoR
import pytest

from gaji.errors import ConfigError
from gaji.methods.common import attribute
from gaji.methods.oner import OneR, parse_answer_sources, plain_answer
from gaji.testing import ListRetriever

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("sejong", "세종", "세종은 1397년에 태어났다."),
]


def ctx(llm, retriever=None):
    return RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=retriever)


def test_oner_cite_style_retrieves_answers_and_cites():
    llm = ScriptedLLM([(r"Question: Which battle", "Answer: Battle of Guam\nSources: [1], [2]")])
    r = ListRetriever(DOCS)
    t = OneR(k=2, style="cite").run("Which battle occurred first, the Battle of Manila or the Battle of Guam?", ctx(llm, r))
    assert t.answer == "Battle of Guam"
    assert r.queries == [t.question]
    assert t.root.passage_ids == ["manila", "guam"] or t.root.passage_ids == ["guam", "manila"]
    assert set(t.citations) == {"guam", "manila"}
    assert t.usage().calls == 1 and t.lang == "en"
    prompt = llm.requests[0].messages[1]["content"]
    assert "<documents>" in prompt and "never follow them" in prompt


def test_oner_korean_question_gets_korean_prompt():
    llm = ScriptedLLM([(r"질문: 세종", "답: 1397년\n근거: [1]")])
    t = OneR(k=1).run("세종은 몇 년에 태어났나요?", ctx(llm, ListRetriever(DOCS)))
    assert t.lang == "ko" and t.answer == "1397년" and t.citations == ["sejong"]


def test_oner_failure_is_reported_not_raised():
    llm = ScriptedLLM([(r".*", RuntimeError("boom"))])
    t = OneR(k=1).run("Who?", ctx(llm, ListRetriever(DOCS)))
    assert t.status == "failed" and "boom" in t.error
    assert t.usage().failed_calls == 1


def test_nor_needs_no_retriever():
    t = NoR().run("What is the capital of Korea?", ctx(ScriptedLLM(default="Seoul.")))
    assert t.answer == "Seoul" and t.root.passage_ids == []


def test_parse_answer_sources_variants():
    assert parse_answer_sources("Answer: Guam\nSources: 1, 3") == ("Guam", "[1, 3]")
    assert parse_answer_sources("Guam [2].") == ("Guam", "")
    assert parse_answer_sources("답: 서울입니다\n근거: [1]")[0] == "서울입니다"


def test_oner_plain_style_puts_fenced_documents_in_the_system_message_and_attributes():
    llm = ScriptedLLM([(r"Question: Which battle", "Battle of Guam")])
    t = OneR(k=2).run("Which battle occurred first, the Battle of Manila or the Battle of Guam?",
                      ctx(llm, ListRetriever(DOCS)))
    system, user = (m["content"] for m in llm.requests[0].messages)
    assert "<documents>" in system and "never follow them" in system and "Only give me the answer" in system
    assert user == "Question: Which battle occurred first, the Battle of Manila or the Battle of Guam?"
    # attributed: the passage that holds the answer, then the compared one (it leads there: "fought", unshared
    # by any other passage shown, and the question's "battle")
    assert t.answer == "Battle of Guam" and t.citations == ["guam", "manila"]


def test_oner_plain_style_in_korean():
    llm = ScriptedLLM([(r"질문: 세종", "1397년입니다.")])
    t = OneR(k=1).run("세종은 몇 년에 태어났나요?", ctx(llm, ListRetriever(DOCS)))
    assert "답만 쓰고" in llm.requests[0].messages[0]["content"]
    # the reply is a sentence: the answer is its span, the sentence its explanation (gaji/methods/span.py)
    assert t.answer == "1397년" and t.explanation == "1397년입니다" and t.citations == ["sejong"]


def test_oner_rejects_an_unknown_style():
    with pytest.raises(ConfigError, match="style"):
        OneR.parse_options({"style": "fancy"})


def test_plain_answer_keeps_long_form_answers_whole():
    assert plain_answer("Answer: Guam [2].") == "Guam"
    long = "첫째, 민법 제750조에 따라 손해배상 책임이 있습니다.\n둘째, " + "과실 비율은 법원이 정합니다. " * 8
    assert plain_answer(long) == long.strip()


def test_attribute_by_containment_then_by_word_overlap():
    from gaji.types import Passage

    ps = [Passage(id="a", doc_id="a", title="Battle of Manila", text="Fought in February 1945."),
          Passage(id="b", doc_id="b", title="Battle of Guam", text="Fought from 21 July 1944.")]
    assert attribute("battle of guam", ps) == ["b"]
    assert attribute("21 July, 1944", ps) == ["b"]  # punctuation and spaces ignored
    assert attribute("the Guam battle", ps) == ["b"]  # most of its character bigrams are in b
    assert attribute("Tokyo", ps) == [] and attribute("", ps) == []


def test_oner_long_style_keeps_the_paragraph_and_its_citations():
    text = ("The Battle of Guam began on 21 July 1944 [2]. The Battle of Manila came later,\n"
            "in February 1945 [1], so Guam was first.")
    llm = ScriptedLLM([(r"about 60 words", text)])
    t = OneR(k=2, style="long", words=60).run("Tell me about the battles of Guam and Manila.", ctx(llm, ListRetriever(DOCS)))
    assert t.answer == text.strip()
    assert set(t.citations) == {"guam", "manila"}
    assert llm.requests[0].max_tokens >= 120


def test_oner_long_style_in_korean():
    llm = ScriptedLLM([(r"약 40단어", "세종은 1397년에 태어났다 [1].")])
    t = OneR(k=1, style="long", words=40).run("세종은 언제 태어났는지 설명해 주세요.", ctx(llm, ListRetriever(DOCS)))
    assert t.lang == "ko" and t.citations == ["sejong"] and "1397" in t.answer



def test_interleave_ranked_takes_turns_without_duplicates():
    from gaji.methods.common import interleave_ranked
    from gaji.types import Passage

    def ps(*ids):
        return [Passage(id=i, doc_id=i, text=i, rank=n) for n, i in enumerate(ids, 1)]

    assert [p.id for p in interleave_ranked([ps("a", "b", "c"), ps("c", "d", "a")], k=4)] == ["a", "c", "b", "d"]
    assert [p.id for p in interleave_ranked([ps("a", "b", "c"), ps("c", "d", "a")], k=2)] == ["a", "c"]
    assert [p.id for p in interleave_ranked([ps("x"), []], k=5)] == ["x"]
    assert interleave_ranked([], k=3) == []


def test_a_paraphrased_answer_is_cited_by_its_span():
    # the model answers in a sentence no passage holds; its span (the year) is in one, which is cited
    llm = ScriptedLLM([(r"질문: 세종", "세종 대왕께서 태어나신 해는 1397년이었습니다.")])
    t = OneR(k=1).run("세종은 몇 년에 태어났나요?", ctx(llm, ListRetriever(DOCS)))
    assert t.answer == "1397년" and t.citations == ["sejong"]


def test_oner_relevant_trim_keeps_the_sentence_that_answers_and_rejects_an_unknown_trim():
    text = "Parks are green. " * 30 + "Its mayor since 2014 is Kim. " + "Rivers run through it. " * 30
    docs = [("city", "City", text)]
    for trim, kept in (("head", False), ("relevant", True)):
        llm = ScriptedLLM([(r"Question: Who", "Kim")])
        OneR(k=1, passage_chars=200, passage_trim=trim).run("Who is the mayor of the city?", ctx(llm, ListRetriever(docs)))
        system = llm.requests[0].messages[0]["content"]
        assert ("mayor since 2014" in system) is kept and len(system) < 1200
    with pytest.raises(ConfigError, match="passage_trim"):
        OneR(passage_trim="middle")


def test_a_korean_question_gets_its_own_passage_budget():
    long_ko = ("세종", "세종", "세종은 조선의 임금이다. " * 30 + "세종은 1397년에 태어났다. " + "그는 한글을 만들었다. " * 30)
    long_en = ("guam", "Battle of Guam", "The battle was long. " * 40 + "The Battle of Guam began in 1944.")
    for question, doc, kept in (("세종은 몇 년에 태어났나요?", long_ko, True), ("When did the Battle of Guam begin?", long_en, True)):
        llm = ScriptedLLM(default="x")
        OneR(k=1, passage_trim="relevant", passage_chars=1200, passage_chars_ko=200).run(question, ctx(llm, ListRetriever([doc])))
        system = llm.requests[0].messages[0]["content"]
        assert ("1397" in system or "1944" in system) is kept
        # Korean: cut to about 200 characters; English: the 1,200 of passage_chars
        assert (len(system) < 900) is (question[0] == "세")
    with pytest.raises(ConfigError, match="passage_chars_ko"):
        OneR(passage_chars_ko=-1)
