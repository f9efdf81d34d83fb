"""A Korean intersection question narrowed by code: ask its second condition, near the set's names.

"드라마 《육룡이 나르샤》에 출연한 배우 가운데 청룡영화상 남우주연상을 받은 사람은?" picks, from a set the question
describes ("…출연한 배우"), the member a second condition fits ("…받은 사람"). ToQ answers such a question with one
sub-question per condition and the names both give. Over one retrieval of the whole question, the 1.5B model
answers with a fragment of a passage ("수학하", "영입하여 민주자유당") or with a member of the wrong set: on the Korean
report part all six intersections stood on such an answer, and one was right. The second condition alone is nearly
always a one-hop question that names its answer (the hand-written decompositions of the set end on it), and
Korean marks where it starts, so code splits the question:

    1. split: "SET 가운데 FILTER?" (SET of two words or more, FILTER asking for its member), or "C1…고,
       FILTER?" (two clauses about one entity, the second a question: "…통리기무아문에 복직했고, 1894년 일본에
       의해 총리대신 자리에 앉혀진 인물은?");
    2. ask FILTER with the plain reader (gaji/methods/bridge.py's second-hop read) over a retrieval of FILTER and
       the set's own names (kiwipiepy's proper nouns and bracketed titles: "김영삼", "육룡이 나르샤"), so that
       passages on the set's members rank with those on the condition.

    3. check it against the set (`confirm`): retrieve the set's own words (no call) and keep the answer when
       those passages name it. The filter alone often fits several people ("…복권에 강하게 반발한 유학자" is
       김평묵 as much as 최익현); on the hand-written sets every gold answer is named there. An answer they do not
       name, or no answer, is put once more to the reader (one call) as a choice among the names both
       retrievals hold, ranked by how high they stand in each (ToQ's intersection of the two conditions' answers,
       done over passages).

One call, as the one retrieval it replaces, and a second only when the set does not name the answer. A question
neither read answers is left to the one retrieval and the look.

    >>> x = parse_intersection("드라마 《육룡이 나르샤》에 출연한 배우 가운데 청룡영화상 남우주연상을 받은 사람은?", "ko")
    >>> x.members, x.filter
    ('드라마 《육룡이 나르샤》에 출연한 배우', '청룡영화상 남우주연상을 받은 사람은?')
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gaji.llm.prompts import fill
from gaji.methods.base import RunContext
from gaji.methods.bridge import K, ask
from gaji.methods.check import polarity
from gaji.methods.common import cite_one
from gaji.methods.compare import name_of, named_in, read_choice
from gaji.methods.prompts.compare import PROMPTS
from gaji.methods.signals import kind_mismatch
from gaji.text.ko_phrases import modifier_flags
from gaji.text.normalize import squash
from gaji.text.sentences import split_sentences
from gaji.types import Fact, Node, Passage

_AMONG = ("가운데", "가운데서", "가운데에서")
# the filter asks for the member: a topic-marked last noun ("…받은 사람은?") or a question word
_ASKS = re.compile(r"(?:[은는]|누구|무엇|어디|어느\s*\S+)\s*[?？]?\s*$")
# "…복직했고, …인물은?": a connective "-고" closing the first clause, then a comma
_AND_CLAUSE = re.compile(r"^(?P<first>.{6,}?\S고),\s*(?P<filter>.{6,})$")
_TITLE = re.compile(r"[《「『〈‘'\"“](.+?)[》」』〉’'\"”]")
_EDGE = "'\"‘’“”,"


@dataclass(frozen=True)
class Intersection:
    question: str
    members: str  # the set ("…출연한 배우"), or the first clause ("…통리기무아문에 복직했고")
    filter: str  # the second condition as a question of its own ("청룡영화상 남우주연상을 받은 사람은?")
    form: str  # "among" ("가운데") | "and" ("…고, …")

    def query(self) -> str:
        """What the filter is retrieved with: the filter and the set's own names."""
        names = [n for n in set_names(self.members) if n not in self.filter]
        return " ".join([self.filter, *names])

    def to_dict(self) -> dict[str, Any]:
        return {"members": self.members, "filter": self.filter, "form": self.form}


def parse_intersection(question: str, lang: str) -> Intersection | None:
    """The split of a Korean intersection question (see the module doc); None for another language or question."""
    if lang != "ko" or len(split_sentences(question)) > 1:  # a question after a story: no set, no filter
        return None
    q = " ".join(question.split())
    words = q.split(" ")
    for i, w in enumerate(words):
        if w.strip(_EDGE) in _AMONG and 2 <= i < len(words) - 1:
            members, rest = " ".join(words[:i]), " ".join(words[i + 1:])
            # any noun may name the set ("…맞붙은 경쟁자", "…다섯 명"); a verb's form before 가운데 is no set
            if i >= 2 and not modifier_flags(words[:i])[i - 1] and _ASKS.search(rest) and len(rest.split()) >= 2:
                return Intersection(q, members, rest, "among")
            return None
    m = _AND_CLAUSE.match(q)
    if m and _ASKS.search(m.group("filter")) and len(m.group("filter").split()) >= 3:
        return Intersection(q, m.group("first"), m.group("filter").strip(), "and")
    return None


