"""What the adaptive method knows about a question before answering it: a few numbers computed from the text
alone (no LLM call, so routing costs no tokens), in English and Korean.

Every feature means the same in both languages: a Korean question and its English translation get (nearly) the
same numbers, so the router cannot learn "Korean" from them. (The only Korean questions with recorded routes are
KoBLEX's long legal scenarios, where the chain and the tree did well; a language feature, or a Korean cue that
fires on ordinary particles, taught the router to send every Korean question down the chain.)

    words       log(1 + words), a Korean word (eojeol, which carries its particles) counted as 1.8 English words,
                clipped to 5-60 words: long questions hide more hops (and KoBLEX scenarios)
    names       names the question holds (gaji/text/skeleton.py), at most 6
    compare     a comparison cue: "or", "first", "both", "same", "older", … / "중", "먼저", "둘 다", "같은", "더"
    yes_no      a yes/no question: "Is/Are/Did/Were …" / "…인가요" with "둘 다"/"같은", "…습니까"
    when, who, where, number, which   what is asked for (언제·몇 년, 누구, 어디, 몇·얼마, 어느·어떤);
                "몇 년" asks when (like "what year"), not how many
    nesting     bridge markers, at most 4: "of the", "'s", "whose", a relative "that/which/who/where" / "의", a
                relative clause ending ("…한 X", "…된 X", "…던 X", "…하는 X"), not the topic particles 은/는
    commas      commas, at most 3
    digits      1 when the question holds a number
    p_compare   the decomposer's shape router's P(compare) on the question's skeleton (e5 embedding; 0.5 when
                the embedder cannot be loaded), counted only when the question names two things or has a
                comparison cue (else 0): a comparison needs two things to compare, and the shape router gives
                short Korean one-hop questions a high P(compare) ("훈민정음은 몇 년에 반포되었나요?" 0.68)
"""
from __future__ import annotations

import math
import re

from gaji.text.lang import detect_lang
from gaji.text.skeleton import names

FEATURES: tuple[str, ...] = ("words", "names", "compare", "yes_no", "when", "who", "where", "number", "which",
                             "nesting", "commas", "digits", "p_compare")

KO_WORD = 1.8  # English words per Korean eojeol, on translated question pairs (tests/methods/test_auto.py)
WORDS_RANGE = (5, 60)  # outside the recorded questions' lengths a linear router would extrapolate

_EN_COMPARE = re.compile(r"\b(?:or|first|earlier|later|older|younger|both|same|more|less|larger|smaller|longer|"
                         r"shorter|higher|lower|bigger|than|between|either)\b", re.I)
_KO_COMPARE = re.compile(r"중(?:\s|에서)|먼저|둘 다|모두|같은|더 |누가|어느 쪽|보다")
_EN_YES_NO = re.compile(r"^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I)
_KO_YES_NO = re.compile(r"(?:둘 다|모두|같은).*(?:인가요|나요|습니까)\??$|습니까\??$")
# "the director of film X", "the maternal grandfather of X": a thing named by its role towards another
_EN_ROLE_OF = re.compile(r"\bthe\s+[a-z]+(?:\s+[a-z]+)?\s+of\b", re.I)
_EN_NESTING = re.compile(r"\bof the\b|'s\b|\bwhose\b|(?<!^)\b(?:that|which|who|where|when)\b", re.I)
# "의" and the past/retrospective/present relative endings; the bare 은/는/인 are mostly topic particles and
# copulas ("훈민정음은 몇 년에…"), which have no English counterpart among the bridge markers
_KO_NESTING = re.compile(r"[가-힣]의 |[가-힣](?:한|된|던|하는|되는|있는|없는) [가-힣]")
_WH = {
    "when": (re.compile(r"\bwhen\b|\bwhat (?:year|date)\b", re.I), re.compile(r"언제|몇 ?년|연도|년도|날짜")),
    "who": (re.compile(r"\bwho(?:m|se)?\b", re.I), re.compile(r"누구|누가|인물")),
    "where": (re.compile(r"\bwhere\b|\bwhat (?:city|country|state|county)\b", re.I), re.compile(r"어디|어느 (?:나라|도시|지역)")),
    "number": (re.compile(r"\bhow (?:many|much|long|old|far|high|tall|big|large|deep|wide)\b", re.I),
               re.compile(r"몇(?! ?(?:년|월|일|시|세기))|얼마")),
    "which": (re.compile(r"\bwhich\b", re.I), re.compile(r"어느|어떤|무엇|뭐")),
}


def p_compare_of(question: str) -> float:
    """The shape router's P(compare), 0.5 (no opinion) when it or its embedder is unavailable."""
    try:
        from gaji.methods.toq.router import shared_router

        router = shared_router("")
        return float(router.route(question).p_compare)
    except Exception:  # noqa: BLE001 - routing must never fail a question: no opinion instead
        return 0.5


def question_features(question: str, p_compare: float | None = None) -> dict[str, float]:
    """The features of one question, by name (FEATURES order); `p_compare` given = not recomputed."""
    q = " ".join(question.split())
    ko = detect_lang(q) == "ko"
    words = len(q.split()) * (KO_WORD if ko else 1.0)
    f = {
        "words": math.log1p(min(max(words, WORDS_RANGE[0]), WORDS_RANGE[1])),
        "names": float(min(6, len(names(q, "ko" if ko else "en")))),
        "compare": float(bool((_KO_COMPARE if ko else _EN_COMPARE).search(q))),
        "yes_no": float(bool((_KO_YES_NO if ko else _EN_YES_NO).search(q))),
        "nesting": float(min(4, len(_bridge_marks(q, ko)))),
        "commas": float(min(3, q.count(","))),
        "digits": float(bool(re.search(r"\d", q))),
    }
    for name, (en, kr) in _WH.items():
        f[name] = float(bool((kr if ko else en).search(q)))
    two_things = f["names"] >= 2 or f["compare"] > 0
    f["p_compare"] = 0.0 if not two_things else (p_compare_of(q) if p_compare is None else float(p_compare))
    return {name: f[name] for name in FEATURES}


def _bridge_marks(q: str, ko: bool) -> list[str]:
    """The bridge markers of a whitespace-normalised question (the `nesting` feature counts them)."""
    return (_KO_NESTING if ko else _EN_NESTING).findall(q)


def bridge_marked(question: str) -> bool:
    """Does the question carry a bridge marker (the `nesting` feature: "of the", "'s", "whose", a relative clause;
    or, in English, a role of a named thing: "the director of film X", "the mother of X")? auto asks the chain
    prompt for an English split only then, so that a one-hop question keeps its one call. (The role marker is not
    in the `nesting` feature, whose weights the text router learned without it.)"""
    q = " ".join(question.split())
    ko = detect_lang(q) == "ko"
    return bool(_bridge_marks(q, ko)) or (not ko and bool(_EN_ROLE_OF.search(q)))


def shape_of(question: str, feats: dict[str, float] | None = None) -> str:
    """How the question is built, for where an unsafe answer escalates: "compare" (two named things and a
    comparison cue), "intersection" (two constraints on one asked-for thing, read by the tree's intersection
    detector), or "other" (a bridge or a single hop)."""
    from gaji.methods.toq.intersect import detect

    f = feats if feats is not None else question_features(question, p_compare=0.5)
    if f.get("compare") and f.get("names", 0.0) >= 2:
        return "compare"
    lang = "ko" if detect_lang(question) == "ko" else "en"
    return "intersection" if detect(question, lang) else "other"
