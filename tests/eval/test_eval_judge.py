from gaji.eval.judge import RetrievalJudge, parse_verdict, self_judging_note
from gaji.eval.judge_prompts import PROMPTS
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.types import Passage


def test_parse_verdict_takes_the_last_one():
    assert parse_verdict("The chunk lacks the date, so it would fail... Actually it has it.\npass\npass") is True
    assert parse_verdict("근거: 핵심 정보가 없다.\nfail\nfail") is False
    assert parse_verdict("판단: 통과") is True and parse_verdict("판단: 실패") is False
    assert parse_verdict("PASS") is True
    assert parse_verdict("no verdict here; passage bypassed") is None


def test_prompts_follow_the_paper_in_both_languages():
    ko, en = PROMPTS["ko"].judge, PROMPTS["en"].judge
    assert "[BEGIN DATA]" in ko.user and "{query}" in ko.user and "{chunk}" in ko.user
    assert "질문에 적절히 답변하기 위해 필요한 정보를 포함하는 chunk를 올바르게 선택했는가" in ko.user
    assert "[BEGIN DATA]" in en.user and "{query}" in en.user and "'pass' or 'fail'" in en.user
    assert "한국어로" in ko.system and "in English" in en.system
    assert "biased" in self_judging_note() and "편향" in self_judging_note("ko")


def passages():
    return [Passage(id=f"p{i}", doc_id=f"d{i}", title=f"T{i}", text=t) for i, t in
            enumerate(["irrelevant text", "Guam battle 1944", "more noise", "never judged"], 1)]


def test_judge_top_k_and_language():
    llm = ScriptedLLM([(r"Guam battle", "It contains the date.\npass\npass"), (r".*", "Nothing useful.\nfail\nfail")])
    j = RetrievalJudge(TrackedLLM(llm, backoff_s=0), k=3)
    res = j.judge("When was the Battle of Guam?", passages(), "en")
    assert res.verdicts == [False, True, False]
    assert res.metrics((1, 3)) == {"judge_top@1": 0.0, "judge_top@3": 1.0, "judge_pass_rate": 1 / 3}
    assert len(res.node.calls) == 3 and all(c.purpose == "judge" for c in res.node.calls)
    assert "[Question]: When was the Battle of Guam?" in llm.requests[0].messages[1]["content"]
    res_ko = j.judge("괌 전투는 언제?", passages()[:1], "ko")
    assert res_ko.verdicts == [False] and "[질문]: 괌 전투는 언제?" in llm.requests[-1].messages[1]["content"]


def test_judge_failures_count_as_no_verdict():
    llm = ScriptedLLM([(r".*", RuntimeError("down"))])
    res = RetrievalJudge(TrackedLLM(llm, retries=0, backoff_s=0), k=2).judge("q", passages(), "en")
    assert res.verdicts == [None, None] and res.errors == 2 and res.top_at(2) == 0.0
