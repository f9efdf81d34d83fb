"""Question decomposer (the paper's Prompt B.2; Algorithm 1, line 13).

Decides whether one search suffices; otherwise splits a question into sub-questions of one of the
four types of Table 1 (bridging, intersection, comparison, hybrid), marking uses of earlier answers
as `[ANS_N]`. The output is schema-constrained JSON, then checked: at least one sub-question, at
most `max_children`, every `[ANS_N]` in range and not self-referential, no dependency cycle. A
decomposition that fails those checks is asked again (another seed); after the retries it raises
LLMError, like any other failed call.

Two repairs keep a small model's output consistent with the type definitions: a repeated
sub-question is dropped (its `[ANS_N]` uses point at the kept copy), and the type follows the
structure where the structure decides it: sub-questions chained through `[ANS_N]` are "bridging"
("hybrid" with an `each` sub-question), whatever label the model wrote; the model's label stays in
`model_type`.

Routed mode (`router=`, ToQ option `decomposer: routed`; not in the paper): a shape router
(gaji/methods/toq/router.py) first says whether the question compares named items or is a chain,
and the LLM answers a prompt for that shape only. Chain: it names the hidden thing, the question
that finds it and the question about it, and code checks that the second uses `[ANS_1]` (writing
it in place of the hidden thing's words when the model repeated them); an empty "hidden" means one
search suffices. An English hidden thing that the question describes ("Timothy Shriver's father") but the model
did not split at (its first question is the whole question again, or there is no second) is split at by code:
"Who is Timothy Shriver's father?", then the question with `[ANS_1]` in the phrase's place (`split_at_hidden`).
Compare: it lists the items and writes one question with `[ITEM]`, and code asks that question about every item.
A template that is one of the prompt's exemplar templates while the question lacks the words that exemplar took
from its own question ("When was the director of the film [ITEM] born?" for "Who was born first, A or B?") is
copying, not decomposing, and is asked again.
Intersect (`intersect=True`, ToQ option `intersect`): a question the router did not call a comparison and
that code reads as two constraints on one asked-for thing (gaji/methods/toq/intersect.py `detect`) is split
into one question per constraint, each asking for that same thing, none using an answer slot: by code
(`intersect_split="code"`, intersect.py `split`, no LLM call; a question it cannot split cleanly gets the
chain prompt as without the option) or by a third prompt (`intersect_split="llm"`).
When the shaped prompt fails after its retries, the paper's prompt is asked instead (recorded in `fallback`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

from gaji.errors import LLMError
from gaji.llm.tracked import TrackedLLM
from gaji.methods.toq.intersect import detect as detect_intersection
from gaji.methods.toq.intersect import split as split_intersection
from gaji.methods.toq.names_rule import lost_names
from gaji.methods.toq.prompts import PROMPTS
from gaji.methods.toq.router import Route, ShapeRouter
from gaji.methods.toq.tree import SLOT, DependencyError, dependencies, dependency_waves, slot_refs
from gaji.text.normalize import squash
from gaji.types import Node

TYPES = ("single", "bridging", "intersection", "comparison", "hybrid")
INTERSECT_SPLITS = ("code", "llm")  # how a detected intersection is split: by code, or by the intersect prompt


def decomposition_schema(max_children: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": list(TYPES)},
            "subquestions": {
                "type": "array",
                "minItems": 1,
                "maxItems": max_children,
                "items": {
                    "type": "object",
                    "properties": {"question": {"type": "string", "maxLength": 200}, "each": {"type": "boolean"}},
                    "required": ["question", "each"],
                },
            },
        },
        "required": ["type", "subquestions"],
    }


def chain_schema() -> dict:
    text = {"type": "string", "maxLength": 200}
    return {"type": "object", "properties": {"hidden": text, "first": text, "then": text},
            "required": ["hidden", "first", "then"]}


def compare_schema(max_children: int) -> dict:
    return {"type": "object", "properties": {
        "items": {"type": "array", "minItems": 2, "maxItems": max_children, "items": {"type": "string", "maxLength": 100}},
        "question": {"type": "string", "maxLength": 200}}, "required": ["items", "question"]}


def intersect_schema(max_children: int) -> dict:
    text = {"type": "string", "maxLength": 200}
    return {"type": "object", "properties": {
        "asked": {"type": "string", "maxLength": 60},
        "questions": {"type": "array", "minItems": 2, "maxItems": max_children, "items": text}},
        "required": ["asked", "questions"]}


@dataclass
class SubQuestion:
    question: str  # may hold [ANS_N] slots
    depends_on: list[int] = field(default_factory=list)  # 0-based indices of earlier siblings
    each: bool = False  # hybrid: ask once per item of the (list) answer of depends_on[0]


@dataclass
class Decomposition:
    type: str
    subquestions: list[SubQuestion]
    waves: list[list[int]]  # sub-question indices; each wave only depends on earlier ones
    model_type: str = ""  # the type the model wrote (before the structure decided it)
    duplicates: int = 0  # repeated sub-questions dropped
    prompt: str = "paper"  # which prompt produced it: paper (B.2) | chain | compare | intersect (routed mode)
    route: Route | None = None  # the shape router's decision (routed mode)
    fallback: str = ""  # routed mode: why the shaped prompt's answer was not used
    rejected: str = ""  # why no split was kept (every one lost the question's names): answered unsplit
    cue: str = ""  # routed mode: the intersection detector's cue when it fired (intersect.detect)
    split: str = ""  # a detected intersection: "code" (split by intersect.split, no LLM call), "llm" (the intersect
    # prompt) or "none" (code could not split it cleanly: the chain prompt was asked)
    hidden: str = ""  # a chain: the question's words for the hidden thing its `[ANS_1]` stands for

    @property
    def is_single(self) -> bool:
        """One search suffices: nothing to expand."""
        return self.type == "single" or len(self.subquestions) < 2


def parse_decomposition(obj: dict, question: str, max_children: int) -> Decomposition:
    """Checked Decomposition from the model's JSON; raises DependencyError when it cannot be ordered."""
    subs_raw = [s for s in obj.get("subquestions", []) if str(s.get("question", "")).strip()]
    model_type = str(obj.get("type", "single"))
    if not subs_raw:
        raise DependencyError("no sub-questions")
    texts, each, duplicates = _drop_repeats([str(s["question"]).strip() for s in subs_raw],
                                            [bool(s.get("each")) for s in subs_raw])
    texts, each = texts[:max_children], each[:max_children]
    deps = dependencies(texts)
    waves = dependency_waves(deps)
    subs = [SubQuestion(question=t, depends_on=d, each=e and bool(slot_refs(t))) for t, d, e in zip(texts, deps, each)]
    kind = model_type
    if len(subs) == 1 or all(_same(s.question, question) for s in subs):
        kind = "single"
    elif any(s.depends_on for s in subs):
        kind = "hybrid" if any(s.each for s in subs) else "bridging"
    return Decomposition(type=kind, subquestions=subs, waves=waves, model_type=model_type, duplicates=duplicates)


