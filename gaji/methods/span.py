"""Short answers and the sentence that explains them, for every method and both languages.

A small model asked for "only the answer" often writes a sentence instead, in Korean nearly always
("영화 X에서 Y 역을 맡은 배우는 홍길동입니다."). The sentence is a fine explanation and a bad answer: EM is 0
and an `[ANS_N]` slot filled with it makes the next sub-question unreadable. `shape_answer` splits what a
method got into the two typed fields of a Trace: `answer`, the span ("홍길동", "1995년", "Battle of Guam"),
and `explanation`, the sentence that says why:

- a reply that is a sentence is the explanation, and its span is cut out of it (`span_of`):
  Korean: the complement of a copula ("… 배우는 홍길동입니다" -> "홍길동"), else the words the question does
  not already hold, particles dropped ("빅뱅은 2006년에 데뷔했습니다" for "빅뱅은 언제 데뷔했나요?" ->
  "2006년"); English: "The answer is X" / "X is the answer";
- a Korean question asking for a work ("…출연한 영화는 무엇인가?") takes the one bracketed title its reply gives
  that the question does not hold ("…영화 《그랑프리》에서 서주희 역할로 출연했다." -> "《그랑프리》");
- a reply that is already short is the answer, and the explanation is the sentence of the evidence (the
  cited passages first) that contains it and shares most words with the question (`explain`); none when
  the answer is in no passage (closed book, or not grounded).

No model call is made: the shaping costs no tokens. Long-form answers (paragraphs) are left alone.

    >>> span_of("영화 『푸른 밤』에서 도윤 역을 맡은 배우는 한지호입니다.", "영화 『푸른 밤』에서 도윤 역을 맡은 배우는?", "ko")
    '한지호'
    >>> span_of("빅뱅은 2006년에 데뷔했습니다.", "빅뱅은 언제 데뷔했나요?", "ko")
    '2006년'
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable

from gaji.text.answers import strip_ko_ending
from gaji.text.ko_phrases import ASKING_END, PARTICLE_FORMS
from gaji.text.normalize import squash
from gaji.text.sentences import split_sentences
from gaji.types import Passage

# a Korean reply that ends like a sentence: a predicate's final ending (했다, 한다, 입니다, 있어요, 했음, …), then
# punctuation or nothing; listed rather than "any 다/요" so that nouns ending in those syllables (바다, 캐나다,
# 플로리다) are not taken for predicates
# (plus any past tense: a syllable ending in ㅆ, then 다: 태어났다, 됐다, 왔다, 졌다)
_KO_PAST = "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == 20)
_KO_FINAL = re.compile(r"(?:니다|이다|겠다|있다|없다|한다|된다|간다|온다|본다|산다|준다|진다|[" + _KO_PAST + r"]다|"
                       r"어요|아요|해요|예요|에요|이요|죠|네요|군요|래요|대요|했음|였음|었음|았음|있음|없음|됨)"
                       r"[.!。]?[\"'”’」』)]*$")
# copula forms glued to the answer word ("홍길동입니다", "2006년이다", "빅뱅이에요")
_KO_COPULA = re.compile(r"(?:입니다|이었습니다|였습니다|이었다|였다|이에요|예요|이다|이며|이고|임)$")
# the topic / subject / object particles that end the restated part of a sentence ("배우는", "드라마가")
_KO_MARKED = re.compile(r"(?:은|는|이|가|을|를|의|에서|에게|에는|로는|으로는|에|과|와|로|으로|보다)$")
_KO_CHOICE = re.compile(r"중(?:에서)?\s*(?:누가|누구|어느|어떤|무엇|뭐)|(?:누가|어느 쪽이|어느 것이)\s*(?:더|먼저|나중에)")
# the words a Korean question asks with ("누구의", "몇m가", "언제", "어느")
_KO_ASKED = re.compile(r"^(?:누구|누가|무엇|무슨|뭐|몇|어디|언제|어느|어떤|얼마|며칠)")
_KO_ASKS_NUMBER = re.compile(r"언제|몇|얼마|연도|년도|날짜|며칠|나이|인구")
# "So the answer is: X", also closing a sentence of reasoning ("1929 is earlier than 1972, so the answer is: X")
_EN_ANSWER_IS = re.compile(r"^(?:.*?[,;.]\s+)?(?:so\s+)?(?:the\s+)?(?:final\s+)?answer\s+is\s*:?\s*(.+?)\.?$", re.I)
_EN_IS_ANSWER = re.compile(r"^(.+?)\s+is\s+the\s+(?:correct\s+)?answer\.?$", re.I)
_QUOTES = "\"'“”‘’「」『』《》<>()[]"
_WORD = re.compile(r"[A-Za-z]{3,}|\d+|[가-힣]{2,}")
# a reply that echoes its context line "sub-question? -> answer" (the tree's children are shown that way)
_ECHO = re.compile(r"^[-•*\s]*\S.*?[?？]\s*(?:->|→|=>)\s*(\S.*)$", re.S)
# a reply that opens with a yes or a no, then goes on to explain ("네, 두 사람은 같은 대학교를 나왔습니다")
_YES_NO = re.compile(r"^(네|예|아니요|아니오|아뇨|yes|no)\s*[,.!]\s*\S", re.I)
# a yes/no question about sameness ("…의 RAM 용량은 같은가?") answered "같습니다" / "다릅니다" instead of 네 / 아니요
_KO_ASKS_SAME = re.compile(r"같(?:은가|나|습니까|아요|니|을까|은지)\s*[?？]?\s*$")
_KO_SAME = re.compile(r"^(?:같|동일)\S*(?:니다|다|요|음)[.!]?$")
_KO_DIFFERENT = re.compile(r"^(?:다르|다릅|달라|다름|같지\s*않)\S*[.!]?$")
# the topic / subject particles of a restated head ("배우는 김민희" for "… 배우는 누구인가요?")
_KO_TOPIC = re.compile(r"(?:은|는|이|가)$")
# a Korean clause joined to what follows ("결혼했으며,", "배우이고,"): a reply cut off by the token limit often
# states its answer in its first such clause
_KO_JOINED = re.compile(r"^(.*?[가-힣])(?:으며|며|고|지만|는데|으나)[,，]\s")
# a reply that restates its question as a noun phrase first ("… 누가 먼저 결혼했나는 것은 X가 …")
_KO_RESTATED = re.compile(r"^.*?(?:는|은|냐는|나는|지는|가는)\s*것은\s+")
_UNKNOWN = ("unknown", "알 수 없", "모름", "모릅니다", "찾을 수 없", "not found", "no answer")


@dataclass
class Shaped:
    answer: str  # the span
    explanation: str  # the sentence that explains it ("" when none is known)


def _keys(text: str) -> set[str]:
    """Content-word keys (Latin words lower-cased, numbers, Hangul words cut to two syllables: a stem
    matches across particles and endings, 데뷔했나요 / 데뷔했습니다)."""
    return {w.lower() if w.isascii() else w[:2] for w in _WORD.findall(text)}


def is_unknown(answer: str) -> bool:
    a = answer.strip().lower()
    return not a or any(u in a for u in _UNKNOWN)


def is_sentence(answer: str, lang: str) -> bool:
    """Does a reply read as a sentence rather than a span? Korean: it ends with a final ending (다, 요, 니다)
    or holds four words or more ending in a period; English: "The answer is …" or seven words or more
    ending in a period."""
    a = answer.strip()
    if not a or "\n" in a.strip():
        return False
    if lang == "ko" or re.search(r"[가-힣]", a):
        words = a.split()
        return bool(_KO_FINAL.search(a)) and (len(words) > 1 or bool(_KO_COPULA.search(a.rstrip(".!。")))) \
            or (len(words) >= 4 and a.endswith((".", "。")))
    return bool(_EN_ANSWER_IS.match(a) or _EN_IS_ANSWER.match(a)) or (len(a.split()) >= 7 and a.endswith("."))


def _strip_edges(text: str) -> str:
    return text.strip().strip(".!?。 ").strip(_QUOTES).strip()


# a number's own unit of ten thousands and up ("200만", "3천만", "10억"): no particle ("서울만"'s 만 is one)
_KO_NUMBER_UNIT = re.compile(r"[\d십백천][만억조]$")


def _ko_word_core(word: str) -> str:
    """A Korean word without its trailing particle or copula ("2006년에" -> "2006년", "빅뱅입니다" -> "빅뱅"); a
    number's unit stays ("200만")."""
    w = _strip_edges(word)
    bare = _KO_COPULA.sub("", w)
    if bare and bare != w:
        return _strip_edges(bare)
    if _KO_NUMBER_UNIT.search(w):
        return w
    return _strip_edges(strip_ko_ending(w, max_strips=1)) if re.search(r"[가-힣]$", w) else w


