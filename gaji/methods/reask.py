"""Answers of the wrong shape, and the one re-ask that fixes them.

A small model that cannot find what a question asks for often answers with something else it can see:

- **echo**: a thing the question itself names. "2010년 방탄소년단의 … 프로듀서가 작곡가로 데뷔한 해는?" -> "2010년",
  "… 서울시장이 태어난 도시는?" -> "서울", "고종과 명성황후의 신임으로 … 복직한 인물은?" -> "명성황후". Unless the
  question offers its answer (a choice "A와 B 중 누가 …", "A or B"; a "same"/"both" question), the asked-for
  thing is one the question does not name, so such an answer is nearly always wrong (`echoes`);
- **restated**: the question said back with nothing new ("알렉산더 헤이그와 그를 … 진급시킨 대통령 중 누가 먼저
  결혼했나? 알렉산더 헤이그와 …"), which no question is answered by, choices included (`restates`);
- **value**: the compared value where the question asks which one. "알렉산더 헤이그와 쇼와 천황 중 누가 먼저
  태어났나?" -> "1901년", "갤럭시 S8과 갤럭시 S7 엣지 중 배터리 용량이 더 큰 것은?" -> "3600 mAh" (`gives_value`).

The reader is then asked once more, in the same conversation: its reply, then a turn that names the problem
and asks again, allowing the same answer if it really is the one (`recheck`). The prompt's prefix is unchanged,
so a server's prompt cache serves it; the call is counted like any other (purpose "reask"). When the second
reply gives no answer, or only a yes or a no (it agrees with the turn instead of answering), the first stays.

    >>> wrong_shape("2010년", "2010년 방탄소년단의 새 멤버를 뽑는 오디션을 연 프로듀서가 작곡가로 데뷔한 해는?", "ko")
    'echo'
    >>> wrong_shape("1901년", "알렉산더 헤이그와 쇼와 천황 중 누가 먼저 태어났나?", "ko")
    'value'
    >>> wrong_shape("쇼와 천황", "알렉산더 헤이그와 쇼와 천황 중 누가 먼저 태어났나?", "ko")
    ''
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from gaji.llm.prompts import fill
from gaji.text.answers import normalize_en, strip_ko_ending
from gaji.text.ko_phrases import ASKING_END
from gaji.methods.common import plain_answer
from gaji.methods.prompts import reask as reask_prompts
from gaji.methods.span import filled_in, is_unknown, shape_answer
from gaji.types import Node, Passage

if TYPE_CHECKING:
    from gaji.llm.tracked import TrackedLLM

# a question that offers its answer: a choice between named options, or a yes/no about them
_KO_OFFERS = re.compile(r"\s중(?:에서|에)?\s|누가\s*(?:더|먼저|나중)|어느 쪽|같은|둘 다|모두")
_EN_OFFERS = re.compile(r"\bor\b|\bbetween\b|\bsame\b|\bboth\b|\beither\b|\bneither\b|\bmore\b|\bless\b|\bfewer\b|"
                        r"\b(?:first|earlier|later|older|younger|larger|smaller|higher|lower|longer|shorter)\b", re.I)
# a question that asks which of its options ("A와 B 중 누가 먼저 …", "Which came first, A or B?")
_KO_PICKS = re.compile(r"\s중(?:에서)?\s.*(?:누가|누구|어느|어떤|무엇|더|먼저|나중|가장)|(?:누가|어느 쪽이)\s*(?:더|먼저|나중에)")
_EN_PICKS = re.compile(r"^\s*(?:which|who|what)\b.*(?:\bor\b|\bbetween\b)", re.I)
# words a value may hold besides its numbers ("3600 mAh", "1,200만 명", "5 million")
_UNITS = frozenset("mah gb mb tb kb km m cm mm kg g 명 개 원 달러 만 억 천 화소 인치 % percent million billion thousand "
                   "years year days months 년 월 일 세 살".split())
_YES_NO = re.compile(r"^(?:네|예|아니요|아니오|아뇨|yes|no)$", re.I)
_OPENS_YES_NO = re.compile(r"^(?:네|예|아니요|아니오|아뇨|yes|no)\b", re.I)
_WORD = re.compile(r"[0-9A-Za-z가-힣]+")
_STRIP = " \t\"'“”‘’`「」『』《》〈〉<>()[].,!?。"


def offers_answer(question: str, lang: str) -> bool:
    """Does the question name its possible answers (a choice, a "same"/"both" question)?"""
    return bool((_KO_OFFERS if lang == "ko" else _EN_OFFERS).search(question))


def picks_option(question: str, lang: str) -> bool:
    """Does the question ask which of the things it names (not a yes/no about them)?"""
    return bool((_KO_PICKS if lang == "ko" else _EN_PICKS).search(question))


def _ko_within(answer: str, question: str) -> bool:
    """The answer's words, in order, open adjacent words of the question ("서울" opens "서울시민이",
    "명성황후" opens "명성황후의"); the answer's last word may carry a particle the question's lacks."""
    a = [strip_ko_ending(w) or w for w in _WORD.findall(answer)]
    q = _WORD.findall(question)
    if len("".join(a)) < 2:
        return False
    for i in range(len(q) - len(a) + 1):
        window = q[i:i + len(a)]
        if all(qw == aw for qw, aw in zip(window[:-1], a[:-1])) and window[-1].startswith(a[-1]):
            return True
    return False


def _en_within(answer: str, question: str) -> bool:
    a, q = normalize_en(answer).split(), normalize_en(question).split()
    if len("".join(a)) < 3:
        return False
    return any(q[i:i + len(a)] == a for i in range(len(q) - len(a) + 1))


def _within(answer: str, question: str, lang: str) -> bool:
    return _ko_within(answer, question) if lang == "ko" or re.search(r"[가-힣]", answer) else _en_within(answer, question)


def _bare(answer: str) -> str:
    a = answer.strip().strip(_STRIP)
    return "" if not a or is_unknown(a) or _YES_NO.match(a) else a


def echoes(answer: str, question: str, lang: str) -> bool:
    """Is `answer` something the question itself names, where the question does not offer its answer?"""
    a = _bare(answer)
    return bool(a) and not offers_answer(question, lang) and _within(a, question, lang)


def _stems(text: str) -> set[str]:
    return {(strip_ko_ending(w) or w) if re.search(r"[가-힣]", w) else w.lower() for w in _WORD.findall(text)}


# the copula that closes a said-back sentence adds nothing to it ("…복음서는 입니다")
_COPULAS = frozenset("입니다 이다 입니 있습니다 합니다 됩니다 이에요 예요".split())


def restates(answer: str, question: str) -> bool:
    """Does `answer` say the question back: four words or more besides a copula, none of them new (a Korean one may
    be spaced otherwise), and three in four of the question's words? Not when it opens with a yes or a no ("네, 두
    사람 모두 …": the yes answers), nor when it names one option and leaves the other out ("Xinghua is a
    county-level city" for "Is Baiyin or Xinghua a county-level city?"), nor when it fills in the asked word
    ("노아는 하나님의 명령에 …" for "노아는 누구의 명령에 …?"); a sentence that answers adds the answer's words
    ("… 도시는 요코하마 시입니다")."""
    a = _bare(answer)
    if not a or _OPENS_YES_NO.match(a) or filled_in(a, question):
        return False
    said, asked = _stems(a) - _COPULAS, _stems(question)
    if len(said) < 4 or len(said) < 0.75 * len(asked):
        return False
    # a Korean word may be spaced otherwise than in the question ("기록하고 있는" for "기록하고있는")
    joined = "".join(_WORD.findall(question)).lower()
    return all(w in asked or re.search(r"[가-힣]", w) and w in joined for w in said)


def asks_back(answer: str, question: str) -> bool:
    """Does `answer` end the way its question does, as a question: a sentence of two words or more whose last word is
    the question's asking one ("…배우는 김태희가 먼저 영화에 데뷔했나" for "… 중 누가 먼저 영화에 데뷔했나?"), or that
    ends in a question mark after the question's last word? Such a reply asks, whatever name it holds."""
    a, q = answer.strip(), question.strip()
    words, asked = a.rstrip("?？.。! ").split(), q.rstrip("?？.。! ").split()
    if len(words) < 2 or not asked or words[-1].lower() != asked[-1].lower():
        return False
    return a.endswith(("?", "？")) or bool(ASKING_END.search(words[-1]))