def set_names(text: str) -> list[str]:
    """The names a Korean phrase holds: bracketed or quoted titles, then kiwipiepy's proper nouns and Latin words
    ("드라마 《육룡이 나르샤》에 출연한 배우" -> ["육룡이 나르샤"]); [] without kiwipiepy and titles."""
    from gaji.text.analyzers import kiwi_tokens

    titles = [t.strip() for t in _TITLE.findall(text) if t.strip()]
    out = list(titles)
    for t in kiwi_tokens(_TITLE.sub(" ", text)) or []:
        if t.tag in ("NNP", "SL") and len(t.form) >= 2 and t.form not in out:
            out.append(t.form)
    return out


@dataclass
class Narrowed:
    """What the filter's read found: the answer ("" when none, and why), its node and citation."""

    intersection: Intersection
    answer: str = ""
    node: str = ""
    citations: list[str] | None = None
    why: str = ""  # "answered", or "no answer" / "wrong kind"; after the check "in the set" / "chosen" / "unconfirmed"
    passages: list[Passage] = field(default_factory=list)  # the filter's retrieval, for the check
    check: str = ""  # the check's node

    def to_dict(self) -> dict[str, Any]:
        return {**self.intersection.to_dict(), "answer": self.answer, "why": self.why, "node": self.node,
                "check": self.check or None}


def narrow(ctx: RunContext, parent: Node, x: Intersection) -> Narrowed:
    """Ask the filter over its retrieval (one child node of `parent`, one call)."""
    out = Narrowed(x)
    node = parent.add(Node(question=x.filter, kind="intersect_filter", data={"intersect_filter": x.to_dict()}))
    out.node = node.id
    answer, passages = ask(ctx, node, "ko", query=x.query())
    if not name_of(answer, x.question) or polarity_word(answer) or names_the_kind(answer, x.filter):
        # nothing read, the question's own words again, a sentence, a bare "네", or the kind asked for described
        # rather than named ("1958년 공개된 일렉트릭 기타" for "…최초의 좌우 비대칭 일렉트릭 기타는?")
        out.why = "no answer"
    elif kind_mismatch(x.question, answer, "ko"):
        out.why = "wrong kind"
    else:
        out.answer, out.why = answer, "answered"
        out.citations = cite_one(answer, passages)
    out.passages = passages
    node.data["value"] = out.answer or None
    ctx.emit(node)
    return out


CHOICES = 6  # names offered to the check's read: the gold was among the first six on 24 of the 30 hand-written sets
CHOICE_PASSAGES = 2  # per side: the filter's and the set's best passages, which the choice is read over


def confirm(ctx: RunContext, parent: Node, narrowed: Narrowed) -> Narrowed:
    """Check the filter's answer against the set (see the module doc): one retrieval of the set, and one call only
    when its passages do not name the answer. Returns `narrowed` with its answer kept ("in the set"), replaced by
    the reader's choice ("chosen"), or kept unchecked ("unconfirmed": no name both sides hold, or a reply naming
    none of them)."""
    x = narrowed.intersection
    node = parent.add(Node(question=x.members, kind="intersect_check", data={"intersect_check": {"set": x.members}}))
    narrowed.check = node.id
    ctx.emit(node)
    members = ctx.retrieve(node, x.members, K)
    check = node.data["intersect_check"]
    if narrowed.answer and names_member(narrowed.answer, members, x.question):
        check["verdict"] = narrowed.why = "in the set"
        node.data["value"] = narrowed.answer
        ctx.emit(node)
        return narrowed
    names = shared_names(x.question, narrowed.passages, members)[:CHOICES]
    check["choices"] = names
    if not names:
        check["verdict"] = "no shared name"
        narrowed.why = "unconfirmed" if narrowed.answer else narrowed.why
        ctx.emit(node)
        return narrowed
    node.question = fill(PROMPTS["ko"].choose_among, question=x.question, names=", ".join(names))
    passages = list({q.id: q for q in [*narrowed.passages[:CHOICE_PASSAGES], *members[:CHOICE_PASSAGES]]}.values())
    reply = node.answer = read_choice(ctx, node, passages, "ko", query=x.question, purpose="intersect").strip(" .")
    picked = chosen(reply, names, x.question)
    node.data["value"] = picked or None
    if picked:
        check["verdict"] = narrowed.why = "chosen"
        check["replaced"] = narrowed.answer or None
        narrowed.answer = picked
        narrowed.citations = cite_one(picked, passages)
    else:
        check["verdict"] = "picked none"
        narrowed.why = "unconfirmed" if narrowed.answer else narrowed.why
    ctx.emit(node)
    return narrowed


def names_member(answer: str, members: list[Passage], question: str) -> bool:
    """Do the set's passages name `answer` (whole, or its first word of two letters or more: "오세훈" of "오세훈
    변호사"), and is it not a name the question itself gives?"""
    if squash(answer) in squash(question):
        return False
    text = squash(" ".join(f"{p.title} {p.text}" for p in members))
    first = answer.split()[0] if answer.split() else ""
    return squash(answer) in text or (len(first) >= 2 and squash(first) not in squash(question) and squash(first) in text)


