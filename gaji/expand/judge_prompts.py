"""The paper's LLM-judge prompts for chunk knowledge (paper 001, Appendix A.1-A.3), Korean as published and
an English rendering. Each judges one generated item (a query's keywords, a chunk's title, a chunk's set of
three questions) pass or fail against the chunk (or query); a reference item, when there is one, is shown
"for reference only", as in the paper.

The paper's judge (GPT-4o) wrote its reasoning and then 'pass' or 'fail' on a line of its own. A small local
judge keeps that order inside schema-constrained JSON ({"reasoning", "verdict"}): reasoning first, then the
verdict, so the verdict still follows the argument. That output format is the only change to the prompts.
"""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt, chat_messages, fill

JUDGE_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 600},
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
    },
    "required": ["reasoning", "verdict"],
}

# A.2's criteria, about a {what} (A.3 words them slightly differently in Korean and is written out below; English for both)
_CHUNK_CRITERIA_KO = """- {what}이 chunk의 핵심 정보나 주제를 반영하고 있는가
- chunk의 정보만으로 질문에 대한 충분한 근거가 확보되는가
- {what}이 chunk에 포함되지 않은 내용을 추론하거나 과도하게 확장하고 있지는 않은가
- chunk의 의미를 왜곡하지 않고 정확히 반영했는가

다음과 같은 경우는 '실패(fail)'로 평가합니다:

- chunk의 핵심 내용과 관련 없는 {what}이 생성됨
- chunk에 포함되지 않은 정보에 기반한 {what}이 생성됨
- chunk의 정보로는 {what}이 과도한 추론으로 구성될 수 없음
- chunk의 의미를 잘못 해석하여 왜곡된 {what}이 생성됨"""
_CHUNK_CRITERIA_EN = """- Does the {what} reflect the key information or topic of the chunk?
- Does the chunk's information alone give sufficient grounds for it?
- Does the {what} avoid inferring or over-extending content that is not in the chunk?
- Does it reflect the chunk's meaning accurately, without distortion?

Judge it 'fail' when:

- the {what} is unrelated to the chunk's key content
- the {what} is based on information not in the chunk
- the {what} could only come from the chunk by excessive inference
- the {what} misreads and distorts the chunk's meaning"""


@dataclass(frozen=True)
class JudgePrompts:
    keywords: Prompt  # A.1 keyword evaluation ({query}, {item}, {reference})
    title: Prompt  # A.2 title evaluation ({chunk}, {item}, {reference})
    questions: Prompt  # A.3 question evaluation ({chunk}, {item}, {reference})
    output: str  # after each user turn: reasons first, then the verdict, as JSON
    no_reference: str  # {reference} when there is none