def _ko_phrase_core(phrase: str) -> str:
    """A Korean phrase whose last word loses its particle or copula (`_ko_word_core`): "2006년 여름에" -> "2006년 여름"."""
    head, _, tail = phrase.rpartition(" ")
    core = _ko_word_core(tail or phrase)
    return f"{head} {core}" if head else core


def _chosen_option(words: list[str], question: str) -> str:
    """The first word of a restated choice that is one of the question's options (its stem in the question),
    a name before a common noun ("배우 김을동이 먼저 …" -> "김을동", not "배우")."""
    found = []
    for w in words:
        bare = strip_ko_ending(w.strip(_QUOTES))
        if len(bare) >= 2 and bare in question:
            found.append(bare)
    names = [b for b in found if _is_name(b)]
    return (names or found or [""])[0]


def _is_name(word: str) -> bool:
    """A proper noun, or a word with Latin letters or digits (kiwipiepy's tags; without it, no word is)."""
    from gaji.text.analyzers import kiwi_available, kiwi_tokens

    if re.search(r"[A-Za-z0-9]", word):
        return True
    if not kiwi_available():
        return False
    return any(t.tag.startswith("NNP") for t in kiwi_tokens(word) or [])


def _span_ko(sentence: str, question: str) -> str:
    s = _strip_edges(sentence)
    words = s.split()
    if not words:
        return ""
    last = words[-1].rstrip(".!。")
    bare = _KO_COPULA.sub("", last)
    if bare and bare != last:
        # "X는 Y입니다": the complement is the run of words before the copula back to the last marked word
        words[-1] = bare
        start = len(words) - 1
        while start > 0 and not _KO_MARKED.search(words[start - 1].strip(_QUOTES)):
            start -= 1
        return _strip_edges(" ".join(words[start:]))
    # a verb sentence: the words before the predicate that the question does not already hold, particles dropped
    if len(words) > 1 and _KO_FINAL.search(words[-1]):
        words = words[:-1]
    asked = _keys(question)
    # words with content that the question does not already hold (a one-syllable adverb such as "더" has none)
    rest = [(i, w) for i, w in enumerate(words) if _keys(w) and not _keys(w) <= asked]
    if not rest:
        # a choice answered by restating it ("박형식이 먼저 태어났습니다" for "박형식과 승리 중 누가 먼저 …"): the
        # option the sentence names first, its particle dropped
        return _chosen_option(words, question) if _KO_CHOICE.search(question) else ""
    end = rest[-1][0]
    if _KO_ASKS_NUMBER.search(question):
        numeric = [i for i, w in rest if re.search(r"\d", w)]
        if numeric and not any(re.search(r"\d", w) for w in _run(words, end, asked)):
            end = numeric[-1]
    return _strip_edges(_ko_phrase_core(" ".join(_run(words, end, asked))))


