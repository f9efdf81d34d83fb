"""Intersection questions: two or more independent constraints on ONE asked-for entity.

    "명성황후의 후원으로 돈령부 도정에 올랐고, 고종이 … 강하게 반발한 유학자는?"   (conjoined clauses)
    "미국 육군사관학교에서 공부한 인물 가운데 레이건 정부의 초대 국무장관을 지낸 사람은?"  (a set, then a filter)
    "Which actor was born in Seoul and also directed Oldboy?"

Split as a chain, the second hop searches through the first answer and can overwrite a right one; each
constraint is a question of its own about the same unknown. This module holds the code around that split
(the intersect prompt itself is in prompts_*.py, its parser in decomposer.py):

`detect(question, lang)` says, without an LLM, whether a question has that shape, and returns the cue
("conjoined" | "set-filter" | "both" | "relative-and"), "" when not. The routed decomposer asks it only
after the shape router did not say "compare" (ToQ option `intersect`).
  Korean (Kiwi morphemes): the question ends in an asked-for head, a noun phrase after an adnominal ending
  ("…반발한 유학자는?", "…인 곳은 어디인가?"), and before that head either a clause-joining ending (-고, -며,
  -으며, 이자, -면서; not "-고 있") with no demonstrative after it ("그 인물이…" points back: a chain), or
  "N 가운데/중" whose N is described by a relative clause ("…맞붙은 경쟁자 가운데") and whose rest asks
  for no end of a comparison (더, 먼저, 가장, 누가, 어느 …).
  English (regular expressions): a wh-question whose asked-for thing takes two conjoined verb phrases
  ("who was born in A and (also) directed B", "who both … and …") or two relative clauses ("the … that …
  and that …"), or "Among the X, which …?"; a title's "and" ("Kiss and Tell") does not count, nor a question
  with a comparative ("first", "older", "-est", "same").

Measured (no LLM; tuned on the Korean set's dev part only):
    komultihop dev (15 per type)       intersection 15/15, bridging 0/15, comparison 0/15, hybrid 0/15
    komultihop report (not tuned)      intersection 12/15, bridging 0/15, comparison 0/15, hybrid 0/15
                                       (missed: "세 후보 가운데", "…의 아파트 가운데", "주요 거점 도시국가
                                       가운데": the set's noun is not led by a relative clause)
    HotpotQA dev, first 200 questions  1/200 fires (bridge 1/65, comparison 0/30, untyped 0/105): "Who was known
                                       by his stage name Aladin and helped organizations …?", an intersection
(`tests/methods/toq/test_toq_intersect.py` holds cases from each group.)

`split(question, lang)` cuts the constraints out of the question's own text, no LLM (ToQ option
`intersect_split=code`; the 1.5B model asked for this split copied the whole question or misspelt its names):
Korean conjoined clauses, the earlier ones' endings rewritten by Kiwi to describe the head ("올랐고" → "오른",
"작가이자" → "작가인", a present "하고" → "하는"), or a set ("…한 X들은?", a list) and its filter ("…한 Y는?");
English "Which X <verb phrase> and <verb phrase>?" as one question per verb phrase. None when unsure.
Splits 14/15 dev intersection questions (019's set clause names nothing the question names).

`agree(answers, lang)` is the intersection decided by code (ToQ option `intersect_decide`): every child's
answer (a list answer counts as its items) holds one common item, compared after the answer metrics'
normalisation (Korean particles and copulas stripped, English case, punctuation and articles), a shorter
answer matching a longer one that contains it word for word and adds at most two words ("최익현" and
"면암 최익현"); the shortest form is the answer. Exactly one such item, else None and the node's reader
answers as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from gaji.text.answers import normalize_en, normalize_ko
from gaji.methods.toq.names_rule import lost_names
from gaji.methods.toq.prompts import is_unknown
from gaji.methods.toq.tree import split_list_answer
from gaji.text.analyzers import get_kiwi, kiwi_lock, kiwi_tokens
from gaji.text.normalize import squash

# -- the detector: Korean -----------------------------------------------------------------------------------
_NOUN = ("NNG", "NNP", "NNB", "NR", "SN", "SL", "XSN", "SH")
_JOIN = {"고", "며", "으며", "자", "면서", "으면서"}  # clause-joining endings (EC) after a predicate
_PREDICATE = ("VV", "VA", "VX", "VCP", "XSV", "XSA", "EP")
_SET = {"가운데", "중", "중에서"}
_DEMONSTRATIVE = {"그", "이", "해당"}  # "그 인물이 …": the later clause points back at an earlier answer
_COMPARING = {"더", "먼저", "가장", "제일", "덜", "나중", "누구", "어느", "둘", "모두"}
_ASKS = {"누구", "무엇", "어디", "무슨", "어느", "뭐"}  # "…인 사람은 누구인가?" keeps its head


def _pairs(toks: list) -> list[tuple[str, str]]:
    """(form, base tag) of each Kiwi token."""
    return [(t.form, _base(t.tag)) for t in toks]


def _head(toks: list[tuple[str, str]]) -> tuple[int, bool] | None:
    """Where the asked-for head starts when the question ends in one (nouns, an optional topic/subject particle,
    an optional "누구/무엇 …" tail, punctuation), and whether an adnominal ending (ETM) opens it; None when
    the question ends otherwise (a yes/no or "누가 …했나?" question)."""
    end = len(toks)
    while end and toks[end - 1][1] in ("SF", "SP", "SS", "SE", "SO", "SW"):
        end -= 1
    # "… 사람은 누구인가" / "… 곳은 어디입니까": drop the wh-copula tail
    for i in range(end - 1, max(end - 5, -1), -1):
        if toks[i][1] == "NP" and toks[i][0] in _ASKS:
            end = i
            break
    if end and toks[end - 1][1] in ("JX", "JKS"):
        end -= 1
    i = end
    while i and toks[i - 1][1] in _NOUN:
        i -= 1
    if i == end or i == 0:
        return None
    return i, toks[i - 1][1] == "ETM"


def _clause_joins(toks: list[tuple[str, str]], start: int) -> list[int]:
    """Where one clause ends and the next begins (a joining ending) before the head at toks[start]."""
    joins = []
    for i in range(1, start - 1):
        form, tag = toks[i]
        if tag != "EC" or form not in _JOIN or toks[i - 1][1] not in _PREDICATE:
            continue
        # a clause boundary: after a tense or copula ("올랐고", "작가이자") or a comma; a bare stem's -고 is
        # an adverbial inside one clause ("무주를 제치고 뽑힌", "원인을 두고")
        if toks[i - 1][1] not in ("EP", "VCP") and toks[i + 1][0] != ",":
            continue
        if toks[i + 1][1] == "VX":  # "-고 있는": one predicate, not two clauses
            continue
        joins.append(i)
    return joins


def _cue_ko(toks: list[tuple[str, str]], head: tuple[int, bool] | None) -> str:
    """The detector on a question's (form, base tag) morphemes and its asked-for head (`_head`)."""
    if head is None:
        return ""
    start, adnominal = head
    if adnominal:  # "…했고, …한 인물은?": both clauses describe the head
        for i in _clause_joins(toks, start):
            if not any(f in _DEMONSTRATIVE and t in ("MM", "NP") for f, t in toks[i + 1:start]):
                return "conjoined"
    for i in range(1, start):  # "…한 N 가운데 …인 것은?": a set described by a clause, then a filter
        if toks[i][0] not in _SET or toks[i][1] not in ("NNG", "NNB"):
            continue
        j = i
        while j and toks[j - 1][1] in _NOUN and i - j < 3:
            j -= 1
        if j == i or j == 0 or toks[j - 1][1] != "ETM":
            continue  # "A와 B 중": named items, not a set described by a clause
        if any(f in _COMPARING for f, _ in toks[i + 1:]):
            continue
        return "set-filter"
    return ""


