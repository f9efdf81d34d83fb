"""The rewriter's check: a free rewrite that kept a reference, named the wrong item of a list, or left a
Korean follow-up unchanged is resolved by narrow choices (scripted LLM: control flow, parsing, counting)."""
from __future__ import annotations

import re

from gaji.conversation.resolve import needs_resolving
from gaji.conversation.rewrite import rewrite_followup
from gaji.conversation.turns import Turn
from gaji.llm.base import Request
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM


def _text(req: Request) -> str:
    return str(req.messages[-1]["content"])


def model(rewrite: str, choice: str = "1"):
    """A scripted model: `rewrite` for the rewrite prompt, `choice` for a choice prompt."""
    def reply(req: Request) -> str:
        return choice if re.search(r"(?:후보|Candidates):", _text(req)) else rewrite
    return ScriptedLLM([(r".", reply)])


def test_a_kept_reference_is_resolved_by_choice_and_counted():
    h = [Turn("쿠바의 보이콧으로 소토마요르가 출전하지 못한 올림픽은?", "로스앤젤레스 올림픽")]
    q = "그 사람이 첫 세계 주니어 기록을 세운 날은?"
    # the model copies the follow-up as its rewrite, then picks 소토마요르 among the numbered candidates
    llm = ScriptedLLM([(r"(?:후보):", lambda r: str(_cands(_text(r)).index("소토마요르") + 1)), (r".", q)])
    node = rewrite_followup(TrackedLLM(llm), q, h, lang="ko")
    assert node.filled_question == "소토마요르가 첫 세계 주니어 기록을 세운 날은?"
    assert [c.purpose for c in node.calls] == ["rewrite", "resolve"]
    assert node.data["resolve"]["why"] == "kept a reference"
    assert node.data["resolve"]["steps"] == [{"reference": "그 사람이", "name": "소토마요르", "how": "choice"}]
    # the choice prompt lists the candidates and the reference
    prompt = [_text(r) for r in llm.requests if "후보:" in _text(r)][0]
    assert "'그 사람이'" in prompt and "로스앤젤레스 올림픽" in prompt


def _cands(prompt: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\d+\. (.+)$", prompt, re.M)]


def test_a_wrong_ordinal_is_corrected_without_a_call():
    h = [Turn("Which battle occurred first, the Battle of Manila or the Battle of Guam?", "Battle of Guam")]
    llm = model(rewrite="How many civilians died in the Battle of Guam?")
    node = rewrite_followup(TrackedLLM(llm), "How many civilians died in the first one?", h, lang="en")
    assert node.filled_question == "How many civilians died in Battle of Manila?"
    assert [c.purpose for c in node.calls] == ["rewrite"]  # the ordinal needs no model
    assert node.data["resolve"]["steps"][0]["how"] == "ordinal"


def test_korean_subject_left_out_is_put_in_front_or_left_alone():
    h = [Turn("ESP는 어느 도시에서 시작되었어?", "일본 도쿄")]
    llm = ScriptedLLM([(r"후보:", lambda r: str(_cands(_text(r)).index("ESP"))), (r".", "몇 년에 설립됐어?")])
    node = rewrite_followup(TrackedLLM(llm), "몇 년에 설립됐어?", h, lang="ko")
    assert node.filled_question == "ESP는 몇 년에 설립됐어?"  # candidate 0 is "none": index() is the number
    # "0" (none: the question is complete) keeps the rewrite as it came
    node = rewrite_followup(TrackedLLM(model("독도의 면적은 얼마야?", choice="0")), "독도의 면적은 얼마야?", h, lang="ko")
    assert node.filled_question == "독도의 면적은 얼마야?" and node.data["resolve"]["steps"] == []


def test_a_good_rewrite_costs_no_second_call():
    h = [Turn("아이케 장군의 복귀를 단호히 거절한 사람은?", "하인리히 힘러")]
    node = rewrite_followup(TrackedLLM(model("하인리히 힘러의 직책은 뭐였어?")), "그 사람의 직책은 뭐였어?", h, lang="ko")
    assert node.filled_question == "하인리히 힘러의 직책은 뭐였어?" and len(node.calls) == 1
    assert "resolve" not in node.data


def test_an_unusable_choice_leaves_the_reference():
    h = [Turn("ESP를 설립한 사람은 누구야?", "시부야 히사타케")]
    q = "그 회사가 미국에 리페어 샵을 세운 때는?"
    node = rewrite_followup(TrackedLLM(model(q, choice="잘 모르겠어요")), q, h, lang="ko")
    assert node.filled_question == q and node.data["resolve"]["steps"] == []


def test_needs_resolving():
    h = [Turn("금강산의 여름 이름은?", "봉래산")]
    assert needs_resolving("그럼 가을에는?", "그럼 가을에는?", h, "ko") == "unchanged"
    assert needs_resolving("그럼 가을에는?", "금강산의 가을 이름은?", h, "ko") == ""
    assert needs_resolving("금강산은 언제 유명해졌어?", "금강산은 언제 유명해졌어?", h, "ko") == ""
    assert needs_resolving("When did it end?", "When did it end?", h, "en") == "kept a reference"
    assert needs_resolving("Who founded Nvidia?", "Who founded Nvidia?", h, "en") == ""


def test_unfaithful_rewrites_are_caught():
    from gaji.conversation.resolve import unfaithful_rewrite

    h = [Turn("금강산의 총면적은 얼마야?", "530제곱킬로미터")]
    assert unfaithful_rewrite("거기는 보통 어떻게 나뉘어?", "금강산의 총면적은 얼마야?", h, "ko") == "copied an earlier question"
    assert unfaithful_rewrite("그럼 가을에는?", "가을에는 봉래산의 여름 이름이 있습니다.", h, "ko") == "not a question"
    assert unfaithful_rewrite("거기의 별명은 뭐야?", "라라랜드는 로스앤젤레스에서 촬영됐어?", h, "ko") == "dropped the question"
    assert unfaithful_rewrite("팬클럽 이름은?", "방탄소년단은 어디 소속이야? 팬클럽 이름은?", h, "ko") == "not one question"
    assert unfaithful_rewrite("거기는 보통 어떻게 나뉘어?", "금강산은 보통 어떻게 나뉘어?", h, "ko") == ""
    assert unfaithful_rewrite("When did she die?", "When did Maria von Trapp die?", h, "en") == ""


def test_a_question_asked_again_may_be_rewritten_as_before():
    from gaji.conversation.resolve import unfaithful_rewrite

    h = [Turn("Which came first, Manila or Guam?", "Guam"),
         Turn("When did it end?", "10 August 1944", standalone="When did the Battle of Guam end?")]
    assert unfaithful_rewrite("When did it end?", "When did the Battle of Guam end?", h, "en") == ""