def _run(words: list[str], end: int, asked: set[str]) -> list[str]:
    """The words that end at `end` and belong to one phrase: back over adjacent words the question does not
    hold, up to a word marked by a particle ("매년 4월 셋째 주 목요일에" whole, not its last word); a
    one-syllable word ("주", "더") joins only between two such words."""
    start = end
    while start > 0:
        w = words[start - 1]
        if _KO_MARKED.search(w.strip(_QUOTES)) or (_keys(w) and _keys(w) <= asked):
            break
        start -= 1
    while start < end and not _keys(words[start]):
        start += 1
    return words[start:end + 1]


def first_clause(reply: str) -> str:
    """A long Korean reply that ends without a final ending (cut off, or run on), as the sentence its first
    joined clause makes, its restated question dropped ("…중 누가 먼저 결혼했나는 것은 알렉산더 헤이그가 먼저
    결혼했으며, 그는 1950년 …" -> "알렉산더 헤이그가 먼저 결혼했다"); else the reply."""
    r = reply.strip()
    if len(r.split()) < 8 or _KO_FINAL.search(r) or not re.search(r"[가-힣]", r):
        return reply
    r = _KO_RESTATED.sub("", r, count=1)
    m = _KO_JOINED.match(r)
    if not m:
        return reply
    stem = m.group(1)
    return stem + ("다" if stem.endswith(("했", "었", "았", "였", "이", "됐", "졌", "왔", "갔", "났")) else "이다")


# the morphemes a Korean answer cannot end with: a verb or adjective stem, a pre-final or connective ending,
# an adnominal ending ("정할", "작성했어?"): what is left is a piece of a predicate, not an answer
_KO_PREDICATE_TAGS = ("VV", "VA", "VX", "VCP", "VCN", "XSV", "XSA", "EP", "EC", "ETM", "EF", "ETN")


_PAIRS = ("()", "《》", "〈〉", "「」", "『』", "[]", "“”", "‘’")


