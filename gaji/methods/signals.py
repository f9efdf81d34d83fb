"""What a cheap answer tells about itself: the signals `auto` reads after one retrieval, before deciding whether
the answer stands or the question escalates.

All come from the attempt already made (no further LLM call):

    lp_mean, lp_min,   the answer tokens' log-probabilities (mean, lowest, the first content token's) and the
    lp_first, margin   smallest gap to the best alternative token (gaji/llm/confidence.py); 0 with `no_logprobs`
    no_logprobs        1 when the backend gave no log-probabilities (the model then weighs the other signals)
    unknown            the answer says the documents do not tell
    wrong_shape        after the re-ask, the answer still repeats the question or gives a value for "which one"
    reasked            the first answer had the wrong shape and was asked again
    grounded           the share of the answer's character bigrams found in one retrieved passage (best passage)
    names_found        the share of the question's names found in the retrieved passages
    score_gap          retrieval: (top score - second score) / top score
    kind_mismatch      the question asks when / how many and the answer holds no digit, or asks who / where and
                       the answer is only a number
    answer_words       log(1 + the answer's words): long answers are rarely right spans
    compare,           the question's shape (gaji.methods.auto.features.shape_of): two things compared, or two
    intersection       constraints on one thing (both 0 for anything else, and on a tree's sub-question)
    ko                 the question is Korean

    >>> p = Passage(id="c1", doc_id="d1", text="The Battle of Guam (1944) ...")
    >>> s = answer_signals("Which battle occurred first, the Battle of Manila or the Battle of Guam?",
    ...                    "Battle of Guam", [], [p], "en")
    >>> s["grounded"], s["no_logprobs"], s["kind_mismatch"]
    (1.0, 1.0, 0.0)
"""
from __future__ import annotations

import math
import re

from gaji.methods.reask import wrong_shape
from gaji.methods.span import is_unknown
from gaji.text.normalize import squash
from gaji.text.skeleton import names
from gaji.types import LLMCall, Node, Passage

SIGNALS: tuple[str, ...] = ("lp_mean", "lp_min", "lp_first", "margin", "no_logprobs", "unknown", "wrong_shape",
                            "reasked", "grounded", "names_found", "score_gap", "kind_mismatch", "answer_words",
                            "compare", "intersection", "ko")

_DIGIT = re.compile(r"\d")
_ONLY_NUMBER = re.compile(r"^[\d\s.,:/~\-년월일세기%]+$")
_WHEN_EN = re.compile(r"\bwhen\b|\bwhat (?:year|date)\b|\bhow (?:many|much|long|old)\b", re.I)
_WHEN_KO = re.compile(r"언제|몇|연도|년도|얼마")
_WHO_EN = re.compile(r"^\s*(?:who|where)\b|\bwhich (?:person|city|country)\b", re.I)
_WHO_KO = re.compile(r"누구|누가|어디|인물")


def bigrams(text: str) -> set[str]:
    s = squash(text)
    return {s[i:i + 2] for i in range(len(s) - 1)} or ({s} if s else set())


def grounded(answer: str, passages: list[Passage]) -> float:
    """The largest share of the answer's character bigrams that one passage holds (1.0: the answer is written
    there, in any spacing; Korean particles on the answer cost a bigram or two)."""
    a = bigrams(answer)
    if not a:
        return 0.0
    best = 0.0
    for p in passages:
        text = squash(f"{p.title} {p.text}")
        best = max(best, sum(1 for g in a if g in text) / len(a))
    return round(best, 4)


def names_found(question: str, passages: list[Passage], lang: str) -> float:
    """The share of the question's names that some retrieved passage holds (1.0 when it names none)."""
    found = [squash(n) for n in names(question, lang)]
    found = [n for n in found if n]
    if not found:
        return 1.0
    texts = [squash(f"{p.title} {p.text}") for p in passages]
    return round(sum(1 for n in found if any(n in t for t in texts)) / len(found), 4)


def score_gap(passages: list[Passage]) -> float:
    scores = sorted((p.score for p in passages), reverse=True)
    if len(scores) < 2 or scores[0] <= 0:
        return 0.0
    return round((scores[0] - scores[1]) / scores[0], 4)


def kind_mismatch(question: str, answer: str, lang: str) -> float:
    a = answer.strip()
    if not a:
        return 0.0
    when = (_WHEN_KO if lang == "ko" else _WHEN_EN).search(question)
    if when and not _DIGIT.search(a) and not re.search(r"[일이삼사오육칠팔구십백천만]", a):
        return 1.0
    who = (_WHO_KO if lang == "ko" else _WHO_EN).search(question)
    if who and _ONLY_NUMBER.match(a):
        return 1.0
    return 0.0


def answer_confidence(calls: list[LLMCall]) -> dict[str, float]:
    """The confidence summary of the call that gave the answer: the re-ask's when there was one, else the answer's."""
    for c in reversed(calls):
        if c.ok and c.purpose in ("reask", "answer") and c.confidence:
            return c.confidence
    return {}


def answer_signals(question: str, answer: str, calls: list[LLMCall], passages: list[Passage], lang: str,
                   reasked: bool = False, shape: str = "other") -> dict[str, float]:
    """The signals (SIGNALS order) of one answer to `question` from `passages`; `calls` are the node's LLM calls;
    `shape`: the question's shape (gaji.methods.auto.features.shape_of), "other" where none was read."""
    conf = answer_confidence(calls)
    words = len(answer.split())
    s: dict[str, float] = {
        "lp_mean": float(conf.get("mean", 0.0)),
        "lp_min": float(conf.get("min", 0.0)),
        "lp_first": float(conf.get("first", 0.0)),
        "margin": float(conf.get("margin", 0.0)),
        "no_logprobs": 0.0 if conf else 1.0,
        "unknown": float(is_unknown(answer)),
        "wrong_shape": float(bool(answer) and bool(wrong_shape(answer, question, lang))),
        "reasked": float(reasked),
        "grounded": grounded(answer, passages),
        "names_found": names_found(question, passages, lang),
        "score_gap": score_gap(passages),
        "kind_mismatch": kind_mismatch(question, answer, lang),
        "answer_words": round(math.log1p(words), 4),
        "compare": float(shape == "compare"),
        "intersection": float(shape == "intersection"),
        "ko": float(lang == "ko"),
    }
    return {k: s[k] for k in SIGNALS}


def node_signals(node: Node, question: str, answer: str, passages: list[Passage], lang: str,
                 shape: str = "other") -> dict[str, float]:
    """`answer_signals` for a node a reader answered (its calls, and whether it re-asked)."""
    return answer_signals(question, answer, node.calls, passages, lang, reasked="reask" in node.data, shape=shape)