def _detect_ko(question: str) -> str:
    toks = kiwi_tokens(question)
    if not toks:
        return ""
    pairs = _pairs(toks)
    return _cue_ko(pairs, _head(pairs))


# -- the detector: English ----------------------------------------------------------------------------------
_WH = re.compile(r"^\s*(?:(?:in|at|for|from|of|by|on|with)\s+)?(?:which|who|whom|whose|what|name)\b|^\s*among\b", re.I)
# a verb after "and": an auxiliary, a past form or a common irregular past
_VERB = (r"(?:also\s+)?(?:was|were|is|are|has|had|have|did|won|wrote|led|made|became|began|ran|sang|took|gave|"
         r"held|built|founded|[a-z]{2,}ed)\b")
# the asked-for thing itself takes both constraints: the wh-phrase ("which actor", "what river") is what the
# relative clause or the verbs describe ("What award did the player who … and … win?" asks about another thing)
_ASKED = r"^\s*(?:(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:who|that|which)|who)\s+"
_EN_CUES = (
    ("both", re.compile(_ASKED + r"(?:\w+\s+)?both\s+(?!the\b)[a-z]\w*\b.*\band\b", re.I)),
    ("relative-and", re.compile(_ASKED + r"[^?]*?[a-z0-9,]\s+and\s+(?:also\s+)?(?:that|who|whose|which)\b", re.I)),
    ("conjoined", re.compile(_ASKED + r"[^?]*?[a-z0-9]\s+and\s+" + _VERB, re.I)),
    ("set-filter", re.compile(r"^\s*among\s+(?:the\s+)?[^,?]+,\s*(?:which|who|what)\b", re.I)),
    ("conjoined", re.compile(r"^\s*which\s+[\w-]+(?:\s+[\w-]+)?\s+(?:was|were|is|has|had|did|\w+ed)\b[^?]*?[a-z0-9]"
                             r"\s+and\s+" + _VERB, re.I)),
)
_EN_COMPARING = re.compile(r"\b(?:first|earlier|later|older|younger|more|less|longer|shorter|larger|smaller|"
                           r"bigger|higher|lower|\w+est|same|both\s+(?:the\s+)?[A-Z])\b")


