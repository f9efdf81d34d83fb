"""Prompts of the CoRAG-style chain (paper 003, eqs. 1-3), English and Korean.

    (1) sub-question   Q_i = LLM(Q, Q_<i, A_<i)      sub_question
    (2) sub-answer     A_i = LLM(Q_i, D_i)           sub_answer (retrieved passages) / sub_answer_closed (closed book)
    (3) final answer   Â   = LLM(Q, Q_1:i, A_1:i, D)  final

The final-answer prompt shows the passages retrieved with Q *before* the chain, so the prompt
prefix (system + passages) is the same after every step and the backend's prompt cache reuses it
(synthetic-data generation asks for Â after each step).
"""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt, fill


@dataclass(frozen=True)
class ChainPrompts:
    sub_question: Prompt
    no_history: str  # the history of the first sub-question
    history_line: str  # one answered sub-question
    sub_answer: Prompt
    sub_answer_closed: Prompt
    final: Prompt
    evidence: str  # the passages before the final answer's history ({evidence}), when there are any
    not_found: str  # a sub-answer the model did not give


PROMPTS = ByLang(
    en=ChainPrompts(
        sub_question=Prompt(
            system="You break a complex question into simple sub-questions that a search engine can answer, one at a "
            "time. Write only the next sub-question: one short line, no answer, no explanation.",
            user="Main question: {question}\n\nSub-questions answered so far:\n{history}\n\n"
            "Write the next sub-question needed to answer the main question.\nSub-question:",
        ),
        no_history="(none yet)",
        history_line="{i}. Sub-question: {q}\n   Answer: {a}",
        sub_answer=Prompt(
            system="You answer a question from search results with a short phrase (an entity, a date, a number, "
            'yes/no), not a sentence. If the results do not say, reply "No relevant information found".',
            user="{data_note}\n\n{passages}\n\nQuestion: {question}\nShort answer:",
        ),
        sub_answer_closed=Prompt(
            system="Answer the question from your own knowledge with a short phrase (an entity, a date, a number, "
            "yes/no), not a sentence.",
            user="Question: {question}\nShort answer:",
        ),
        final=Prompt(
            system="You answer a complex question using the sub-questions already answered and, when given, search "
            "results. Reply with the final answer only: a short phrase (an entity, a date, a number, yes/no).",
            user="{evidence}Sub-questions and their answers:\n{history}\n\nQuestion: {question}\nFinal answer:",
        ),
        evidence="{data_note}\n\n{passages}\n\n",
        not_found="No relevant information found",
    ),
    ko=ChainPrompts(
        sub_question=Prompt(
            system="복잡한 질문을 검색 엔진이 답할 수 있는 간단한 하위 질문으로 하나씩 나눕니다. 다음 하위 질문 하나만 "
            "쓰세요: 짧은 한 줄, 답이나 설명 없이.",
            user="주 질문: {question}\n\n지금까지 답한 하위 질문:\n{history}\n\n"
            "주 질문에 답하는 데 필요한 다음 하위 질문을 쓰세요.\n하위 질문:",
        ),
        no_history="(아직 없음)",
        history_line="{i}. 하위 질문: {q}\n   답: {a}",
        sub_answer=Prompt(
            system="검색 결과를 근거로 질문에 짧은 구(개체명, 날짜, 숫자, 예/아니요)로 답합니다. 문장으로 쓰지 마세요. "
            '검색 결과에 없으면 "관련 정보 없음"이라고 답하세요.',
            user="{data_note}\n\n{passages}\n\n질문: {question}\n짧은 답:",
        ),
        sub_answer_closed=Prompt(
            system="자신의 지식으로 질문에 짧은 구(개체명, 날짜, 숫자, 예/아니요)로 답하세요. 문장으로 쓰지 마세요.",
            user="질문: {question}\n짧은 답:",
        ),
        final=Prompt(
            system="이미 답한 하위 질문들과 (주어진 경우) 검색 결과를 이용해 복잡한 질문에 답합니다. 최종 답만 짧은 구"
            "(개체명, 날짜, 숫자, 예/아니요)로 쓰세요.",
            user="{evidence}하위 질문과 답:\n{history}\n\n질문: {question}\n최종 답:",
        ),
        evidence="{data_note}\n\n{passages}\n\n",
        not_found="관련 정보 없음",
    ),
)

History = list[tuple[str, str]]  # (Q_i, A_i) so far


def format_history(history: History, lang: str) -> str:
    """The chain so far as the prompts show it: numbered sub-questions with their answers."""
    p = PROMPTS[lang]
    if not history:
        return p.no_history
    return "\n".join(fill(p.history_line, i=i, q=q, a=a) for i, (q, a) in enumerate(history, 1))
