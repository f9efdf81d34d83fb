"""Self-Ask prompts (Press et al., 2023), English and Korean:

    Question: <question>
    Are follow up questions needed here: Yes.
    Follow up: <sub-question>
    Intermediate answer: <answer from retrieval>
    ...
    So the final answer is: <answer>

and the short reader that answers one follow-up from its retrieved passages.
"""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt


@dataclass(frozen=True)
class SelfAskPrompts:
    # the labels of the chain
    question: str
    needed: str
    yes: str
    no: str
    follow_up: str
    intermediate: str
    final: str
    header: str  # the first line of the few-shot prompt
    # The follow-up reader: one short answer from the passages retrieved for the follow-up question.
    reader: Prompt
    unknown: str  # a follow-up the reader could not answer


PROMPTS = ByLang(
    en=SelfAskPrompts(
        question="Question:",
        needed="Are follow up questions needed here:",
        yes="Yes.",
        no="No.",
        follow_up="Follow up:",
        intermediate="Intermediate answer:",
        final="So the final answer is:",
        header="Answer each question by asking simpler follow up questions one at a time. Each follow up question "
        'gets an intermediate answer. When no more are needed, write "So the final answer is: <answer>".',
        reader=Prompt(
            system="You answer a question from search results. Answer with a short phrase (an entity, a date, a "
            "number, yes/no), not a sentence.",
            user="{data_note}\n\n{passages}\n\nQuestion: {question}\n\n"
            "Reply in exactly this form:\nAnswer: <short answer>\nSources: <the [n] numbers of the documents you used>",
        ),
        unknown="unknown",
    ),
    ko=SelfAskPrompts(
        question="질문:",
        needed="추가 질문이 필요한가요:",
        yes="예.",
        no="아니요.",
        follow_up="추가 질문:",
        intermediate="중간 답변:",
        final="따라서 최종 정답은:",
        header="각 질문에 답하기 위해 더 간단한 추가 질문을 하나씩 하세요. 추가 질문마다 중간 답변이 주어집니다. "
        '더 필요하지 않으면 "따라서 최종 정답은: <답>"을 쓰세요.',
        reader=Prompt(
            system="검색 결과를 근거로 질문에 답합니다. 문장이 아닌 짧은 구(개체명, 날짜, 숫자, 예/아니요)로 답하세요.",
            user="{data_note}\n\n{passages}\n\n질문: {question}\n\n"
            "정확히 다음 형식으로 답하세요:\n답: <짧은 답>\n근거: <사용한 문서의 [n] 번호>",
        ),
        unknown="알 수 없음",
    ),
)