PROMPTS = ByLang(
    en=JudgePrompts(
        keywords=Prompt(
            system="You are an expert who judges whether keywords were extracted well from a query.",
            user="""Below is data for judging whether the keywords extracted from a question are appropriate.
[BEGIN DATA]

[Criterion]: Do the keywords extracted from the question reflect its information accurately and appropriately?
[Question]: {query}
[Keywords]: {item}
[Reference keywords (for reference only)]: {reference}

Keywords must be the key information taken from the question; mark `false` when their meaning is unclear or they
represent the question poorly.

* The reference is only an example for reference; do not use it as grounds for the judgement.

[END DATA]

Judge whether the generated keywords meet the criterion above.
""",
        ),
        title=Prompt(
            system="You are an expert who judges whether a title generated from a chunk is appropriate. Following the given "
            "criteria, judge carefully and logically whether the title is faithful to the chunk's information.",
            user="""Below is data for judging whether a title generated from the given chunk is appropriate.
[BEGIN DATA]

[Criterion]: Does the title generated from the document chunk reflect its information accurately and appropriately?
[Chunk]: {chunk}
[Title]: {item}
[Reference title (for reference only)]: {reference}

* The reference title is only an example for reference; do not use it as grounds for the judgement.

* Judge only on the [Chunk] and the [Title].

Decide by the criteria below whether the generated title passes or fails. What matters is not the title's wording
or sentence structure but whether it condenses the information in the chunk.

The criteria:

""" + fill(_CHUNK_CRITERIA_EN, what="title") + """

[END DATA]

Judge whether the generated title meets the criteria above.
""",
        ),
        questions=Prompt(
            system="You are an expert who judges whether questions generated from a chunk are appropriate. Following the given "
            "criteria, judge carefully and logically whether the questions are faithful to the chunk's information.",
            user="""Below is data for judging whether a set of questions (<q1>, <q2>, <q3>) generated from the given chunk is appropriate.

[BEGIN DATA]

[Criterion]: Does the question set generated from the document chunk reflect its information accurately and appropriately?

[Chunk]: {chunk}

[Question set]: {item}

[Reference questions (for reference only)]: {reference}

* The reference questions are only an example for reference; do not use them as grounds for the judgement.

* Judge only on the [Chunk] and the [Question set].

Decide by the criteria below whether the generated questions pass or fail.

What matters is not the questions' wording or sentence structure but whether they can really be derived from the
content of the given chunk.

The criteria:

""" + fill(_CHUNK_CRITERIA_EN, what="question") + """

[END DATA]

Judge whether the generated questions meet the criteria above.

If even one question of the set reflects the chunk's information accurately, the whole set passes.

If all three questions are unrelated to the chunk or inappropriate, it fails.
""",
        ),
        output='First write your reasons briefly, then the verdict. Output JSON only: '
        '{{"reasoning": "<reasons>", "verdict": "pass or fail"}}',
        no_reference="(none)",
    ),
    ko=JudgePrompts(
        keywords=Prompt(
            system="당신은 query를 기반으로 keyword가 잘 추출되었는지 평가하는 전문가입니다.",
            user="""다음은 주어진 질문을 기반으로 추출된 키워드가 적절한지 평가하기 위한 데이터입니다.
[BEGIN DATA]

[평가 기준]: 질문에 기반하여 추출된 키워드가 해당 정보를 정확하고 적절하게 반영하고 있는가
[질문]: {query}
[키워드]: {item}
[정답 키워드 (참고용)]: {reference}

키워드는 반드시 질문에서 추출된 핵심 정보여야 하며, 의미가 불분명하거나 대표성이 약한 경우 `false`로 표기합니다.

* 정답 질문은 단순 참고를 위한 예시일 뿐이며, 평가 근거로 사용하지 마세요.

[END DATA]

생성된 키워드가 위 기준에 부합하는지 평가하세요.
""",
        ),
        title=Prompt(
            system="당신은 chunk를 기반으로 생성된 제목이 적절한지 평가하는 전문가입니다. 주어진 평가 기준에 따라 제목이 "
            "해당 chunk의 정보에 충실하게 생성되었는지를 신중하고 논리적으로 판단하세요.",
            user="""다음은 주어진 chunk를 기반으로 생성된 제목이 적절한지 평가하기 위한 데이터입니다.
[BEGIN DATA]

[평가 기준]: 문서 조각에 기반하여 생성된 제목이 해당 정보를 정확하고 적절하게 반영하고 있는가
[Chunk]: {chunk}
[제목]: {item}
[정답 title (참고용)]: {reference}

* 정답 title은 단순 참고를 위한 예시일 뿐이며, 평가 근거로 사용하지 마세요.

* 평가는 반드시 [Chunk]와 [제목]만을 기준으로 수행하세요.

평가자는 아래 기준에 따라 생성된 제목이 '통과(pass)'인지 '실패(fail)'인지를 판단해야 합니다. 이 평가의 핵심은 제목의 표현 방식이나 문장 구조가 아니라, chunk에 담긴 정보를 함축한 제목인가를 평가하는 것입니다.

평가 기준은 다음과 같습니다:

""" + fill(_CHUNK_CRITERIA_KO, what="제목") + """

[END DATA]

생성된 제목이 위 기준에 부합하는지 평가하세요.
""",
        ),
        questions=Prompt(
            system="당신은 chunk를 기반으로 생성된 질문이 적절한지 평가하는 전문가입니다. 주어진 평가 기준에 따라 질문이 "
            "해당 chunk의 정보에 충실하게 생성되었는지를 신중하고 논리적으로 판단하세요.",
            user="""다음은 주어진 chunk를 기반으로 생성된 질문 세트(<q1>, <q2>, <q3>) 적절한지 평가하기 위한 데이터입니다.

[BEGIN DATA]

[평가 기준]: 문서 조각에 기반하여 생성된 질문 세트가 해당 정보를 정확하고 적절하게 반영하고 있는가

[Chunk]: {chunk}

[질문 세트]: {item}

[정답 질문 (참고용)]: {reference}

* 정답 질문은 단순 참고를 위한 예시일 뿐이며, 평가 근거로 사용하지 마세요.

* 평가는 반드시 [Chunk]와 [질문 세트]만을 기준으로 수행하세요.

평가자는 아래 기준에 따라 생성된 질문이 '통과(pass)'인지 '실패(fail)'인지를 판단해야 합니다.

이 평가의 핵심은 질문의 표현 방식이나 문장 구조가 아니라, 해당 질문이 주어진 chunk의 내용으로부터 실제로 도출될 수 있는지 여부를 판단하는 것입니다.

평가 기준은 다음과 같습니다:

- 질문이 chunk의 핵심 정보나 주제를 반영하는가
- chunk의 정보만으로 질문에 대한 충분한 근거가 확보되는가
- 질문이 chunk에 포함되지 않은 내용을 추론하거나 과도하게 확장하지 않았는가
- 질문이 chunk의 의미를 왜곡하지 않았는가

다음과 같은 경우는 '실패(fail)'로 평가합니다:

- chunk의 내용과 관련 없는 질문이 생성됨
- chunk에 포함되지 않은 정보에 기반한 질문이 생성됨
- chunk의 정보로는 질문이 과도한 추론으로 구성될 수 없음
- chunk의 의미를 잘못 해석하여 왜곡된 질문이 생성됨

[END DATA]

생성된 질문이 위 기준에 부합하는지 평가하세요.

질문 세트 중 하나라도 chunk의 정보를 정확히 반영하면 전체 평가를 pass로 한다.

세 질문 모두 chunk와 무관하거나 부적절하다면 fail로 한다.
""",
        ),
        output='먼저 평가 근거를 간단히 쓰고, 그 다음 판단을 적으세요. JSON으로만 출력: '
        '{{"reasoning": "<평가 근거>", "verdict": "pass 또는 fail"}}',
        no_reference="(없음)",
    ),
)


def judge_messages(kind: str, lang: str, *, item: str, reference: str = "", chunk: str = "",
                   query: str = "") -> list[dict]:
    """The chat messages judging one item of `kind` (keywords | title | questions)."""
    p = PROMPTS[lang]
    prompt = {"keywords": p.keywords, "title": p.title, "questions": p.questions}[kind]
    text = fill(prompt.user, item=item, reference=reference or p.no_reference, chunk=chunk, query=query)
    return chat_messages(fill(prompt.system), text + "\n" + fill(p.output))


def question_set(questions: list[str]) -> str:
    """<q1>…</q1> <q2>…</q2> … as the paper's prompt names them."""
    return " ".join(f"<q{i}>{q}</q{i}>" for i, q in enumerate(questions, 1))
