"""A bridge question split in two: resolve the entity it describes, then ask the rest about that entity.

"2004년 서울시민이 대중교통 환승 할인을 받게 된 정책을 편 당시 서울시장이 태어난 도시는?" describes someone (the bridge
entity: "…정책을 편 당시 서울시장") and asks a fact about them ("…이 태어난 도시는?"). With one retrieval the 1.5B model
often answers with the bridge entity itself, one hop short ("금강산" for the peak of the mountain). Korean puts the
description first and marks the bridge entity with a particle, so code can split the question where a chain's first
hop would:

    1. split: a word before the final clause that ends in 이/가 (the subject), 의 (a possessive), 을/를 (the object)
       or 에게 and has a verb's modifier form among the three words before it ("…편 당시 서울시장이"; modifiers read
       in context by kiwipiepy); the part before it is the description, the part after it the rest ("태어난
       도시는?"). The description must end in a person, a place or a thing (서울시장, 산, 방송사, ...) and the rest
       must ask something of it other than its name or title: a one-hop KorQuAD question ("…지명수배된 사람의
       이름은?", "…노아의 방주가 발견되었다는 …") is no bridge. The last such word is tried first, then the ones
       before it. A choice ("A와 B 중 누가", "…배우 가운데") is no bridge; "미국 방문 중 만난" (during) may be one;
    2. resolve: "…정책을 편 당시 서울시장은 누구인가?" with a small retrieval and one short read that gives only the
       name (the read of gaji/methods/compare.py);
    3. ask the rest about the name: "이명박이 태어난 도시는?", with its own retrieval and the plain reader.

The names rule of the question tree (checked by code, not the model) holds by construction: the second hop carries
the resolved name, and the first hop is the question's own words.

    >>> b = parse_bridge("2004년 서울시민이 대중교통 환승 할인을 받게 된 정책을 편 당시 서울시장이 태어난 도시는?", "ko")
    >>> b.description, b.particle, b.rest
    ('2004년 서울시민이 대중교통 환승 할인을 받게 된 정책을 편 당시 서울시장', '이', '태어난 도시는?')
    >>> b.resolve_question(), b.second_question("이명박")
    ('2004년 서울시민이 대중교통 환승 할인을 받게 된 정책을 편 당시 서울시장은 누구인가?', '이명박이 태어난 도시는?')

English puts the description after the noun, in too many forms for a rule ("the woman who portrayed Corliss
Archer", "a band formed in 1998 whose singer …", "Steven Covey, the father of Sean Covey, …"). An English question
is split by the question tree's chain prompt instead (`split`: one call, gaji/methods/toq/decomposer.py): the
question that finds the hidden entity, and the question about it with `[ANS_1]` in its place. Code still checks what
the model wrote, as the tree does: the split keeps the question's names (the names rule), its first question is not
the whole question again, its second uses the slot; a question that names everything it asks about is not split.
The two hops are then the same as the Korean ones.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gaji.errors import LLMError
from gaji.llm.prompts import fill
from gaji.methods.base import RunContext
from gaji.methods.common import attribute, cite_one, format_passages, plain_answer
from gaji.methods.compare import name_of, read_name
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts import direct
from gaji.methods.prompts.compare import PROMPTS
from gaji.methods.reask import ask_plain, echoes
from gaji.methods.signals import kind_mismatch
from gaji.methods.span import is_unknown, shape_answer
from gaji.methods.toq.decomposer import QuestionDecomposer
from gaji.methods.toq.tree import SLOT
from gaji.text.ko_phrases import ends_in_entity, entity_kind, modifier_flags, particle
from gaji.text.normalize import squash
from gaji.text.sentences import split_sentences
from gaji.types import Fact, Node, Passage

K = 5  # passages for the second hop: the plain reader's own
PASSAGE_CHARS_KO = 400  # cut to their sentences most relevant to the second question (the one route's Korean cut)
PASSAGE_CHARS = 1200  # an English passage: the one route's own cut
MAX_TOKENS = 48
MAX_TOKENS_KO = 64  # a Korean reply often restates the question before its answer ("…출두한 날은 2012년 7월 5일")

_EDGE = "'\"‘’“”,"
# the rest asks for the bridge entity itself ("…지명수배된 사람의 이름은?"): a one-hop question, not a bridge
_ASKS_ITSELF = re.compile(r"^(?:이름|성명|본명|제목|명칭)(?:은|는)?\s*(?:무엇|뭐)?")
# the rest asks for something ("…태어난 도시는?", "몇 회였나?"), not yes or no ("…같은 대학교를 나왔나?")
_ASKED_WORD = re.compile(r"(?:^|\s)(?:무엇|누구|누가|어떤|어떻게|언제|어디|몇|왜|얼마)")
_ASKS = re.compile(r"[은는]\s*[?？.]?\s*$|몇|언제|누구|어디|무엇|무슨|어떤|어느|얼마")
# the particles that join a described entity to the rest: subject, possessive, object, dative ("…공약한 건물을 설계한
# 건축가는?", "…이긴 전 의원에게 … 넘겨준 사람은?"), longest first
MARKS = ("에게", "이", "가", "의", "을", "를")
# the word after "중" in a choice ("A와 B 중 누가 먼저 …")
_CHOOSES = re.compile(r"^(?:누가|누구|어느|어떤|무엇|뭐|더|먼저|가장|나중)")


@dataclass(frozen=True)
class Bridge:
    question: str
    description: str  # the bridge entity as the question describes it
    particle: str  # what joined it to the rest: 이/가 (subject), 의 (possessive), 을/를 (object) or 에게
    rest: str  # the question asked about the bridge entity
    lang = "ko"  # a class attribute, not a field: the split by code reads Korean only

    def resolve_question(self) -> str:
        p = PROMPTS["ko"]
        kind = entity_kind(self.description)
        template = p.resolve_who if kind == "person" else p.resolve_where if kind == "place" else p.resolve_what
        return fill(template, item=self.description + particle(self.description, "은"))

    def second_question(self, name: str) -> str:
        if self.particle in ("의", "에게"):
            return f"{name}{self.particle} {self.rest}"
        if self.particle in ("을", "를"):
            return f"{name}{particle(name, '을')} {self.rest}"
        return f"{name}{particle(name, '이')} {self.rest}"

    def to_dict(self) -> dict[str, Any]:
        return {"split": "code", "description": self.description, "particle": self.particle, "rest": self.rest}


@dataclass(frozen=True)
class Split:
    """A bridge question as the chain prompt split it: `first` finds the hidden entity, `then` asks about it
    (`[ANS_1]` where the entity goes)."""

    question: str
    lang: str
    first: str
    then: str

    def resolve_question(self) -> str:
        return self.first

    def second_question(self, name: str) -> str:
        return SLOT.sub(lambda _m: name, self.then)

    def to_dict(self) -> dict[str, Any]:
        return {"split": "chain prompt", "first": self.first, "then": self.then}


def split(ctx: RunContext, parent: Node, question: str, lang: str) -> Split | None:
    """The chain prompt's split of `question` (one call, a retry when code refuses the split), recorded on a child
    node of `parent`; None when the question names everything it asks about or no valid split came back."""
    node = parent.add(Node(question=question, kind="bridge_hop", data={"bridge_hop": "split"}))
    ctx.emit(node)
    try:
        d = QuestionDecomposer(ctx.llm).chain(node, question, lang)
    except LLMError:  # refused after the retry, or the calls failed: the calls' errors say which
        node.data["why"] = "refused"
        ctx.emit(node)
        return None
    if d.is_single:  # otherwise parse_chain made it two questions, the second with the slot
        node.data["why"] = "single"
        ctx.emit(node)
        return None
    s = Split(question, lang, d.subquestions[0].question, d.subquestions[1].question)
    node.data.update(first=s.first, then=s.then)
    ctx.emit(node)
    return s


def parse_bridge(question: str, lang: str) -> Bridge | None:
    """The split of a Korean bridge question (see the module doc); None for another language, a choice ("A와 B
    중", "…배우 가운데"), or a question with no described subject before its final clause. The last word that can
    end a description is tried first, then the ones before it ("…기선의 이름은?" asks the ship's name, a one-hop
    rest, so "…전한 인물이 …" is the split)."""
    if lang != "ko" or is_choice(question) or len(split_sentences(question)) > 1:
        # a question after a story ("갑은 …의 대표이다. … 을은 어떤 의무를 가지는가?") has no described subject
        # to resolve: its "description" would run across the story's sentences
        return None
    words = " ".join(question.split()).split(" ")
    modifier = modifier_flags(words)
    cuts = [i for i, w in enumerate(words)
            if 2 <= i < len(words) - 1 and len(w.strip(_EDGE)) >= 2 and w.strip(_EDGE).endswith(MARKS)
            and any(modifier[max(0, i - 3):i])]
    for cut in reversed(cuts):
        core = words[cut].strip(_EDGE)
        particle = next(m for m in MARKS if core.endswith(m))
        description = " ".join(words[:cut] + [core[:-len(particle)]]).strip()
        rest = " ".join(words[cut + 1:]).strip()
        if len(description.split()) < 3 or not rest or not _ASKS.search(rest) or _ASKS_ITSELF.match(rest):
            continue
        if _ASKED_WORD.search(description):
            continue  # "…무엇을 구성해야 하며, … 건물" asks there: it describes nothing
        if not ends_in_entity(description):
            continue  # the word is no person, place or thing the question describes ("…노아의 방주가 …")
        return Bridge(question, description, particle, rest)
    return None


def is_choice(question: str) -> bool:
    """Does a Korean question choose among things ("A와 B 중 누가", "…배우 가운데 …한 사람은?")? "중" after a
    person, a place or a thing, or before a question word, picks among them; after an action it is "during"
    ("미국 방문 중 만난 대통령은?"), which a bridge may hold."""
    if "가운데" in question:
        return True
    words = " ".join(question.split()).split(" ")
    for i, w in enumerate(words):
        if w.strip(_EDGE) not in ("중", "중에서", "중에"):
            continue
        before = " ".join(words[:i])
        after = words[i + 1] if i + 1 < len(words) else ""
        if not before or ends_in_entity(before) or _CHOOSES.match(after) or before.rstrip().endswith(("와", "과")):
            return True
        if re.search(r"(?:와|과|랑)\s", before):  # "A와 B 중", B of several words
            return True
    return False


@dataclass
class Hop:
    """What the split found: the bridge entity's name (None: not resolved) and the second hop's answer."""

    bridge: Bridge | Split
    name: str | None = None
    answer: str = ""
    resolve_node: str = ""
    second_node: str = ""
    citations: list[str] | None = None
    why: str = ""  # "answered", or what stopped it: "no name", "no answer", "wrong kind" (for the whole question),
    # "echoed" (a name the whole question gives)

    def names_bridge(self, answer: str) -> bool:
        """Does `answer` name the bridge entity (the one-hop-short answer)?"""
        if not self.name or not answer:
            return False
        a, n = squash(answer), squash(self.name)
        return bool(a and n) and (a in n or n in a)

    def to_dict(self) -> dict[str, Any]:
        return {**self.bridge.to_dict(), "name": self.name, "answer": self.answer, "why": self.why,
                "nodes": [self.resolve_node, self.second_node]}


def follow(ctx: RunContext, parent: Node, bridge: Bridge | Split) -> Hop:
    """Resolve the bridge entity, then answer the rest about it (two child nodes of `parent`)."""
    hop, lang = Hop(bridge), bridge.lang
    first = parent.add(Node(question=bridge.resolve_question(), kind="bridge_hop", data={"bridge_hop": "resolve"}))
    reply = read_name(ctx, first, lang)
    hop.resolve_node = first.id
    name = reply if name_of(reply, bridge.question) else ""
    first.data["value"] = name or None
    ctx.emit(first)
    if not name:
        hop.why = "no name"
        return hop
    hop.name = name
    second = parent.add(Node(question=bridge.second_question(name), kind="bridge_hop", data={"bridge_hop": "ask"}))
    hop.second_node = second.id
    answer, passages = ask(ctx, second, lang, about=name if lang == "en" else "")
    if not answer or is_unknown(answer) or squash(answer) == squash(name):
        hop.why = "no answer"
        return hop
    if kind_mismatch(bridge.question, answer, lang):  # no date for "when", a bare number for "who"
        hop.why = "wrong kind"
        return hop
    if echoes(answer, bridge.question, lang):  # a name the whole question gives ("아가씨" for "영화 《아가씨》에서 …")
        hop.why = "echoed"
        return hop
    hop.answer, hop.why = answer, "answered"
    # the passage that holds the answer, then the one that named the bridge entity
    first_passages = [ctx.trace.passages[i] for i in first.passage_ids] if ctx.trace is not None else []
    cited = cite_one(answer, passages) + attribute(name, first_passages)[:1]
    hop.citations = list(dict.fromkeys(cited))
    return hop


def ask(ctx: RunContext, node: Node, lang: str, query: str = "", about: str = "") -> tuple[str, list[Passage]]:
    """`node`'s question read by the plain reader over its own retrieval (of `query` when given): the answer, shaped
    against that question, and the passages it was read from. `about`: the entity the question asks about; only
    the retrieved passages that name it are read, when one does (`naming`)."""
    ctx.emit(node)
    passages = ctx.retrieve(node, query or node.question, K)
    if about:
        kept = naming(passages, about)
        node.data["naming"] = {"name": about, "kept": len(kept), "of": len(passages)}
        passages = kept or passages
    p = direct.PROMPTS[lang].plain
    chars = PASSAGE_CHARS_KO if lang == "ko" else PASSAGE_CHARS
    messages = p.messages(data_note=common_prompts.PROMPTS[lang].data_note,
                          passages=format_passages(passages, max_chars=chars, query=node.question),
                          question=node.question)
    # re-asked once when the answer echoes the question (the resolved name again, "Kochi" for "What is the
    # headquarters of Kochi?"), as the one route's reader is
    reply = plain_answer(ask_plain(ctx.llm, node, messages, node.question, passages, lang,
                                   MAX_TOKENS_KO if lang == "ko" else MAX_TOKENS, reask=True))
    # the span, shaped against the question asked here: a reply that restates it ("정두언 의원이 … 출두한 날은 …")
    # holds the resolved name, which the whole question does not
    answer = shape_answer(reply, node.question, passages, lang).answer if reply else reply
    node.answer = answer
    ctx.emit(node)
    return answer, passages


# words that say what kind of thing a name is ("Golestan Province", "Holston River"): many passages hold them
_EN_KIND_WORDS = frozenset(
    "province river city county state island mountain lake street university college school company records band "
    "film series album song club team party church hotel station airport district region kingdom empire war battle "
    "award prize festival museum park bridge castle palace house hall center centre group corporation inc ltd".split())


def names_entity(passage: Passage, name: str) -> bool:
    """Does an English passage name `name`: the whole name, or its telling word (the last capitalised word of four
    letters or more that is no kind-of-thing word: "McCrumb" of "Sharyn McCrumb", "Golestan" of "Golestan
    Province"), as a whole word of its title or text?"""
    text = f"{passage.title} {passage.text}"
    if squash(name) and squash(name) in squash(text):
        return True
    telling = [w for w in re.findall(r"[A-Z][\w'’-]{3,}", name) if w.lower() not in _EN_KIND_WORDS]
    return bool(telling) and re.search(r"(?<!\w)" + re.escape(telling[-1]) + r"(?!\w)", text) is not None


def naming(passages: list[Passage], name: str) -> list[Passage]:
    """The passages that name the bridge entity, in rank order. A second hop's reader given others as well took an
    answer from a passage about something else ("West German citizen", from an astronaut's page, for "What citizen
    was Sharyn McCrumb?" beside her own page that calls her American)."""
    return [p for p in passages if names_entity(p, name)]


def resolve_described(ctx: RunContext, node: Node, lang: str) -> str:
    """The name a described item of a comparison stands for (auto's resolver for compare.resolve_items), read on
    `node`: one short read, or, when the description itself hides an entity code can split at ("《아이리스》에서
    최승희를 연기한 배우가 정우성과 함께 출연한 영화"), the two hops of a bridge (that entity's name, then the item asked
    about it) as children of `node`. One read of a two-hop description echoes it back or names the inner entity."""
    inner = parse_bridge(node.question, lang) if lang == "ko" else None
    if inner is None:
        return read_name(ctx, node, lang)
    ctx.emit(node)
    hop = follow(ctx, node, inner)
    node.data["bridge"] = hop.to_dict()
    node.answer = as_name(hop.answer)
    return node.answer


def as_name(answer: str) -> str:
    """A second hop's answer as a name to look up: quotes dropped and a leading verb's modifier form cut ("출연한
    "4인용 식탁" -> "4인용 식탁": the reader restated the end of its question)."""
    words = re.sub(r"[\"'“”‘’「」『』]", "", answer).split()
    if len(words) >= 2 and modifier_flags(words)[0]:
        words = words[1:]
    return " ".join(words)


# why the chain prompt's split was not followed, in English and Korean
SPLIT_WHY = {"single": ("not split: the question names everything it asks about",
                        "나누지 않음: 질문이 묻는 대상을 모두 이름으로 댐"),
             "refused": ("not split: no split passed the checks (the calls' errors say why)",
                         "나누지 않음: 검사를 통과한 분할이 없음 (호출 오류에 이유가 있음)")}


def describe(node: Node, lang: str) -> list[Fact]:
    ko = lang == "ko"
    if node.data.get("bridge_hop") == "split":
        if node.data.get("first"):
            text = f"{node.data['first']} → {node.data['then']}"
        else:
            text = SPLIT_WHY.get(node.data.get("why", ""), SPLIT_WHY["refused"])[1 if ko else 0]
        return [Fact("연결 개체" if ko else "bridge", text)]
    if node.data.get("bridge_hop") == "resolve":
        value = node.data.get("value")
        text = (f"가리키는 이름: {value}" if ko else f"names: {value}") if value else (
            "이름을 찾지 못함" if ko else "no name found")
        return [Fact("연결 개체" if ko else "bridge", text)]
    facts = [Fact("연결 개체" if ko else "bridge", "찾은 이름에 대해 나머지를 물음" if ko
                  else "asks the rest about the name found")]
    n = node.data.get("naming")
    if isinstance(n, dict) and n.get("kept"):
        facts.append(Fact("문단" if ko else "passages",
                          f"{n['name']}을(를) 언급한 {n['kept']}/{n['of']}개 문단만 읽음" if ko
                          else f"read the {n['kept']} of {n['of']} passages that name {n['name']}"))
    return facts