def is_fragment(span: str) -> bool:
    """Is a Korean span a piece of a sentence rather than an answer? Its last morpheme a verb, an adjective
    or an ending ("정할"), its first a predicate or a particle ("든 영화": a clause without its subject), a
    sentence ending inside ("작성했어? 총무팀"), only bound nouns ("것", "수"), or a bracket left open
    ("경장사업(更張事業"). Needs kiwipiepy for all but the brackets."""
    from gaji.text.analyzers import kiwi_available, kiwi_tokens

    if any(span.count(o) != span.count(c) for o, c in _PAIRS):
        return True
    if not re.search(r"[가-힣]", span) or not kiwi_available():
        return False
    tokens = kiwi_tokens(span.strip())
    if not tokens:
        return False
    tags = [t.tag.split("-", 1)[0] for t in tokens]
    if tags[-1] in _KO_PREDICATE_TAGS or tags[0] in _KO_PREDICATE_TAGS or tags[0].startswith("J"):
        return True
    if all(tag in ("NNB", "NP") or tag.startswith(("S", "J")) for tag in tags) and not any(
            tag in ("SN", "SL", "SH") for tag in tags):
        return True  # "것", "수", "그것은": no content of its own
    return any(tag == "EF" for tag in tags[:-1])  # a sentence ends inside it


def _is_head_noun(span: str, question: str) -> bool:
    """Is the span the noun the question asks about ("사람" for "…기타를 내놓은 사람은?"): a restatement, not
    an answer."""
    words = question.strip().rstrip("?？ ").split()
    if not words or " " in span.strip():
        return False
    head = strip_ko_ending(words[-1].strip(_QUOTES))
    return bool(head) and strip_ko_ending(span.strip(_QUOTES)) == head


def _close_brackets(span: str, source: str) -> str:
    """A span whose closing bracket the edge stripping took ("드라마 《아이리스") given it back when the
    source has it right after."""
    for o, c in _PAIRS:
        if span.count(o) == span.count(c) + 1 and span + c in source:
            span += c
    return span


# an English choice question: "…, A or B?"
_EN_CHOICE = re.compile(r"(?:^|,|:)\s*([^,:?]+?)\s+or\s+([^,?]+?)\s*\?*\s*$", re.I)
# one option of an English "…, A or B?" question (comparisons parse their items with it too): no comma, semicolon
# or question mark, and a colon only as a subtitle's, before a capital, a digit or a quote ("Molokai: The Story Of
# Father Damien")
EN_OPTION = r"(?:[^,:;?]|:(?=\s+(?-i:[A-Z0-9\"“])))+?"
# the options after a comma, tried first; without a comma the colon is the one before the options ("…higher: A or B")
_EN_CHOICE_AFTER_COMMA = re.compile(r",\s*(" + EN_OPTION + r")\s+or\s+([^,?]+?)\s*\?*\s*$", re.I)
# an English reply that restates the question, then names the answer: "<restated> is/was <answer>."
_EN_COPULA = re.compile(r"^(.+?)\s+(?:is|was|are|were)\s+(?:an?\s+)?([A-Z0-9\"'“].*?)\.?$")
# the noun a "what …" question asks for ("What citizen was …?"), which a copula's complement may end in ("an American
# citizen"): the answer is what qualifies it
_EN_ASKED_NOUN = re.compile(r"^\W*(?:what|which)\s+([a-z]+)\b", re.I)


# an English reply that restates its subject and says where: "Flora was born in Flora", "The stadium is located at
# North Avenue" (for a where / place-of question)
_EN_WHERE_SAID = re.compile(r"^(.+?)\s+(?:is|was|are|were)\s+(?:born|located|based|situated|buried|headquartered|"
                            r"raised|held|founded|established)\s+(?:in|at)\s+(?:the\s+)?([A-Z0-9].*?)\.?$")
_EN_ASKS_PLACE = re.compile(r"^\W*where\b|\bplace\s+of\s+(?:birth|death|burial)\b|^\W*(?:in\s+)?(?:what|which)\s+"
                            r"(?:city|town|country|state|province|county|place|village|region)\b", re.I)


