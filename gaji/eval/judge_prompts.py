"""The retrieval judge's prompt (paper 001, Appendix A.4, "Retrieval System Application Evaluation Prompt"; used by
gaji/eval/judge.py). The Korean prompt is the paper's; the English one is its translation."""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt


@dataclass(frozen=True)
class RetrievalJudgePrompts:
    # one retrieved chunk ({chunk}) judged for a question ({query}): reasons step by step, then "pass" or "fail" on a
    # line of its own, repeated on the next line
    judge: Prompt


PROMPTS = ByLang(
    en=RetrievalJudgePrompts(
        judge=Prompt(
            system="You are an expert who evaluates document fragments (chunks) for whether they contain the information "
            "needed to answer a question properly. Following the given criteria, judge carefully and logically whether "
            "each chunk holds information appropriate to the question. First explain the grounds of your evaluation "
            "step by step in English, then at the end clearly write either 'pass' or 'fail'. Base the judgement on the "
            "relevance and sufficiency of the information, and focus on whether the information is included, not on "
            "how a response would be worded.",
            user="""The following data is for evaluating whether the information (chunk) selected to generate a response to the given question was appropriate.

[BEGIN DATA]

[Criterion]: Was a chunk containing the information needed to answer the question properly selected correctly?

[Question]: {query}

[Chunk]: {chunk}

The evaluator must judge whether the selected chunk is a 'pass' or a 'fail' according to the criteria below. The point of this evaluation is not the completeness or wording of a response, but which information was needed to answer the question and whether that information was contained in the chunk.

The criteria are:

- The information essentially needed for the question must be contained in the chunk.
- The chunk must contain enough content related to the intent of the question.
- The chunk must not consist of unnecessary information or contain content unrelated to the question.
- If needed information is missing, or only entirely unrelated information is included, it is a fail.

Evaluate as 'fail' in the following cases:

- The key information for answering the question is not contained in the chunk
- The chunk consists of content entirely unrelated to the intent of the question
- The chunk is too fragmentary or broken up to grasp the core of the information
- The chunk contains only non-essential content, such that the question could be answered without it

[END DATA]

Evaluate whether the selected chunk meets the criteria above. First, explain the grounds of your evaluation step by step in English. Do not reveal the verdict right away.

Then, on the next line, clearly write either 'pass' or 'fail'.

On the line after that, write the final verdict once more (without quotes, the word as it is).""",
        ),
    ),
    ko=RetrievalJudgePrompts(
        judge=Prompt(
            system="당신은 질문에 적절히 답하기 위한 정보가 포함된 문서 조각(chunk)을 평가하는 전문가입니다. "
            "주어진 평가 기준에 따라 각 chunk가 질문에 적절한 정보를 담고 있는지 신중하고 논리적으로 판단하세요. "
            "먼저, 평가 근거를 단계별로 한국어로 설명한 뒤, 마지막에는 'pass' 또는 'fail' 중 하나를 명확히 기재합니다. "
            "판단 기준은 정보의 관련성과 충분성에 기반해야 하며, 응답의 표현 방식이 아니라 정보의 포함 여부에 집중해야 합니다.",
            user="""다음은 주어진 질문에 대해 응답을 생성하기 위해 선택된 정보(chunk)가 적절했는지를 평가하기 위한 데이터입니다.

[BEGIN DATA]

[평가 기준]: 질문에 적절히 답변하기 위해 필요한 정보를 포함하는 chunk를 올바르게 선택했는가

[질문]: {query}

[Chunk]: {chunk}

평가자는 아래 기준에 따라 선택된 chunk가 '통과(pass)'인지 '실패(fail)'인지를 판단해야 합니다. 이 평가의 핵심은 응답의 완성도나 표현이 아니라, 질문에 답하기 위해 어떤 정보가 필요했는지, 그리고 그 정보가 chunk에 포함되어 있었는지를 평가하는 것입니다.

평가 기준은 다음과 같습니다:

- 질문에 핵심적으로 필요한 정보가 chunk에 포함되어 있어야 합니다.
- chunk가 질문의 의도와 관련된 내용을 충분히 담고 있어야 합니다.
- chunk가 불필요한 정보로 구성되어 있거나, 질문과 무관한 내용을 포함해서는 안 됩니다.
- 필요한 정보가 누락되었거나, 전혀 관련 없는 정보만 포함된 경우는 실패로 간주합니다.

다음과 같은 경우에는 '실패(fail)'로 평가합니다:

- 질문에 답하기 위한 핵심 정보가 chunk에 포함되어 있지 않음
- chunk가 질문의 의도와 전혀 관련 없는 내용으로 구성됨
- chunk가 너무 단편적이거나 파편화되어 정보의 핵심을 파악할 수 없음
- chunk 없이도 답변이 가능할 정도로 비본질적인 내용만 포함됨

[END DATA]

선택된 chunk가 위 기준에 부합하는지 평가하세요. 먼저, 한국어로 평가 근거를 단계별로 설명하세요. 판단 결과는 즉시 밝히지 마세요.

그 후, 한 줄 아래에 'pass' 또는 'fail' 중 하나를 명확히 적으세요.

또 한 줄 아래에 최종 판단을 다시 한 번 반복해서 적어 주세요 (따옴표 없이, 단어 그대로 작성).""",
        ),
    ),
)
