"""An answer that only repeats the question, and the one re-ask that fixes it.

A small model that cannot find the asked-for entity often answers with one the question already names:
"2010년 방탄소년단의 … 프로듀서가 작곡가로 데뷔한 해는?" -> "2010년", "… 서울시장이 태어난 도시는?" -> "서울",
"고종과 명성황후의 신임으로 … 복직한 인물은?" -> "명성황후". Unless the question offers a choice ("A와 B 중
누가 …", "A or B") the asked-for thing is something the question does not name, so such an answer is nearly
always wrong (`echoes`). The reader is then asked once more, in the same conversation: its reply, then a turn
that says the answer is named in the question and asks for the entity the question asks about, or the same
answer again if it really is the one (`reask`). The prompt's prefix is unchanged, so a server's prompt cache
serves it; the call is counted like any other (purpose "reask").

    >>> echoes("2010년", "2010년 방탄소년단의 새 멤버를 뽑는 오디션을 연 프로듀서가 작곡가로 데뷔한 해는?", "ko")
    True
    >>> echoes("한지호", "영화 『푸른 밤』에서 도윤 역을 맡은 배우는?", "ko")
    False
    >>> echoes("박형식", "박형식과 승리 중 누가 먼저 태어났나?", "ko")
    False
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from gaji.eval.metrics.answer import normalize_en, strip_ko_ending
from gaji.methods.common import plain_answer
from gaji.methods.span import is_unknown, shape_answer
from gaji.types import Passage

# a question that offers its answer: a choice between named options, or a yes/no about them
_KO_OFFERS = re.compile(r"\s중(?:에서|에)?\s|누가\s*(?:더|먼저|나중)|어느 쪽|같은|둘 다|모두")
_EN_OFFERS = re.compile(r"\bor\b|\bbetween\b|\bsame\b|\bboth\b|\beither\b|\bneither\b|\bmore\b|\bless\b|\bfewer\b|"
                        r"\b(?:first|earlier|later|older|younger|larger|smaller|higher|lower|longer|shorter)\b", re.I)
_YES_NO = re.compile(r"^(?:네|예|아니요|아니오|아뇨|yes|no)$", re.I)
_KO_WORD = re.compile(r"[0-9A-Za-z가-힣]+")
_STRIP = " \t\"'“”‘’`「」『』《》〈〉<>()[].,!?。"

REASK = {
    "ko": "'{answer}'은(는) 질문에 이미 나온 말입니다. 질문이 묻는 대상을 문서에서 찾아 답만 쓰세요. "
          "정말 '{answer}'이(가) 답이라면 그대로 쓰세요.",
    "en": "'{answer}' is already named in the question. Find in the documents what the question asks for and give "
          "only that answer. If '{answer}' really is the answer, give it again.",
}


def offers_answer(question: str, lang: str) -> bool:
    """Does the question name its possible answers (a choice, a "same"/"both" question)?"""
    return bool((_KO_OFFERS if lang == "ko" else _EN_OFFERS).search(question))


def _ko_words(text: str) -> list[str]:
    return _KO_WORD.findall(text)


def _ko_within(answer: str, question: str) -> bool:
    """The answer's words, in order, open adjacent words of the question ("서울" opens "서울시민이",
    "명성황후" opens "명성황후의"); the answer's last word may carry a particle the question's lacks."""
    a = [strip_ko_ending(w) or w for w in _ko_words(answer)]
    q = _ko_words(question)
    if not a or not "".join(a) or len("".join(a)) < 2:
        return False
    for i in range(len(q) - len(a) + 1):
        window = q[i:i + len(a)]
        if all(qw == aw for qw, aw in zip(window[:-1], a[:-1])) and window[-1].startswith(a[-1]):
            return True
    return False


def _en_within(answer: str, question: str) -> bool:
    a, q = normalize_en(answer).split(), normalize_en(question).split()
    if not a or len("".join(a)) < 3:
        return False
    return any(q[i:i + len(a)] == a for i in range(len(q) - len(a) + 1))


def echoes(answer: str, question: str, lang: str) -> bool:
    """Is `answer` something the question itself names, where the question does not offer its answer?"""
    a = answer.strip().strip(_STRIP)
    if not a or is_unknown(a) or _YES_NO.match(a) or offers_answer(question, lang):
        return False
    if lang == "ko" or re.search(r"[가-힣]", a):
        return _ko_within(a, question)
    return _en_within(a, question)


@dataclass(frozen=True)
class Reask:
    """What the re-ask changed: the echoed answer and the reply to the second turn."""

    echoed: str
    reply: str

    def to_dict(self) -> dict[str, str]:
        return {"echoed": self.echoed, "reply": self.reply}


def reask_text(value: object, lang: str) -> str:
    """A node's re-ask in words, for its description: what was echoed and what the second turn said."""
    if not isinstance(value, dict):
        return ""
    if lang == "ko":
        return f"'{value.get('echoed')}'은(는) 질문에 나온 말이라 다시 물음 → {value.get('reply')}"
    return f"'{value.get('echoed')}' is named in the question, so it was asked again → {value.get('reply')}"


Chat = Callable[[list[dict]], str]


def reask(chat: Chat, messages: list[dict], reply: str, answer: str, lang: str) -> str:
    """The reply to a second turn after `reply`, whose `answer` echoed the question (see the module docstring)."""
    turn = REASK["ko" if lang == "ko" else "en"].format(answer=answer.strip().strip(_STRIP))
    return chat([*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": turn}])


def recheck(chat: Chat, messages: list[dict], reply: str, question: str, passages: list[Passage],
            lang: str) -> tuple[str, Reask | None]:
    """(the reply to use, the re-ask made) for a "plain" reply to `messages`: when its answer span echoes the
    question, the re-ask's reply, unless that one gives no answer (the first reply stays); else `reply`, None."""
    span = shape_answer(plain_answer(reply), question, passages, lang).answer
    if not echoes(span, question, lang):
        return reply, None
    again = reask(chat, messages, reply, span, lang)
    second = plain_answer(again)
    return (reply if not second or is_unknown(second) else again), Reask(span, again)