class LostNames(DependencyError):
    """A split that drops what the question names (see `lost_names`)."""


class LostNamesError(LLMError):
    """No split that keeps the question's names came back after the retries; `problem` says what was lost."""

    def __init__(self, message: str, problem: str = ""):
        super().__init__(message)
        self.problem = problem or message


def _drop_repeats(texts: list[str], each: list[bool]) -> tuple[list[str], list[bool], int]:
    """Keep the first of repeated sub-questions; `[ANS_N]` slots are renumbered to the kept ones."""
    new_number: dict[int, int] = {}
    kept: list[str] = []
    kept_each: list[bool] = []
    first: dict[str, int] = {}
    for i, t in enumerate(texts, 1):
        key = squash(t)
        if key in first:
            new_number[i] = first[key]
            continue
        kept.append(t)
        kept_each.append(each[i - 1])
        first[key] = new_number[i] = len(kept)
    if len(kept) == len(texts):
        return texts, each, 0

    def renumber(m) -> str:
        n = int(m.group(1) or m.group(2))
        return f"[ANS_{new_number[n]}]" if n in new_number else m.group(0)  # out of range: left for the check

    return [SLOT.sub(renumber, t) for t in kept], kept_each, len(texts) - len(kept)


ITEM = re.compile(r"[\[{]\s*item\s*[\]}]", re.IGNORECASE)
ANS1 = re.compile(r"\[\s*ANS_?1\s*\]", re.IGNORECASE)