def is_value(answer: str) -> bool:
    """A date or a quantity: every word holds a digit or is a unit, and one holds a digit ("1901년", "3600 mAh",
    "1982년 1월 15일"); a name with a number in it is none ("갤럭시 S8", "4인용 식탁", "헤이그 2세")."""
    words = answer.split()
    return any(re.search(r"\d", w) for w in words) and all(
        re.search(r"\d", w) or w.lower().strip(_STRIP) in _UNITS for w in words) and all(
        re.fullmatch(r"[\d.,:/~\-%]+(?:[a-zA-Z]{0,3}|년|월|일|세|살|명|개|원|만|억|천|회|번째)?", w.strip(_STRIP))
        or not re.search(r"\d", w) for w in words)


def gives_value(answer: str, question: str, lang: str) -> bool:
    """Is `answer` a date or quantity, named nowhere in the question, where the question asks which of its options?"""
    a = _bare(answer)
    return bool(a) and is_value(a) and picks_option(question, lang) and not _within(a, question, lang)


def wrong_shape(answer: str, question: str, lang: str) -> str:
    """"echo" | "restated" | "value" (see the module docstring), "" for an answer of the right shape."""
    if echoes(answer, question, lang):
        return "echo"
    if restates(answer, question):
        return "restated"
    return "value" if gives_value(answer, question, lang) else ""