def _detect_en(question: str) -> str:
    if not _WH.match(question) or _EN_COMPARING.search(question):
        return ""
    for cue, pattern in _EN_CUES:
        if pattern.search(question):
            return cue
    return ""


def detect(question: str, lang: str) -> str:
    """The cue that makes `question` an intersection (two constraints on one asked-for entity), "" if none."""
    return _detect_ko(question) if lang == "ko" else _detect_en(question)


# -- the split by code --------------------------------------------------------------------------------------
_DROP_EP = {"었", "았", "였"}  # the past tense, which the adnominal ᆫ carries on its own ("올랐고" → "오른")


def _base(tag: str) -> str:
    return tag.split("-", 1)[0]


def _adnominal(question: str, toks: list, end: int) -> str | None:
    """The clause that ends with the predicate before toks[end] (a joining ending) rewritten to describe a noun:
    "…도정에 올랐고" → "…도정에 오른", "…작가이자" → "…작가인", "…축구를 하고" → "…축구를 하는"; None when
    its predicate ends otherwise (an honorific, a future, a double past: no safe rewrite)."""
    word_start = question.rfind(" ", 0, toks[end].start) + 1
    first = next(i for i in range(end + 1) if toks[i].start >= word_start)
    morphs = [(t.form, t.tag) for t in toks[first:end]]
    if not morphs:
        return None
    if _base(morphs[-1][1]) == "EP":
        if morphs[-1][0] not in _DROP_EP:
            return None
        morphs.pop()
        ending = "ᆫ"
    else:
        ending = "ᆫ" if _base(morphs[-1][1]) in ("VCP", "VA", "XSA") else "는"
    if not morphs or _base(morphs[-1][1]) not in ("VV", "VA", "VCP", "XSV", "XSA") or any(
            _base(t) == "EP" for _, t in morphs):
        return None
    with kiwi_lock():
        word = get_kiwi().join(morphs + [(ending, "ETM")])
    return question[:word_start] + word


