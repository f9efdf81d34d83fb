"""The turn that asks a reader once more about an answer of the wrong shape (gaji/methods/reask.py)."""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang


@dataclass(frozen=True)
class ReaskPrompts:
    echo: str  # the answer is a thing the question itself names
    restated: str  # the answer says the question back
    value: str  # the answer is a value where the question asks which one


PROMPTS = ByLang(
    en=ReaskPrompts(
        echo="'{answer}' is already named in the question. Find in the documents what the question asks for and "
        "give only that answer. If '{answer}' really is the answer, give it again.",
        restated="You repeated the question instead of answering it. Find in the documents what the question asks "
        "for and give only that answer.",
        value="The question asks which one. Do not give a value such as '{answer}': give only the name of the one "
        "that fits, from the documents.",
    ),
    ko=ReaskPrompts(
        echo="'{answer}'은(는) 질문에 이미 나온 말입니다. 질문이 묻는 대상을 문서에서 찾아 답만 쓰세요. "
        "정말 '{answer}'이(가) 답이라면 그대로 쓰세요.",
        restated="질문을 되풀이했을 뿐 답하지 않았습니다. 질문이 묻는 대상을 문서에서 찾아 답만 쓰세요.",
        value="질문은 어느 쪽인지를 묻습니다. '{answer}' 같은 값이 아니라, 문서를 보고 해당하는 쪽의 이름만 쓰세요.",
    ),
)