def parse_chain(obj: dict, question: str, max_children: int) -> Decomposition:
    """A chain (or single) Decomposition from the chain prompt's JSON; DependencyError when unusable."""
    hidden, first, then = (str(obj.get(k, "")).strip() for k in ("hidden", "first", "then"))
    rebuilt = split_at_hidden(hidden, first, then, question)
    if rebuilt is not None:
        first, then = rebuilt
    if not hidden or not then:
        return Decomposition("single", [SubQuestion(question)], [[0]], model_type="single")
    if not first or SLOT.search(first):
        raise DependencyError("the first question is empty or uses an answer slot")
    if rebuilt is None and repeats_question(first, question):  # a rebuilt first asks for the hidden thing only
        raise DependencyError("the first question only repeats the whole question")
    then = ANS1.sub("[ANS_1]", then)
    if "[ANS_1]" not in then:  # the model repeated the hidden thing's words instead of the slot
        then = _put_slot(then, hidden, "[ANS_1]")
        if then is None:
            raise DependencyError("the second question neither uses [ANS_1] nor names the hidden thing")
    then = slot_for_found(then, first, question)
    if not re.search(r"[가-힣]", question):
        if _EN_ASKS_SLOT.search(then):  # "Channel 8 has broadcast which [ANS_1]?": the first question asked it all
            raise DependencyError("the second question asks for what the first one finds")
        if not then.rstrip().endswith("?") and not EN_QUESTION_WORD.search(then):
            raise DependencyError("the second question is a statement, not a question")
        asked, then_asks = asked_kind(question) or asked_thing(question), asked_kind(then)
        # "Who directed …?" split into "In which country …?", "… played for which football club?" into "When …?"
        # (a "which <noun>" may name a person's role the noun list does not know: "which American actor" -> "Who …")
        if asked and then_asks and asked != then_asks and (asked, then_asks) != ("thing", "person"):
            raise DependencyError(f"the second question asks for a {then_asks}, the question for a {asked}")
    d = parse_decomposition({"type": "bridging", "subquestions": [{"question": first}, {"question": then}]},
                            question, max_children)
    if not any(sq.depends_on for sq in d.subquestions):
        raise DependencyError("the chain's two questions are the same")
    d.hidden = hidden
    return d


def split_at_hidden(hidden: str, first: str, then: str, question: str) -> tuple[str, str] | None:
    """The split an English `hidden` phrase makes when the model named it but did not split at it: its first question
    the whole question again, empty of purpose or asking a place, time or number of a hidden person, or no second
    question ("Where did Timothy Shriver's father study?", hidden "Timothy Shriver's father" -> "Who is Timothy
    Shriver's father?" / "Where did [ANS_1] study?").
    Only a described thing (a possessive, "of", a relative clause: a bare name hides nothing) written in the question
    itself, and only when the rest asks more than the hidden thing ("Who is [ANS_1]?" is the question asking for it:
    one hop). None when the model's own split stands or none can be made."""
    if not hidden or re.search(r"[가-힣]", question) or not DESCRIBED.search(hidden):
        return None
    slotted = ANS1.sub("[ANS_1]", then)
    if "[ANS_1]" not in slotted:
        slotted = ""  # the model wrote no second question about the hidden thing
    head = re.sub(r"^(?i:the)\s+", "", hidden)
    who = PERSON_WORDS.search(head)
    # a first question that asks where, when or how many of a hidden person ("Where was Henrik Selberg's father
    # born?" for "Henrik Selberg's father") answers the whole question, not who the person is
    other_kind = bool(who) and asked_kind(first) in ("place", "time", "quantity")
    if slotted and first and not SLOT.search(first) and not repeats_question(first, question) and not other_kind:
        return None  # the model's split stands (checked as usual)
    rest = _put_slot(question, hidden, "[ANS_1]")
    if rest is None or re.fullmatch(r"(?i)\s*(?:who|what|which)\s+(?:is|was|are|were)\s+\[ANS_1\]\s*\??\s*", rest):
        return None
    if slotted and not repeats_question(then, question):
        rest = slotted
    return f"{'Who' if who else 'What'} is {hidden}?", rest