def _topic(noun_phrase: str) -> str:
    """The topic particle that follows `noun_phrase`: 은 after a final consonant, else 는."""
    last = noun_phrase[-1]
    if "가" <= last <= "힣":
        return "은" if (ord(last) - 0xAC00) % 28 else "는"
    return "은" if last.isdigit() and last in "0136789" else "는"


def _split_ko(question: str) -> tuple[list[str], str] | None:
    """The sub-questions and the text their names are checked against (the question without the set word,
    which the split drops on purpose and Kiwi sometimes tags as a name: "게임 가운데")."""
    toks = kiwi_tokens(question)
    if not toks:
        return None
    pairs = _pairs(toks)
    head = _head(pairs)
    cue = _cue_ko(pairs, head)
    if not cue or head is None:
        return None
    start, _ = head
    if cue == "conjoined":
        # every clause but the last is rewritten to describe the head; the last already does
        asked = question[toks[start].start:].strip()
        out, begin = [], 0
        for i in _clause_joins(pairs, start):
            clause = _adnominal(question, toks, i)
            if clause is None:
                return None
            out.append(f"{clause[begin:].strip()} {asked}")
            begin = toks[i].start + toks[i].len
        last = question[begin:].lstrip(" ,")
        out.append(last)
        return (out, question) if len(out) >= 2 else None
    # set-filter: "…한 X 가운데 …한 Y는?" → "…한 X들은?" (the set, a list) and "…한 Y는?" (the filter)
    for i in range(1, start):
        if toks[i].form not in _SET or _base(toks[i].tag) not in ("NNG", "NNB"):
            continue
        rest = i + 1
        while rest < start and _base(toks[rest].tag) in ("JKB", "JX", "SP"):  # "중에서", "가운데,"
            rest += 1
        members = question[:toks[i].start].strip()
        noun = toks[i - 1]
        if _base(noun.tag) not in _NOUN or not members:
            return None
        if _base(noun.tag) == "NNG" and noun.form != "들":
            members += "들"
        asked = question[toks[rest].start:].strip()
        # "… 쓰이는 것은?": a bare 것 asks for a member of the set, so it is named by the set's noun ("기물은?")
        thing = toks[start]
        if thing.form == "것":
            after = toks[start + 1] if start + 1 < len(toks) else None
            if after is None or _base(after.tag) not in ("JX", "JKS"):
                return None
            asked = (question[toks[rest].start:thing.start] + noun.form + _topic(noun.form)
                     + question[after.start + after.len:]).strip()
        checked = question[:toks[i].start] + question[toks[i].start + toks[i].len:]
        return [f"{members}{_topic(members)}?", asked], checked
    return None


# English: "Which actor was born in A and (also) directed B?", "Who both wrote A and directed B?"
_EN_SUBJECT = re.compile(r"^\s*(who|(?:which|what)\s+[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?=(?:both\s+)?" + _VERB + ")", re.I)
_EN_AND = re.compile(r"(?<=[A-Za-z0-9)\"'])\s+and\s+(?:also\s+)?(?=" + _VERB + ")", re.I)


def _split_en(question: str) -> list[str] | None:
    if _detect_en(question) not in ("conjoined", "both"):
        return None
    text = question.strip()
    m = _EN_SUBJECT.match(text)
    if not m or not text.endswith("?"):
        return None
    subject, rest = m.group(1), text[m.end():-1].strip()
    rest = re.sub(r"^both\s+", "", rest, flags=re.I)
    joins = list(_EN_AND.finditer(rest))
    if len(joins) != 1:  # one "and" between two verb phrases; more is a list or a title: unsure
        return None
    first, second = rest[:joins[0].start()].strip(), rest[joins[0].end():].strip()
    if not first or not second or "," in first:  # "born in A, directed B and wrote C": a list of three, unsure
        return None
    return [f"{subject} {first}?", f"{subject} {second}?"]