@dataclass(frozen=True)
class Reask:
    """A re-ask: why (the kind of wrong shape), the first answer's span and the reply to the second turn."""

    kind: str  # "echo" | "restated" | "value"
    answer: str
    reply: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "answer": self.answer, "reply": self.reply}


def reask_text(value: object, lang: str) -> str:
    """A node's re-ask in words, for its description: what was wrong and what the second turn said."""
    if not isinstance(value, dict):
        return ""
    a, reply = value.get("answer"), value.get("reply")
    if value.get("kind") == "value":
        return (f"'{a}'은(는) 고를 대상이 아니라 값이라 다시 물음 → {reply}" if lang == "ko"
                else f"'{a}' is a value, not one of the options, so it was asked again → {reply}")
    if value.get("kind") == "restated":
        return (f"답이 질문을 되풀이해 다시 물음 → {reply}" if lang == "ko"
                else f"the answer repeated the question, so it was asked again → {reply}")
    return (f"'{a}'은(는) 질문에 나온 말이라 다시 물음 → {reply}" if lang == "ko"
            else f"'{a}' is named in the question, so it was asked again → {reply}")


Chat = Callable[[list[dict]], str]


def recheck(chat: Chat, messages: list[dict], reply: str, question: str, passages: list[Passage],
            lang: str) -> tuple[str, Reask | None]:
    """(the reply to use, the re-ask made) for a "plain" reply to `messages`: when its answer span has the wrong
    shape, the re-ask's reply, unless that one gives no answer (the first reply stays); else (`reply`, None)."""
    span = shape_answer(plain_answer(reply), question, passages, lang).answer
    # the shaping may cut a said-back question to its tail, so the whole reply is looked at for that too
    kind = wrong_shape(span, question, lang) or ("restated" if restates(plain_answer(reply), question) else "")
    if not kind:
        return reply, None
    p = reask_prompts.PROMPTS[lang]
    turn = fill({"echo": p.echo, "restated": p.restated, "value": p.value}[kind], answer=span.strip().strip(_STRIP))
    again = chat([*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": turn}])
    second = shape_answer(plain_answer(again), question, passages, lang).answer
    # no answer, or a bare yes/no ("네, '…'은 …입니다" agrees with the turn, it does not answer the question)
    keep = not second or is_unknown(second) or bool(_YES_NO.match(second.strip()))
    return (reply if keep else again), Reask(kind, span, again)


def ask_plain(llm: TrackedLLM, node: Node, messages: list[dict], question: str, passages: list[Passage], lang: str,
           max_tokens: int, reask: bool, logprobs: int = 0) -> str:
    """The reply to a "plain" answer prompt (purpose "answer") on `node`; with `reask`, the reply after `recheck`,
    the re-ask recorded in `node.data["reask"]`. `logprobs` > 0: each call records how sure the model was
    (LLMCall.confidence)."""
    out = llm.chat(node, "answer", messages, max_tokens=max_tokens, logprobs=logprobs)
    if reask:
        out, again = recheck(lambda m: llm.chat(node, "reask", m, max_tokens=max_tokens, logprobs=logprobs),
                             messages, out, question, passages, lang)
        if again:
            node.data["reask"] = again.to_dict()
    return out
