"""Prompts for answering directly: without retrieval (NoR), from retrieved passages (OneR), and the long-form writer
(gaji/methods/long_answer.py)."""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt


@dataclass(frozen=True)
class DirectPrompts:
    # NoR: closed book.
    nor: Prompt
    # OneR, style "cite": one retrieval with the question. The passages are fenced data; the answer cites them as [n].
    cite: Prompt
    # OneR, style "plain" (default): the documents and the instruction in the system message, the question alone in
    # the user message, and nothing asked of the model but the answer (the shape FlashRAG's standard RAG uses). On
    # the HotpotQA dev half (50 q, 1.5B, same retrieval) it scored EM 32 / F1 45.6 against 26 / 39.4 for "cite",
    # which also asks for a Sources line (BENCHMARKS.md, "One retrieval and the multi-step baselines"). Citations
    # are then attributed from the passages. ToQ's plain reader uses it too.
    plain: Prompt
    # OneR, style "long": RetGen for long-form questions (ConTReGen §4.2's baseline): one retrieval, then a
    # paragraph that covers every reading of the question, citing the documents as [n].
    long: Prompt
    # Notes that go before the question in a long answer's user message: what a chain's follow-up searches found
    # (Self-Ask, style "long"). Each line is a follow-up question and its intermediate answer.
    long_notes: str
    long_note_line: str


# the system turn of NoR and of OneR's "cite" style
_EN_SHORT = ("You are a precise question-answering assistant. Answer with a short phrase (an entity, a date, a number, "
             "yes/no), not a sentence, unless the question asks for an explanation.")
_KO_SHORT = ("당신은 정확한 질의응답 도우미입니다. 질문이 설명을 요구하지 않는 한 문장이 아닌 짧은 구(개체명, 날짜, 숫자, 예/아니오)로 "
             "답하세요.")

PROMPTS = ByLang(
    en=DirectPrompts(
        nor=Prompt(
            system=_EN_SHORT,
            user="Question: {question}\n\nGive only the answer.\nAnswer:",
        ),
        cite=Prompt(
            system=_EN_SHORT,
            user="{data_note}\n\n{passages}\n\nQuestion: {question}\n\n"
            "Answer the question using the documents. Reply in exactly this form:\n"
            "Answer: <short answer>\nSources: <the [n] numbers of the documents you used>",
        ),
        plain=Prompt(
            system="Answer the question based on the given documents. Only give me the answer and do not output any "
            "other words.\n{data_note}\nThe following are the given documents.\n\n{passages}",
            user="Question: {question}",
        ),
        long=Prompt(
            system="Answer the question based on the given documents, in one paragraph of about {words} words. If the "
            "question can be read in more than one way, answer each reading. Cite the documents you use as [n].\n"
            "{data_note}\nThe following are the given documents.\n\n{passages}",
            user="Question: {question}",
        ),
        long_notes="Follow-up questions already answered from searches:\n{notes}\n\n",
        long_note_line="- {question} -> {answer}",
    ),
    ko=DirectPrompts(
        nor=Prompt(
            system=_KO_SHORT,
            user="질문: {question}\n\n답만 쓰세요.\n답:",
        ),
        cite=Prompt(
            system=_KO_SHORT,
            user="{data_note}\n\n{passages}\n\n질문: {question}\n\n"
            "문서를 근거로 질문에 답하세요. 정확히 다음 형식으로 답하세요:\n"
            "답: <짧은 답>\n근거: <사용한 문서의 [n] 번호>",
        ),
        plain=Prompt(
            system="주어진 문서를 바탕으로 질문에 답하세요. 답만 쓰고 다른 말은 덧붙이지 마세요.\n{data_note}\n"
            "주어진 문서는 다음과 같습니다.\n\n{passages}",
            user="질문: {question}",
        ),
        long=Prompt(
            system="주어진 문서를 바탕으로 질문에 약 {words}단어 분량의 한 문단으로 답하세요. 질문이 여러 뜻으로 읽히면 각각에 "
            "답하세요. 사용한 문서는 [n]으로 인용하세요.\n{data_note}\n주어진 문서는 다음과 같습니다.\n\n{passages}",
            user="질문: {question}",
        ),
        long_notes="검색으로 이미 답한 추가 질문:\n{notes}\n\n",
        long_note_line="- {question} -> {answer}",
    ),
)
