"""Prompts of chunk knowledge generation (paper 001, §3.2-3.3 and §4.2): per chunk one title (one
sentence) and three candidate questions; per query its keywords (§3.1, the teacher for the BIO tagger).

The paper generated its training data with GPT-4o-mini and gives only the *evaluation* prompts
(Appendix A); the generation prompts below follow the same criteria (faithful to the chunk, no
inference beyond it, one-sentence title, three questions a user might search for). Korean and
English; the language follows the chunk (or the query).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt, chat_messages, fill

__all__ = [
    "EXPAND_SCHEMA",
    "KEYWORD_SCHEMA",
    "PROMPT_VERSION",
    "N_QUESTIONS",
    "PROMPTS",
    "expand_messages",
    "keyword_messages",
]

PROMPT_VERSION = "expand-v3"
N_QUESTIONS = 3

# maxLength (characters) bounds the output: small models otherwise copy whole chunk sentences into
# "questions", which costs hundreds of tokens per chunk (measured: 250+ tokens with the 0.5B model).
TITLE_MAX_CHARS = 60
QUESTION_MAX_CHARS = 80
EXPAND_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 2, "maxLength": TITLE_MAX_CHARS},
        "questions": {
            "type": "array",
            "items": {"type": "string", "minLength": 4, "maxLength": QUESTION_MAX_CHARS},
            "minItems": N_QUESTIONS,
            "maxItems": N_QUESTIONS,
        },
    },
    "required": ["title", "questions"],
}

KEYWORD_SCHEMA: dict = {
    "type": "object",
    "properties": {"keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 8}},
    "required": ["keywords"],
}


@dataclass(frozen=True)
class ExpandPrompts:
    # one title and three questions for a chunk ({doc_title}: the document's title line or "", {chunk})
    expand: Prompt
    # One worked example, a chunk and its answer, shown as the first turns (a shared prefix: the backend's prompt
    # cache reuses it across chunks).
    example: tuple[str, dict]
    doc_title: str  # the document's title line, when the chunk has one
    # the keywords of a query (teacher labels for the BIO tagger)
    keywords: Prompt


PROMPTS = ByLang(
    en=ExpandPrompts(
        expand=Prompt(
            system="You read a document chunk and write a title and candidate questions that will be used for search. "
            "Use only information in the chunk; never guess or add anything that is not in it.",
            user="For the document chunk below, write two things.\n"
            "1. Title: one sentence that summarises the chunk's main topic.\n"
            "2. Questions: three questions a user might search for to find this chunk. Each is a short question "
            "ending with a question mark, answerable from the chunk alone; the three ask about different things. "
            "Do not copy the chunk's sentences.\n"
            "Write in English and answer with JSON only: "
            '{{"title": "...", "questions": ["...", "...", "..."]}}\n\n'
            "{doc_title}[Chunk]: {chunk}",
        ),
        example=(
            "The Eiffel Tower was built for the 1889 World's Fair in Paris and remained the tallest man-made "
            "structure in the world until 1930.",
            {"title": "The Eiffel Tower, built for the 1889 World's Fair in Paris",
             "questions": ["When was the Eiffel Tower built?", "For which event was the Eiffel Tower constructed?",
                           "Until when was the Eiffel Tower the tallest man-made structure?"]},
        ),
        doc_title="[Document title]: {title}\n",
        keywords=Prompt(
            system="You extract the key search keywords from a user's query.",
            user="Extract the key search keywords (the central concepts: names, terms, key nouns) from the question "
            "below. Copy each keyword exactly as it appears in the question; never invent words.\n"
            'Answer with JSON only: {{"keywords": ["...", "..."]}}\n\n[Question]: {query}',
        ),
    ),
    ko=ExpandPrompts(
        expand=Prompt(
            system="당신은 문서 조각(chunk)을 읽고, 검색에 쓰일 제목과 후보 질문을 만드는 전문가입니다. "
            "chunk에 있는 정보만 사용하고, chunk에 없는 내용은 추측하거나 덧붙이지 않습니다.",
            user="다음 문서 조각(chunk)에 대해 두 가지를 만드세요.\n"
            "1. 제목: chunk의 핵심 주제를 한 문장으로 요약한 제목 하나.\n"
            "2. 질문: 사용자가 이 chunk를 찾기 위해 검색할 법한 질문 세 개. 각 질문은 물음표로 끝나는 짧은 "
            "의문문이고, chunk의 정보만으로 답할 수 있어야 하며, 세 질문은 서로 다른 내용을 물어야 합니다. "
            "chunk의 문장을 그대로 베끼지 마세요.\n"
            "모두 한국어로 쓰고, JSON으로만 답하세요: "
            '{{"title": "...", "questions": ["...", "...", "..."]}}\n\n'
            "{doc_title}[Chunk]: {chunk}",
        ),
        example=(
            "경복궁은 1395년에 지어진 조선 왕조의 법궁으로, 임진왜란 때 불탄 뒤 1867년 흥선대원군이 다시 지었다.",
            {"title": "조선의 법궁 경복궁의 창건과 중건",
             "questions": ["경복궁은 언제 처음 지어졌나요?", "임진왜란 때 불탄 경복궁을 다시 지은 사람은 누구인가요?",
                           "경복궁은 조선에서 어떤 궁궐이었나요?"]},
        ),
        doc_title="[문서 제목]: {title}\n",
        keywords=Prompt(
            system="당신은 검색 질의에서 핵심 키워드를 추출하는 전문가입니다.",
            user="다음 질문에서 검색에 필요한 핵심 키워드(명사, 고유명사, 전문 용어 등 핵심 개념)를 추출하세요. "
            "키워드는 질문에 나온 표현 그대로 쓰고, 질문에 없는 말은 만들지 마세요. 조사와 어미는 빼세요.\n"
            'JSON으로만 답하세요: {{"keywords": ["...", "..."]}}\n\n[질문]: {query}',
        ),
    ),
)


def expand_messages(text: str, lang: str, doc_title: str = "") -> list[dict]:
    """Chat messages asking for one title and three questions for a chunk."""
    p = PROMPTS[lang]
    head = fill(p.doc_title, title=doc_title) if doc_title else ""
    ex_chunk, ex_answer = p.example
    shots = [(fill(p.expand.user, doc_title="", chunk=ex_chunk), json.dumps(ex_answer, ensure_ascii=False))]
    return chat_messages(fill(p.expand.system), fill(p.expand.user, doc_title=head, chunk=text), shots)


def keyword_messages(query: str, lang: str) -> list[dict]:
    """Chat messages asking for the keywords of a query (teacher labels for the BIO tagger)."""
    return PROMPTS[lang].keywords.messages(query=query)