# a phrase that describes a thing rather than naming it
DESCRIBED = re.compile(r"'s\b|’s\b|\bof\b|\b(?:that|which|who|whom|whose|where)\b", re.IGNORECASE)
# a described person: the phrase's head noun (before "of", or after a possessive) is a person's role or kin
PERSON_WORDS = re.compile(
    r"(?:^|'s\s+|’s\s+)(?:\w+\s+)?(?:father|mother|parent|son|daughter|child|husband|wife|spouse|brother|sister|"
    r"sibling|grandfather|grandmother|uncle|aunt|nephew|niece|cousin|director|performer|singer|author|writer|"
    r"composer|founder|creator|producer|actor|actress|player|coach|president|leader|king|queen|emperor|"
    r"empress|man|woman|person|owner|designer|architect|artist|poet|painter|editor|manager)s?\b", re.IGNORECASE)


# an English question word anywhere in a text (auto's paragraph rule counts them too)
EN_QUESTION_WORD = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)
# a question word right before the slot asks for the slot's own thing; after a preposition it opens a relative clause
# ("the leader from which [ANS_1] comes")
_EN_ASKS_SLOT = re.compile("".join(f"(?<!{p} )" for p in ("from", "in", "of", "to", "by", "with", "for", "at", "on"))
                           + r"\b(?:which|what)\s+\[ANS_1\]", re.I)
# the kind of thing a noun after "what" or "which" names ("in which year" -> "time")
_NOUN_KINDS = {**dict.fromkeys(("year", "years", "date", "decade", "century", "month", "day"), "time"),
               **dict.fromkeys(("country", "city", "state", "town", "place", "nation", "region", "province", "county",
                                "location", "continent", "island", "village"), "place"),
               **dict.fromkeys(("person", "man", "woman", "people"), "person")}
# the question word a question opens with (a "who" later on opens a relative clause: "… the actor who played X?")
_EN_ASKED_KIND = re.compile(r"^\W*(?:in\s+)?(?:(?P<w>who|whom|when|where|how many|how much)|(?:what|which)\s+"
                            r"(?P<noun>[a-z]+))\b", re.I)


def asked_kind(question: str) -> str:
    """What an English question's opening question word asks for: "person" (who, what person), "time" (when, what
    year), "place" (where, which country or city), "quantity" (how many, how much); "" for any other (the kinds of
    nouns after "what" or "which" are `_NOUN_KINDS`, shared with `asked_thing`)."""
    m = _EN_ASKED_KIND.search(question)
    if not m:
        return ""
    if m.group("noun"):  # "what year", "which country": the noun's kind, where the list gives it one
        return _NOUN_KINDS.get(m.group("noun").lower(), "")
    w = m.group("w").lower()
    if w in ("who", "whom"):
        return "person"
    if w == "when":
        return "time"
    return "quantity" if w.startswith("how") else "place"


# "which" or "what" before a noun, anywhere in the question ("… last played for which football club?"); not before a
# verb, an article or a pronoun, where "which" opens a relative clause ("the arena, in which the Brit Awards were held")
_EN_WHICH_NOUN = re.compile(r"\b(?:which|what)\s+(?!(?:is|was|are|were|did|does|do|has|had|have|can|could|will|would|"
                            r"the|a|an|he|she|it|they|his|her|its|their|this|that|these|those|of|in|on|to|for|by|"
                            r"with|kind|type|sort)\b)([a-z][a-z-]*)", re.I)