def shared_names(question: str, filtered: list[Passage], members: list[Passage]) -> list[str]:
    """The proper nouns (kiwipiepy's) that a filter passage and a set passage both hold and the question does not,
    best first: by the sum of the two passages' ranks, then by where the filter's passages first name them."""
    rank: dict[str, int] = {}
    order: list[str] = []
    member_texts = [f"{p.title} {p.text}" for p in members]
    for i, p in enumerate(filtered):
        for run in dict.fromkeys([*passage_names(p.title), *passage_names(p.text)]):
            # a whole name ("알렉산더 헤이그") where the set's passages hold it whole, else its parts that they hold
            for name in [run] if any(run in t for t in member_texts) else run.split(" "):
                if len(name) < 2 or name in question:
                    continue
                for j, text in enumerate(member_texts):
                    if name in text and i + j < rank.get(name, 1 << 30):
                        rank[name] = i + j
                if name in rank and name not in order:
                    order.append(name)
    return sorted(order, key=lambda n: (rank[n], order.index(n)))


def passage_names(text: str) -> list[str]:
    """The proper nouns of `text` (kiwipiepy's), in order, each once; nouns one space apart are one name ("알렉산더
    메이그스 헤이그"). [] without kiwipiepy."""
    from gaji.text.analyzers import kiwi_tokens

    runs: list[list] = []
    for t in kiwi_tokens(text) or []:
        if t.tag != "NNP":
            continue
        end = runs[-1][-1].start + runs[-1][-1].len if runs else -2
        if t.start == end + 1 and text[end] == " ":
            runs[-1].append(t)
        else:
            runs.append([t])
    return list(dict.fromkeys(" ".join(t.form for t in run) for run in runs if sum(t.len for t in run) >= 2))


def chosen(reply: str, names: list[str], question: str) -> str:
    """The name a choice's reply gives: the reply itself when it is a short name holding one of `names` ("스기우라
    주고" for 스기우라), else the one name it holds; "" when it holds none, or several in a longer reply."""
    hits = [n for n in names if squash(n) in squash(reply)]
    if not hits and named_in(reply, names) and len(reply.split()) == 1:
        hits = named_in(reply, names)
    if not hits:
        return ""
    if len(reply.split()) <= 3 and name_of(reply, question) and not polarity_word(reply):
        return reply
    return hits[0] if len(hits) == 1 else ""


def polarity_word(answer: str) -> bool:
    """Is `answer` a bare yes or no ("네", "아니요"), which names nothing?"""
    return len(answer.split()) == 1 and polarity(answer) is not None


def names_the_kind(answer: str, question: str) -> bool:
    """Does `answer` describe the kind `question` asks for instead of naming one: it ends in the asked noun after a
    verb's modifier form ("1958년 공개된 일렉트릭 기타" for "…일렉트릭 기타는?"), or is that noun alone? A name that
    ends in it ("골든디스크 시상식") is a name."""
    asked = _TOPIC.sub("", question.strip().rstrip("?？ ").split(" ")[-1])
    words = answer.strip().rstrip(".").split()
    if len(asked) < 2 or not words or words[-1] != asked:
        return False
    return len(words) == 1 or any(modifier_flags(words[:-1]))


_TOPIC = re.compile(r"(?:은|는)$")


def describe(node: Node, lang: str) -> list[Fact]:
    """The filter's node: the condition asked on its own, and what it found; the check's: what the set said."""
    value = node.data.get("value")
    if "intersect_check" in node.data:
        return _describe_check(node.data["intersect_check"], value, lang)
    if lang == "ko":
        return [Fact("두 조건", f"두 번째 조건만 물음: {value}" if value else "두 번째 조건으로 답을 찾지 못함")]
    return [Fact("two conditions", f"asked the second condition alone: {value}" if value
                 else "the second condition found no answer")]


def _describe_check(check: dict[str, Any], value: str | None, lang: str) -> list[Fact]:
    verdict, choices = check.get("verdict"), ", ".join(check.get("choices") or [])
    ko = lang == "ko"
    if verdict == "in the set":
        text = f"첫 번째 조건의 문서에도 나옴: {value}" if ko else f"the first condition's passages name it too: {value}"
    elif verdict == "chosen":
        was = check.get("replaced")
        text = (f"두 조건의 문서에 함께 나오는 이름({choices}) 가운데 고름: {value}" + (f" ({was} 대신)" if was else "")
                if ko else f"picked among the names both conditions' passages hold ({choices}): {value}"
                + (f" (instead of {was})" if was else ""))
    elif verdict == "picked none":
        text = (f"두 조건의 문서에 함께 나오는 이름({choices}) 가운데 고르지 못함" if ko
                else f"picked none of the names both conditions' passages hold ({choices})")
    else:
        text = "두 조건의 문서에 함께 나오는 이름이 없음" if ko else "no name is held by both conditions' passages"
    return [Fact("두 조건 확인" if ko else "check of both", text)]