def split(question: str, lang: str) -> list[str] | None:
    """The independent sub-questions of an intersection, one per constraint and each asking for the same thing,
    built by code (no LLM); None when `question` is no intersection `detect` reads or does not split cleanly.
    Korean: conjoined clauses, each but the last rewritten to describe the asked-for head ("…올랐고, …반발한
    유학자는?" → "…오른 유학자는?", "…반발한 유학자는?"); a set and a filter ("…맞붙은 경쟁자 가운데 …선출된
    사람은?" → "…맞붙은 경쟁자들은?" (a list), "…선출된 사람은?"). English: two verb phrases of one wh-subject
    ("Which actor was born in A and directed B?" → "Which actor was born in A?", "Which actor directed B?")."""
    if lang == "ko":
        found = _split_ko(question)
        subs, checked = found if found else (None, question)
    else:
        subs, checked = _split_en(question), question
    if not subs or len(subs) < 2:
        return None
    whole = squash(question)
    if any(not s.strip() or squash(s) == whole for s in subs):
        return None
    # a clause without a name of the question ("체스에서 폰이 … 바뀔 수 있는 기물들은?") fails the tree's rule
    # that every sub-question keeps one: no split rather than one the tree would not accept from a model
    if lost_names(subs, checked, lang):
        return None
    return subs


# -- the decision by code -----------------------------------------------------------------------------------
MAX_WORDS = 6  # an answer longer than this is a sentence, not a name: no decision
MAX_EXTRA = 2  # words a matching answer may add to the other ("면암 최익현" / "최익현")


@dataclass(frozen=True)
class Agreement:
    """An intersection answered by code: the item every child's answer holds."""

    answer: str  # the shortest form of the common item among the children's answers
    answers: tuple[str, ...]  # the children's answers, in order

    def explanation(self, lang: str) -> str:
        said = "; ".join(self.answers)
        if lang == "ko":
            return f"모든 하위 질문의 답이 {self.answer}(으)로 같다: {said}."
        return f"Every sub-question's answer is {self.answer}: {said}."

    def to_dict(self) -> dict[str, object]:
        return {"answer": self.answer, "answers": list(self.answers)}


def _words(text: str, lang: str) -> tuple[str, ...]:
    return tuple((normalize_ko(text, keep_spaces=True) if lang == "ko" else normalize_en(text)).split())


def _same_item(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The shorter word sequence is a run of the longer one, which adds at most MAX_EXTRA words (a title or a
    pen name: "면암 최익현"; more is a description that merely mentions the other: "서울 출신 배우 김하늘")."""
    short, long = sorted((a, b), key=len)
    n = len(short)
    return bool(n) and len(long) - n <= MAX_EXTRA and any(long[i:i + n] == short for i in range(len(long) - n + 1))


def _items(answer: str) -> list[str]:
    return split_list_answer(answer) or [answer.strip().rstrip(".")]


def agree(answers: Sequence[str], lang: str) -> Agreement | None:
    """The one item all `answers` (two or more, each a name or a list of names) have in common, else None."""
    if len(answers) < 2 or any(not a or is_unknown(a) for a in answers):
        return None
    per_child = [[(it, _words(it, lang)) for it in _items(a)] for a in answers]
    if any(not w or len(w) > MAX_WORDS for child in per_child for _, w in child):
        return None
    common: list[str] = []  # the shortest form of each item found in every child
    seen: list[tuple[str, ...]] = []
    for item, words in per_child[0]:
        forms = [item]
        for child in per_child[1:]:
            match = [(it, w) for it, w in child if _same_item(words, w)]
            if not match:
                break
            forms.extend(it for it, _ in match)
        else:
            best = min(forms, key=lambda f: (len(_words(f, lang)), len(f)))
            key = _words(best, lang)
            if not any(_same_item(key, s) for s in seen):
                seen.append(key)
                common.append(best)
    if len(common) != 1:
        return None
    return Agreement(common[0], tuple(a.strip() for a in answers))