def asked_thing(question: str) -> str:
    """What an English question asks for where `asked_kind` reads nothing from its opening ("What government
    position …", "… last played for which football club?"), read off its first "which/what <noun>": the
    noun's kind where it names one ("in which year" -> "time"), else "thing" (a club, an heir, a film, or a person's
    role the list does not know); "" when it has no such phrase."""
    m = _EN_WHICH_NOUN.search(question)
    return "" if not m else _NOUN_KINDS.get(m.group(1).lower(), "thing")


# the first question asks who or what did something to a thing ("Who wrote Bimbos of the Death Sun?"): it finds the
# doer, not the thing; a copula ("Who is the director of …?") asks for the thing itself
_FIRST_ASKS_DOER = re.compile(r"^\W*(?:who|what|which)\s+(?!(?:is|was|are|were|'s)\b)(?:[a-z]+\s+)?(?P<thing>.+?)\W*$", re.I)
# a role that describes the slot's entity right before it ("the author of ", "the actor who played ")
_ROLE_BEFORE_SLOT = re.compile(r"\b(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?(?:of|who\s+\w+|that\s+\w+)\s+$", re.I)


def slot_for_found(then: str, first: str, question: str) -> str:
    """`then` with `[ANS_1]` standing for what `first` finds. A split of "What citizen was the author of Bimbos of the
    Death Sun?" into "Who wrote Bimbos of the Death Sun?" and "What citizen was the author of [ANS_1]?" put the slot
    where the book's title was, though the first question finds its author: the role before the slot is dropped
    ("What citizen was [ANS_1]?"). English only; `then` as it is when the slot stands where the found thing was
    described, or when no role stands before it."""
    pre, slot, post = then.partition("[ANS_1]")
    if not slot or re.search(r"[가-힣]", question):
        return then
    q = question.strip()
    if not (q.lower().startswith(pre.lower()) and q.lower().endswith(post.lower())) or len(pre) + len(post) >= len(q):
        return then
    replaced = q[len(pre): len(q) - len(post)].strip()
    m = _FIRST_ASKS_DOER.match(first.strip())
    role = _ROLE_BEFORE_SLOT.search(pre)
    if not replaced or not m or role is None or squash(replaced) not in squash(m.group("thing")):
        return then
    return pre[: role.start()] + slot + post


def repeats_question(sub: str, question: str) -> bool:
    """Is `sub` the whole question again (a first hop that asks everything, so the chain gains nothing)? The same
    letters, or 85 % of the question's character bigrams with a length at least 80 % of the question's."""
    a, b = squash(sub), squash(question)
    if not a or not b:
        return False
    if a == b:
        return True
    grams = {b[i:i + 2] for i in range(len(b) - 1)}
    share = sum(1 for g in grams if g in a) / max(1, len(grams))
    return share >= 0.85 and len(a) >= 0.8 * len(b)


def parse_compare(obj: dict, question: str, max_children: int,
                  exemplars: tuple[tuple[str, str], ...] = ()) -> Decomposition:
    """A comparison Decomposition (one sub-question per item) from the compare prompt's JSON.
    `exemplars`: the prompt's (question, template) shots, to reject a template copied from one of them."""
    items: list[str] = []
    seen: set[str] = set()
    for x in obj.get("items", []):
        x = str(x).strip()
        if x and squash(x) not in seen:
            seen.add(squash(x))
            items.append(x)
    template = str(obj.get("question", "")).strip()
    if len(items) < 2:
        raise DependencyError("fewer than two distinct items")
    if not ITEM.search(template):  # the model wrote one item's name instead of [ITEM]
        template = next((t for t in (_put_slot(template, i, "[ITEM]") for i in items) if t), None)
        if template is None:
            raise DependencyError("the question template has no [ITEM]")
    copied = copied_exemplar(template, question, exemplars)
    if copied:
        raise DependencyError(f"the template copies an exemplar's template ({copied!r} is not in the question)")
    subs = [{"question": ITEM.sub(lambda _m, it=it: it, template)} for it in items[:max_children]]
    d = parse_decomposition({"type": "comparison", "subquestions": subs}, question, max_children)
    d.model_type = "comparison"
    return d


