"""Resolving what the free rewrite left: a reference kept, or (Korean) a subject left out.

    why = needs_resolving(followup, rewritten, history, lang)     # "" when the free rewrite will do
    out = resolve_left_references(llm, node, followup, history, lang)
    out.question     # the follow-up with its references replaced, or None when nothing was left to resolve
    out.steps        # [{"reference": "그 사람이", "name": "소토마요르", "how": "choice"}, …]

The rewriter first asks the model to rewrite the follow-up freely (gaji/conversation/rewrite.py). When its
output still holds a reference ("그 회사가 …"), or comes back unchanged although the follow-up leans on the
conversation, this module resolves the *follow-up as asked* (the model's output is evidently not to be
trusted) one reference at a time:

  ordinal    "두 번째", "the first one": by position in the last answer's items, else in the last
             question's names ("Which came first, A or B?" -> B is "the second one"). No LLM call.
  otherwise  one short LLM call: which of the candidates (the last answer, its items, the names of the last
             question; references.candidates) the reference stands for, answered with its number. The
             Korean subject-less case also offers "none" (the question is complete as asked).

The name is put in with its particle re-chosen (references.substitute / with_topic). Every call goes through
the run's TrackedLLM on the rewrite node (purpose "resolve"), so it is counted in the trace like the rewrite.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from gaji.conversation import prompts as conversation_prompts
from gaji.conversation.references import (Reference, candidates, drop_opener, find_references, leans_on_context,
                                          ordinal_name, substitute, with_topic)
from gaji.conversation.turns import Turn
from gaji.errors import LLMError
from gaji.llm.prompts import fill
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node

CHOICE_TOKENS = 4
MAX_CHECKED_TURNS = 3  # the latest turns a rewrite may not copy


@dataclass
class Resolution:
    question: str | None = None  # the resolved follow-up; None: nothing was left to resolve
    steps: list[dict] = field(default_factory=list)


def needs_resolving(followup: str, rewritten: str, history: list[Turn], lang: str) -> str:
    """Why the free rewrite is not enough: "kept a reference", "unchanged" (Korean follow-up that leans on
    the conversation or names nothing from it), or "" when it is."""
    if find_references(rewritten, lang):
        return "kept a reference"
    unfaithful = unfaithful_rewrite(followup, rewritten, history, lang)
    if unfaithful:
        return unfaithful
    for ref in find_references(followup, lang):
        if ref.kind == "ordinal":
            item = ordinal_name(ref, history, lang)
            if item and item.lower() not in rewritten.lower():
                return "named another item"
    if lang != "ko" or rewritten.strip() != followup.strip():
        return ""
    if leans_on_context(followup, lang):
        return "unchanged"
    known = [c for c in candidates(history, lang) if c and c in followup]
    return "" if known else "unchanged"


_KO_QUESTION_END = re.compile(r"(?:\?|까|요|니|냐|나|지|야|어|가|은|는|고|래|죠|데)\s*[?？]?\s*$")
_STOP_EN = frozenset("what which who whom whose when where why how is are was were do does did the a an of in on at "
                     "to for and or about from with by it its he she they their there that this one other".split())


def unfaithful_rewrite(followup: str, rewritten: str, history: list[Turn], lang: str) -> str:
    """Why a rewrite that names something is still not the follow-up: "not a question" (a Korean sentence that
    states instead of asks), "copied an earlier question", "dropped the question" (under half of the
    follow-up's own words are left), "not one question" (it asks two); "" when none applies."""
    if rewritten.strip() == followup.strip():
        return ""
    if rewritten.count("?") + rewritten.count("？") > max(1, followup.count("?") + followup.count("？")):
        return "not one question"
    if lang == "ko" and followup.rstrip().endswith("?") and not _KO_QUESTION_END.search(rewritten):
        return "not a question"
    asked, wrote = _flat(followup), _flat(rewritten)
    for turn in history[-MAX_CHECKED_TURNS:]:
        repeated = asked in (_flat(turn.question), _flat(turn.resolved))  # the user asked it again
        if wrote == _flat(turn.resolved) and not repeated:
            return "copied an earlier question"
    own = content_words(followup, lang)
    if own and sum(w in wrote for w in own) < len(own) / 2:
        return "dropped the question"
    return ""


def _flat(text: str) -> str:
    """Lower-cased, without spaces or punctuation: two questions compared as text."""
    return re.sub(r"\W+", "", text.lower())


def content_words(question: str, lang: str) -> list[str]:
    """The follow-up's own words, references and question words left out, Korean particles stripped."""
    from gaji.text.answers import strip_ko_ending

    text = question
    for ref in reversed(find_references(question, lang)):
        text = text[: ref.start] + " " + text[ref.end:]
    words = re.findall(r"[가-힣]+|[A-Za-z]+", drop_opener(text) if lang == "ko" else text)
    if lang == "ko":
        out = [strip_ko_ending(w) for w in words]
        return [w for w in out if len(w) >= 2 and w not in {"어디", "언제", "누구", "무엇", "얼마", "어떻게", "어떤"}]
    return [w.lower() for w in words if w.lower() not in _STOP_EN and len(w) > 2]


def resolve_left_references(llm: TrackedLLM, node: Node, followup: str, history: list[Turn],
                            lang: str) -> Resolution:
    """The follow-up with its references (or its missing Korean subject) resolved; see the module doc."""
    names = candidates(history, lang)
    refs = find_references(followup, lang)
    out = Resolution()
    question = followup
    for ref in reversed(refs):  # right to left: earlier offsets stay valid
        name, how = _resolve_one(llm, node, question, ref, history, names, lang)
        if name:
            question = substitute(question, ref, name)
            out.steps.insert(0, {"reference": ref.text, "name": name, "how": how})
    if not refs and lang == "ko" and names:
        idx = _choose(llm, node, fill(conversation_prompts.PROMPTS[lang].ask_subject), followup, history, names, lang,
                      allow_none=True)
        if idx:
            question = with_topic(followup, names[idx - 1])
            out.steps.append({"reference": "(생략된 주어)", "name": names[idx - 1], "how": "choice"})
    if out.steps and lang == "ko":
        question = drop_opener(question)
    out.question = question if out.steps else None
    return out


def _resolve_one(llm: TrackedLLM, node: Node, question: str, ref: Reference, history: list[Turn],
                 names: list[str], lang: str) -> tuple[str, str]:
    if ref.kind == "ordinal":
        item = ordinal_name(ref, history, lang)
        return (item, "ordinal") if item else ("", "")
    if len(names) == 1:
        return names[0], "only candidate"
    if not names:
        return "", ""
    idx = _choose(llm, node, fill(conversation_prompts.PROMPTS[lang].ask_reference, ref=ref.text), question, history,
                  names, lang, allow_none=False)
    return (names[idx - 1], "choice") if idx else ("", "")


def _choose(llm: TrackedLLM, node: Node, ask: str, question: str, history: list[Turn], names: list[str],
            lang: str, allow_none: bool) -> int:
    """The 1-based candidate the model picks; 0 for none, a failed call or an answer that is no candidate."""
    p = conversation_prompts.PROMPTS[lang]
    lines = [ask, ""]
    for i, t in enumerate(history[-2:], 1):
        lines += [f"{p.q}{i}: {t.resolved}", f"{p.a}{i}: {' '.join(t.answer.split())[:200]}"]
    lines += [f"{p.last_question}: {question}", "", f"{p.candidates}:"]
    if allow_none:
        lines.append(f"0. {p.none}")
    lines += [f"{i}. {n}" for i, n in enumerate(names, 1)] + [p.number]
    try:
        text = llm.chat(node, "resolve", [{"role": "user", "content": "\n".join(lines)}], max_tokens=CHOICE_TOKENS)
    except LLMError:
        return 0
    m = re.search(r"\d+", text or "")
    idx = int(m.group(0)) if m else 0
    return idx if 0 < idx <= len(names) else 0