def _en_span(reply: str, question: str) -> str:
    """An English reply's answer when it restates its question: the option of "A or B?" it names ("The
    Battle of Manila occurred first." -> "The Battle of Manila"), or the complement of a restating copula
    ("Empress Wang's mother-in-law is Empress Zhangsun." -> "Empress Zhangsun"; "Sharyn McCrumb was an American
    citizen" -> "American" for "What citizen was Sharyn McCrumb?"), or the place a restating sentence says ("Flora
    was born in Flora." -> "Flora" for "What is the place of birth of Flora?"); "" when none."""
    r = reply.strip().rstrip(".")
    m = _EN_CHOICE_AFTER_COMMA.search(question.strip()) or _EN_CHOICE.search(question.strip())
    if m:
        low = r.lower()
        hits = []
        for opt in m.groups():
            opt = re.sub(r"^(?:the|a|an)\s+", "", opt.strip(), flags=re.I)
            at = low.find(opt.lower())
            if opt and at >= 0:
                start = max(0, at - 4) if low[max(0, at - 4):at] == "the " else at
                hits.append(r[start:at + len(opt)])
        if len(hits) == 1 and squash(hits[0]) != squash(r):
            return hits[0]
        return ""
    w = _EN_WHERE_SAID.match(r)
    if w and _EN_ASKS_PLACE.search(question.strip()) and _keys(w.group(1)) and _keys(w.group(1)) <= _keys(question) \
            and len(w.group(2).split()) <= 8:
        return _strip_edges(w.group(2))
    c = _EN_COPULA.match(r)
    if c and _keys(c.group(1)) and _keys(c.group(1)) <= _keys(question) and len(c.group(2).split()) <= 8 \
            and not re.search(r",\s*(?:who|which|where|when)\b", c.group(2)):
        span = _strip_edges(c.group(2))
        noun = _EN_ASKED_NOUN.match(question)
        if noun and len(span.split()) > 1 and span.split()[-1].lower() in (noun.group(1).lower(),
                                                                         noun.group(1).lower() + "s"):
            span = span.rsplit(None, 1)[0]
        # a complement in the question's own words ("… was a Formula One World Champion" for "Which Formula One World
        # Champion …?") restates what is asked
        return "" if _keys(span) <= _keys(question) else span
    return ""


def unask(reply: str, question: str) -> str:
    """A reply that restates its question, then answers ("작성했어? 총무팀" for "회의록은 누가 작성했어?"): the
    answer after the question mark; else the reply."""
    m = re.match(r"^([^.!。\n]+?[?？])\s*(\S.*)$", reply.strip(), re.S)  # a question first, no sentence before it
    if m and _keys(m.group(1)) & _keys(question) and len(m.group(1).split()) <= len(question.split()) + 2 \
            and not m.group(2).strip().endswith(("?", "？")):
        return m.group(2).strip()
    return reply.strip()


# a first line that only points at what follows ("…사항은 다음과 같습니다.", "The steps are as follows:")
_POINTS_AHEAD = re.compile(r"(?:다음과\s*같(?:습니다|다|아요|이|은)|아래와\s*같(?:습니다|다)|\bas follows|\bthe following)"
                           r"\s*[^\w\n]*$", re.I)
# a list line's mark; a numbered one only before a space, so that "1.5배" keeps its number
_LIST_MARK = re.compile(r"^\s*(?:[-•*]+\s*|\d+[.)]\s+|[①-⑳]\s*)|\*\*")


def points_ahead(reply: str) -> str:
    """What a reply whose first line only points ahead then lists ("출국 전후로 신고해야 할 사항은 다음과
    같습니다.\n\n1. 출국 신고서를 제출해야 합니다.\n2. …"): the lines after it, list marks dropped, as one text; ""
    for any other reply."""
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    if len(lines) < 2 or not _POINTS_AHEAD.search(lines[0]):
        return ""
    return " ".join(_LIST_MARK.sub("", ln).strip() for ln in lines[1:]).strip()


def span_of(sentence: str, question: str, lang: str) -> str:
    """The answer span inside a sentence-like reply; the reply itself when no span can be cut out, or when
    what would be cut is a fragment of the predicate ("정할" from "… 시간을 정할 수 있다")."""
    s = sentence.strip()
    if lang == "ko" or re.search(r"[가-힣]", s):
        span = _close_brackets(_span_ko(s, question), s)
        if span and (is_fragment(span) or _is_head_noun(span, question)):
            span = ""
    else:
        m = _EN_ANSWER_IS.match(s) or _EN_IS_ANSWER.match(s)
        span = _strip_edges(m.group(1)) if m else ""
    return span if span and len(span) < len(s) else s


def explain(answer: str, passages: Iterable[Passage], question: str) -> str:
    """The evidence sentence that states the answer: one that contains it (case, spaces and punctuation aside),
    sharing the most words with the question; the earliest passage wins a tie. "" when none contains it."""
    want = squash(answer)
    if len(want) < 2 or is_unknown(answer):
        return ""
    asked = _keys(question)
    best, best_score = "", -1
    for p in passages:
        for sent in split_sentences(p.text):
            if want in squash(sent):
                score = len(_keys(sent) & asked)
                if score > best_score:
                    best, best_score = sent.strip(), score
    return best


def unecho(reply: str) -> str:
    """The answer part of a reply that restates its question first ("Q? -> A" -> "A"); else the reply."""
    m = _ECHO.match(reply.strip())
    return m.group(1).strip() if m else reply.strip()


