"""The prompts of a conversation, English and Korean (the language follows the follow-up question).

The rewrite (gaji/conversation/rewrite.py): the model sees the last turns (questions as they were answered,
answers cut short) and the follow-up, and writes the follow-up as a question that can be searched on its own:
pronouns ("he", "there", "그 사람", "거기"), ordinals ("the second one", "두 번째") and a left-out subject replaced by
what they refer to. The exemplars use entities that appear in no benchmark of this repository.

The choice (gaji/conversation/resolve.py): which of the candidates a reference the rewrite left stands for, answered
with its number.
"""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang

Turns = list[tuple[str, str]]  # (question, answer)


@dataclass(frozen=True)
class ConversationPrompts:
    # -- the rewrite
    rewrite_system: str
    conversation: str  # the labels of the user turn
    q: str
    a: str
    last_question: str
    rewritten: str
    # (turns, follow-up, rewrite), shown as worked turns
    examples: tuple[tuple[Turns, str, str], ...]
    # -- the choice
    ask_reference: str  # which candidate '{ref}' refers to
    ask_subject: str  # (Korean) which candidate a question without a subject is about; 0 for none
    candidates: str
    number: str
    none: str


PROMPTS = ByLang(
    en=ConversationPrompts(
        rewrite_system="You rewrite the last question of a conversation so that it can be understood without the "
        "conversation. Replace pronouns (he, she, it, they, there, that), references such as \"the second one\" and a left-out "
        "subject with the names they refer to in the conversation. Keep the question's meaning and language. "
        "Do not answer it. If the question is already complete, repeat it unchanged. "
        "Write only the rewritten question.",
        conversation="Conversation:",
        q="Q",
        a="A",
        last_question="Last question",
        rewritten="Rewritten question:",
        examples=(
            ([("Who wrote the novel The Old Man and the Sea?", "Ernest Hemingway")],
             "Where was he born?", "Where was Ernest Hemingway born?"),
            ([("Which city hosted the 1992 Summer Olympics?", "Barcelona")],
             "What is the tallest church there?", "What is the tallest church in Barcelona?"),
            ([("Which two rivers meet at Khartoum?", "The Blue Nile and the White Nile")],
             "How long is the second one?", "How long is the White Nile?"),
            ([("When did Norway adopt its constitution?", "1814")],
             "What about Denmark?", "When did Denmark adopt its constitution?"),
            ([("Who painted The Starry Night?", "Vincent van Gogh")],
             "What is the capital of Peru?", "What is the capital of Peru?"),
        ),
        ask_reference="In the last question of this conversation, which candidate does '{ref}' refer to? Write its "
        "number only.",
        ask_subject="Which candidate is the last question of this conversation about? Write its number only, "
        "or 0 if the question already names what it asks about.",
        candidates="Candidates",
        number="Number:",
        none="none",
    ),
    ko=ConversationPrompts(
        rewrite_system="대화의 마지막 질문을 대화를 보지 않아도 이해할 수 있는 질문으로 다시 쓰세요. "
        "대명사(그 사람, 그녀, 그것, 거기, 그곳), \"두 번째\" 같은 지칭, 생략된 주어를 대화에서 가리키는 이름으로 바꾸세요. "
        "질문의 뜻과 언어는 그대로 두고, 질문에 답하지 마세요. 이미 완전한 질문이면 그대로 다시 쓰세요. "
        "다시 쓴 질문만 쓰세요.",
        conversation="대화:",
        q="질문",
        a="답",
        last_question="마지막 질문",
        rewritten="다시 쓴 질문:",
        examples=(
            ([("소설 『토지』를 쓴 작가는 누구야?", "박경리")],
             "그 사람은 어디에서 태어났어?", "박경리는 어디에서 태어났어?"),
            ([("2002년 월드컵 결승전은 어디에서 열렸어?", "요코하마 국제종합경기장")],
             "거기는 몇 명을 수용할 수 있어?", "요코하마 국제종합경기장은 몇 명을 수용할 수 있어?"),
            ([("백제의 수도였던 도시 두 곳은?", "공주와 부여")],
             "그럼 두 번째는 언제 수도가 됐어?", "부여는 언제 백제의 수도가 됐어?"),
            ([("석굴암은 누가 만들었어?", "김대성")],
             "언제 완공됐어?", "석굴암은 언제 완공됐어?"),
            ([("한라산의 높이는 얼마야?", "1,947미터")],
             "그럼 설악산은?", "설악산의 높이는 얼마야?"),
            ([("2002년 월드컵에서 한국 대표팀을 이끈 감독은?", "거스 히딩크")],
             "어느 나라 사람이야?", "거스 히딩크는 어느 나라 사람이야?"),
            ([("에펠탑은 어느 도시에 있어?", "파리")],
             "독도의 면적은 얼마야?", "독도의 면적은 얼마야?"),
        ),
        ask_reference="다음 대화의 마지막 질문에서 '{ref}'(이)가 가리키는 것을 후보에서 고르세요. 번호만 쓰세요.",
        ask_subject="다음 대화의 마지막 질문은 누구 또는 무엇에 대해 묻고 있나요? 후보에서 고르고 번호만 쓰세요. "
        "질문이 이미 대상을 밝히고 있으면 0을 쓰세요.",
        candidates="후보",
        number="번호:",
        none="없음",
    ),
)


def user_message(lang: str, turns: Turns, question: str) -> str:
    """The rewrite's user turn: the conversation, the follow-up, and the label the model continues."""
    p = PROMPTS[lang]
    lines = [p.conversation]
    for i, (q, a) in enumerate(turns, 1):
        lines.append(f"{p.q}{i}: {q}")
        lines.append(f"{p.a}{i}: {a}")
    lines.append("")
    lines.append(f"{p.last_question}: {question}")
    lines.append(p.rewritten)
    return "\n".join(lines)