def parse_intersect(obj: dict, question: str, max_children: int) -> Decomposition:
    """An intersection Decomposition (independent questions, one per constraint on the same unknown) from the
    intersect prompt's JSON; DependencyError when fewer than two usable questions remain."""
    kept: list[str] = []
    for x in obj.get("questions", []):
        x = str(x).strip()
        if not x or _same(x, question):  # the whole question again is no single constraint
            continue
        if SLOT.search(x) or ITEM.search(x):
            raise DependencyError("an intersection question uses an answer slot")
        if all(not _same(x, k) for k in kept):
            kept.append(x)
    if len(kept) < 2:
        raise DependencyError("fewer than two distinct constraint questions")
    d = parse_decomposition({"type": "intersection", "subquestions": [{"question": q} for q in kept[:max_children]]},
                            question, max_children)
    d.model_type = "intersection"
    return d


def compare_exemplars(shots: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """(question, template) of each compare-prompt shot (user turn "Question: …" / "질문: …", JSON answer)."""
    return tuple((user.split(":", 1)[-1].strip(), json.loads(answer)["question"]) for user, answer in shots)


_WORD = re.compile(r"[A-Za-z]{4,}|[가-힣]{2,}")


def _keys(text: str) -> set[str]:
    """Content-word keys: Latin words of 4+ letters (lower case); Hangul words cut to their first two
    syllables, so that a noun or verb stem matches across particles and endings (감독은 / 감독이)."""
    return {w.lower() if w.isascii() else w[:2] for w in _WORD.findall(ITEM.sub(" ", text))}


def copied_exemplar(template: str, question: str, exemplars: tuple[tuple[str, str], ...]) -> str:
    """The first word that shows `template` was copied from an exemplar, else "": the template equals
    an exemplar's template, and a word that exemplar's template took from its own question is missing
    from `question`. A template that fits the question ("When was [ITEM] born?" for "Who was born
    first, …?") is not copying even when an exemplar has it too."""
    q, shape = question.lower(), squash(ITEM.sub("", template))
    for ex_question, ex_template in exemplars:
        if squash(ITEM.sub("", ex_template)) != shape:
            continue
        borrowed = {k for k in _keys(ex_template) if k in ex_question.lower()}
        missing = sorted(k for k in borrowed if k not in q)
        if missing:
            return missing[0]
    return ""


def _put_slot(text: str, phrase: str, slot: str) -> str | None:
    """`text` with the first whole-word occurrence of `phrase` (any case) replaced by `slot`; None if absent.
    A Korean particle may follow the phrase ("갤럭시 S24의"), a Latin letter or digit may not ("b" is not in "born")."""
    m = re.search(r"(?<!\w)" + re.escape(phrase) + r"(?![A-Za-z0-9])", text, re.IGNORECASE)
    return text[:m.start()] + slot + text[m.end():] if m else None


def _same(a: str, b: str) -> bool:
    return squash(a) == squash(b)


class QuestionDecomposer:
    def __init__(self, llm: TrackedLLM, max_children: int = 4, retries: int = 1, max_tokens: int = 400,
                 router: ShapeRouter | None = None, intersect: bool = False, intersect_split: str = "code"):
        self.llm = llm
        self.max_children = max_children
        self.retries = retries
        self.max_tokens = max_tokens
        self.router = router  # None: the paper's prompt B.2 decides everything
        self.intersect = intersect  # routed: a question detect() reads as an intersection is split as one
        if intersect_split not in INTERSECT_SPLITS:
            raise ValueError(f"intersect_split must be 'code' or 'llm', not {intersect_split!r}")
        self.intersect_split = intersect_split  # code: intersect.split, no LLM call; llm: the intersect prompt

    def messages(self, question: str, lang: str) -> list[dict]:
        return PROMPTS[lang].decompose.messages(max_children=self.max_children, question=question)

    def decompose(self, node: Node, question: str, lang: str) -> Decomposition:
        """Split `question` (recording the calls on `node`); LLMError when no valid split comes back, a single
        (unsplit) Decomposition with `rejected` set when every split lost the question's names."""
        if self.router is None:
            return self._paper_or_single(node, question, lang)
        route = self.router.route(question)
        p = PROMPTS[lang]
        cue = detect_intersection(question, lang) if self.intersect and route.shape != "compare" else ""
        how = ""
        if cue and self.intersect_split == "code":
            # the 1.5B model copied the whole question or misspelt its names when asked for this split; the
            # constraints are clauses of the question's own text, so code cuts them out
            subs = split_intersection(question, lang)
            if subs is not None:
                d = parse_intersect({"questions": subs}, question, self.max_children)
                d.prompt, d.route, d.cue, d.split = "intersect", route, cue, "code"
                return d
            how = "none"  # not split cleanly: asked as the chain it would be without the option
        elif cue:
            how = "llm"
        prompt = "intersect" if how == "llm" else route.shape
        try:
            if route.shape == "compare":
                msgs = p.compare.messages(question=question)
                parse = partial(parse_compare, exemplars=compare_exemplars(p.compare.shots))
                d = self._ask(node, "decompose-compare", msgs, compare_schema(self.max_children), parse, question, lang)
            elif how == "llm":
                msgs = p.intersect.messages(question=question)
                d = self._ask(node, "decompose-intersect", msgs, intersect_schema(self.max_children), parse_intersect,
                              question, lang)
            else:
                d = self.chain(node, question, lang)
            d.prompt = prompt
        except LLMError as e:
            d = self._paper_or_single(node, question, lang)
            d.fallback = str(e)
        d.route, d.cue, d.split = route, cue, how
        return d

    def chain(self, node: Node, question: str, lang: str) -> Decomposition:
        """The chain prompt alone (no shape router): a bridging split (the question that finds the hidden thing,
        then the question about `[ANS_1]`) or a single one when the question names everything it asks about.
        The names rule is checked; LLMError when no valid split came back after the retries."""
        d = self._ask(node, "decompose-chain", PROMPTS[lang].chain.messages(question=question), chain_schema(),
                      parse_chain, question, lang)
        d.prompt = "chain"
        return d

    def _paper(self, node: Node, question: str, lang: str) -> Decomposition:
        return self._ask(node, "decompose", self.messages(question, lang), decomposition_schema(self.max_children),
                         parse_decomposition, question, lang)

    def _paper_or_single(self, node: Node, question: str, lang: str) -> Decomposition:
        try:
            return self._paper(node, question, lang)
        except LostNamesError as e:
            return Decomposition("single", [SubQuestion(question)], [[0]], model_type="single", rejected=e.problem)

    def _ask(self, node: Node, purpose: str, msgs: list[dict], schema: dict,
             parse: Callable[[dict, str, int], Decomposition], question: str, lang: str | None = None) -> Decomposition:
        problem, lost = "", False
        for attempt in range(self.retries + 1):
            # a retry samples (temperature > 0): at temperature 0 the same prompt gives the same split
            obj: Any = self.llm.json(node, purpose, msgs, schema=schema, max_tokens=self.max_tokens,
                                     seed=attempt * 7, temperature=0.0 if attempt == 0 else 0.5)
            try:
                d = parse(obj, question, self.max_children)
                # a comparison's branches each ask about one side and may move the shared constraint into
                # the comparison itself ("both Korean breeds?"), and Kiwi tags some names as common nouns
                # (진돗개): the names rule is for splits that chain, where a dropped name loses the bridge
                if not d.is_single and purpose != "decompose-compare":
                    why = lost_names([sq.question for sq in d.subquestions], question, lang, carried=d.hidden)
                    if why:
                        raise LostNames(why)
                return d
            except DependencyError as e:
                problem, lost = str(e), isinstance(e, LostNames)
                node.calls[-1].ok = False
                node.calls[-1].error = f"invalid decomposition: {problem}"
        message = f"decomposition of {question[:80]!r} was invalid after retries: {problem}"
        raise LostNamesError(message, problem) if lost else LLMError(message)