def _one_replacement(asked: list[str], said: list[str]) -> tuple[int, int, int, int, int] | None:
    """(i1, i2, j1, j2, kept) when `said` is `asked` with one run of words, asked[i1:i2], replaced by said[j1:j2]
    (`kept`: how many words stayed the same); None for any other difference."""
    diff = difflib.SequenceMatcher(a=asked, b=said, autojunk=False).get_opcodes()
    changed = [op for op in diff if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = changed[0]
    return i1, i2, j1, j2, sum(b - a for tag, a, b, _, _ in diff if tag == "equal")


_KO_TELLING_END = re.compile(r"(?:입니다|이에요|예요|이다|습니다|였습니다|었습니다|았습니다|다)$")
# quote marks set aside when a reply's words are aligned with the question's; unlike _QUOTES, no brackets: a
# bracketed word ("(잣나무)") is content the reply added
_QUOTE_MARKS = "\"'“”‘’「」『』《》〈〉"
# a filled-in quotation keeps the particle after its closing mark ("외교 정책의 아마추어"로): the quotation alone
_QUOTED_THEN_PARTICLE = re.compile(r"[\"”’'」』]\s*(?:으로|로|라고|이라고|라는|이라는)$")


def _aligned(words: list[str], question_last: str = "") -> list[str]:
    """Words as compared when a reply is aligned with its question: quotes at their edges set aside, and the
    reply's closing word taken as the question's when they differ only by how they end ("용어입니다" for
    "용어인가", "태웠습니다" for "태웠는가")."""
    out = [w.strip(_QUOTE_MARKS) or w for w in words]
    if question_last and out:
        asked = ASKING_END.sub("", question_last.strip(_QUOTE_MARKS))
        told = _KO_TELLING_END.sub("", out[-1])
        if asked and asked == told and asked != question_last.strip(_QUOTE_MARKS):
            out[-1] = question_last.strip(_QUOTE_MARKS)
    return out


def filled_in(reply: str, question: str) -> str:
    """A Korean reply that is its question with the asked word filled in ("노아는 하나님의 명령에 따라 … 태웠는가" for
    "노아는 누구의 명령에 따라 … 태웠는가?", "… 통상 길이 100m가 한계인가" for "… 통상 길이 몇m가 한계인가?",
    "'철학'은 고대 그리스어에서 유래한 용어입니다" for "'철학'은 어디에서 유래한 용어인가?"): the words that took the
    asked word's place, without the particle both end in ("하나님", "100m", "고대 그리스어"); "" for any other reply
    (more than one place changed, or the changed place held no asked word)."""
    q, r = question.strip().rstrip("?？").split(), reply.strip().rstrip("?？.").split()
    if len(q) < 3 or not re.search(r"[가-힣]", reply) or abs(len(q) - len(r)) > 3:
        return ""
    # a choice's reply that changes the ending ("… 중 서울시장이 먼저 태어났다") is left to the choice's own reading
    one = _one_replacement(_aligned(q), _aligned(r, "" if _KO_CHOICE.search(question) else q[-1]))
    if one is None or one[4] < 2:
        return ""
    i1, i2, j1, j2, _ = one
    asked, fill = " ".join(q[i1:i2]), " ".join(r[j1:j2])
    if not _KO_ASKED.search(asked) or j2 - j1 > 4 or _KO_ASKED.search(fill) or _KO_FINAL.search(fill):
        return ""  # (a filler that ends the sentence, "5억 200만 회였습니다" for "몇 회였나", is a sentence's span)
    particle = _KO_MARKED.search(asked)
    if particle and fill.endswith(particle.group(0)) and len(fill) > len(particle.group(0)):
        fill = fill[: -len(particle.group(0))]
    # an asked word without a particle ("언제"), in a reply that tells rather than asks back (its closing word is
    # not the question's): "2006년에" -> "2006년"; a reply that asks back keeps its filler as it was
    elif not particle and r[-1] != q[-1]:
        fill = _ko_phrase_core(fill)
    return _strip_edges(_QUOTED_THEN_PARTICLE.sub("", fill))


# a particle in either of its forms: "무엇이" asks for "탄약이" or "배가", "무엇으로" for "목재로"
_KO_PARTICLE_FORMS = {**PARTICLE_FORMS, "으로": ("으로", "로"), "로": ("으로", "로")}


def slot_filled(reply: str, question: str) -> str:
    """A Korean reply that says its question back up to the asked word, fills that word in, and then goes on in
    words of its own ("반류마루는 오후가 되면서 탄약이 완전히 소진되었기 때문에 … 좌초시켰다" for "반류마루는 오후가 되면서
    무엇이 소진되어 부득이 퇴함을 결정하였는가?"): the words between the question's word before the asked one and
    the reply's first word that shares the stem of the question's word after it, up to the last one in the asked
    word's particle ("탄약이 완전히" -> "탄약"). "" for any other reply: one whose opening is not the question's up
    to its one asked word, a count's slot, a slot of no or more than four words, or one with no word in the asked
    particle."""
    q = _aligned(question.strip().rstrip("?？").split())
    first = (split_sentences(reply) or [""])[0]
    r = _aligned(first.strip().rstrip("?？.").split())
    asked = [i for i, w in enumerate(q) if _KO_ASKED.search(w)]
    if len(asked) != 1 or not re.search(r"[가-힣]", reply) or _KO_CHOICE.search(question):
        return ""
    i = asked[0]
    # a count ("몇 회였나") runs on into its counter word, which is the answer's too: left to the sentence's span
    if i == 0 or i + 1 >= len(q) or r[:i] != q[:i] or q[i].startswith(("몇", "얼마")):
        return ""
    stem = q[i + 1][:2]
    end = next((j for j in range(i, len(r)) if r[j].startswith(stem)), None)
    if end is None or not 1 <= end - i <= 4 or not re.search(r"[가-힣]", stem):
        return ""
    slot = r[i:end]
    if any(_KO_ASKED.search(w) for w in slot) or _KO_FINAL.search(" ".join(slot)):
        return ""
    marked = _KO_MARKED.search(q[i])
    if marked is None:  # "언제" fills with "2006년에": the filler's own particle goes
        return _strip_edges(_ko_phrase_core(" ".join(slot)))
    forms = _KO_PARTICLE_FORMS.get(marked.group(0), (marked.group(0),))
    last = max((k for k, w in enumerate(slot) if w.endswith(forms) and len(w) > 1), default=None)
    if last is None:
        return ""
    word = slot[last]
    form = next(f for f in forms if word.endswith(f))
    return _strip_edges(" ".join(slot[:last] + [word[: -len(form)]]))


_EN_ASKED = re.compile(r"^(?:which|what|who|whom|whose|where|when)$", re.I)
_EN_NOT_FILLERS = frozenset("both all also each either neither the a an and not only".split())


def en_filled_in(reply: str, question: str) -> str:
    """An English reply that is its question with the asked phrase filled in ("Channel 8 has broadcast HBO World
    Championship Boxing" for "Channel 8 has broadcast which American sports series that premiered in 1973?"): the
    words that took the asked phrase's place; "" for any other reply (no question words kept before it, more than
    one place changed, or a filler of more than eight words)."""
    q = question.strip().rstrip("?？ ").split()
    r = reply.strip().rstrip("?？. ").split()
    if len(q) < 3 or not r or re.search(r"[가-힣]", reply):
        return ""
    one = _one_replacement([w.lower() for w in q], [w.lower() for w in r])
    if one is None:
        return ""
    i1, _, j1, j2, _ = one
    fill = r[j1:j2]
    if i1 < 2 or not _EN_ASKED.match(q[i1]) or len(fill) > 8 or any(_EN_ASKED.match(w) for w in fill):
        return ""
    if all(w.lower().strip(",.;:") in _EN_NOT_FILLERS for w in fill):  # "… are both magazines": no answer in it
        return ""
    return _strip_edges(" ".join(fill)).strip(" ,;:")


def drop_restated_head(reply: str, question: str) -> str:
    """A short Korean reply without the words it repeats from the question ("배우는 김민희" -> "김민희" for
    "… 배우는 누구인가요?"): leading words marked as topic or subject whose content the question holds, kept
    when nothing new would remain ("박형식이 먼저" for "… 누가 먼저 …" stays)."""
    words = reply.split()
    if not 2 <= len(words) <= 5 or not re.search(r"[가-힣]", reply):
        return reply
    asked = _keys(question)
    cut = 0
    while cut < len(words) - 1 and _KO_TOPIC.search(words[cut]) and _keys(words[cut]) \
            and _keys(words[cut]) <= asked:
        cut += 1
    rest = words[cut:]
    if not cut or not _keys(" ".join(rest)) or _keys(" ".join(rest)) <= asked:
        return reply
    return " ".join(rest)


def after_restated(reply: str, question: str) -> str:
    """A Korean reply that restates its question up to the asked word, then answers, cut or not by the token limit
    ("정두언 의원이 … 검찰에 출두한 날은 2012년 7월 5" for "정두언 의원이 … 검찰에 출두한 날은?"): what follows the
    asked word, when every word before it is the question's own; else the reply."""
    asked_word = _strip_edges(question.split()[-1]) if question.split() else ""
    if not re.search(r"[가-힣](?:은|는)$", asked_word):
        return reply
    words = reply.split()
    asked = _keys(question)
    for j, w in enumerate(words):
        if _strip_edges(w) != asked_word:
            continue
        head, rest = words[:j], words[j + 1:]
        if len(head) >= 2 and rest and all(_keys(x) <= asked for x in head) and not _opens_with_verb(rest[0]):
            return " ".join(rest)
        break
    return reply


def _opens_with_verb(word: str) -> bool:
    """Is `word` a verb joined to what follows ("영입하여 …")? What follows the restated question then goes on
    describing, and a cut there would be a fragment (kiwipiepy's last morpheme an ending; without it, never)."""
    from gaji.text.analyzers import kiwi_available, kiwi_tokens

    if not kiwi_available() or not re.search(r"[가-힣]$", word):
        return False
    tokens = kiwi_tokens(word) or []
    return bool(tokens) and tokens[-1].tag.split("-")[0] in ("EC", "EF", "EP", "ETN")


# a Korean question asking for a work by its kind ("…출연한 영화는 무엇인가?", "…부른 노래는?")
_KO_ASKS_WORK = re.compile(r"(?:영화|드라마|작품|소설|책|앨범|음반|곡|노래|게임|프로그램|뮤지컬|연극|시집|저서|만화|웹툰)"
                           r"(?:은|는|이|가)?\s*(?:무엇\S*|뭐\S*|어떤\s*\S+)?\s*[?？]?\s*$")
_KO_WORK_TITLE = re.compile(r"[《〈「『][^《》〈〉「」『』]+[》〉」』]")


def work_title(reply: str, question: str) -> str:
    """The one bracketed title a Korean reply gives for a question asking for a work, when the question does not
    already hold it ("…출연한 영화는 2010년 1월에 영화 《그랑프리》에서 서주희 역할로 출연했다." -> "《그랑프리》"):
    Korean writing brackets a work's title, so the bracket is the span, where the words around it ("역할", "출연한
    《4인용 식탁》") are not. "" otherwise (no such question, none or several titles, a JSON reply)."""
    if not _KO_ASKS_WORK.search(question.strip()) or reply.lstrip().startswith(("{", "[")):
        return ""
    titles = [t for t in dict.fromkeys(_KO_WORK_TITLE.findall(reply)) if t[1:-1].strip() not in question]
    return titles[0] if len(titles) == 1 and reply.strip() != titles[0] else ""


def shape_answer(reply: str, question: str, passages: Iterable[Passage], lang: str) -> Shaped:
    """(span, explanation) of a short-answer reply; see the module docstring."""
    reply = unask(unecho(reply), question)
    listed = points_ahead(reply)
    if listed:  # "…은 다음과 같습니다" and a list: the list is the answer, not "다음"
        return Shaped(listed, reply)
    title = work_title(reply, question) if lang == "ko" else ""
    if title:
        return Shaped(title, reply)
    filled = filled_in(reply, question) if lang == "ko" else en_filled_in(reply, question)
    if filled:  # the question said back with its asked word filled in: the filler is the answer
        return Shaped(filled, reply)
    slot = slot_filled(reply, question) if lang == "ko" else ""
    if slot:  # the question said back to its asked word, filled in, and then the reply's own words
        return Shaped(slot, reply)
    if lang == "ko" and len(split_sentences(reply)) <= 1:  # a reply that runs on is read from its first sentence
        cut = after_restated(reply, question)
        span = shape_answer(cut, question, passages, lang).answer if cut != reply else ""
        if span and not is_sentence(span, lang):  # the answer is what follows the restated question
            return Shaped(span, reply)
    yes_no = _YES_NO.match(reply)
    if yes_no:  # the opening word is the answer; the rest explains it
        return Shaped(yes_no.group(1), reply)
    if _KO_ASKS_SAME.search(question.strip()):
        if _KO_SAME.match(reply):
            return Shaped("네", reply)
        if _KO_DIFFERENT.match(reply):
            return Shaped("아니요", reply)
    first, *rest = split_sentences(reply) or [""]
    if rest and is_sentence(first.strip(), lang):
        reply = first.strip()  # the model went on after answering: the answer is in its first sentence
    elif lang == "ko" and not is_sentence(reply, lang):
        clause = first_clause(reply)
        if clause != reply:
            span = span_of(clause, question, lang)
            if span != clause:
                return Shaped(span, reply)
    passages = list(passages)
    if not reply or is_unknown(reply):
        return Shaped(reply, "")
    if is_sentence(reply, lang):
        span = span_of(reply, question, lang)
        if span != reply:
            return Shaped(span, reply)
    if not re.search(r"[가-힣]", reply):
        span = _en_span(reply, question)
        if span:
            return Shaped(span, reply)
    reply = drop_restated_head(reply, question)  # a reply without Hangul comes back as it is
    return Shaped(reply, explain(reply, passages, question))
