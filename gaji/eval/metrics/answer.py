"""Answer metrics: exact match (EM) and F1, each the maximum over all gold answers.

English follows the official SQuAD / HotpotQA evaluation: lower-case, drop ASCII punctuation,
drop the articles a/an/the, collapse whitespace; F1 over whitespace tokens, and (HotpotQA) when
either the prediction or the gold normalises to "yes", "no" or "noanswer" the two must be equal
or F1 is 0 (a yes/no answer shares no partial credit with anything else).

Korean uses its own, documented normalisation (`normalize_ko`):

1. Unicode NFKC and lower-case (Latin names inside Korean answers: "BMW i5");
2. every Unicode punctuation or symbol character (categories P*, S*) is deleted, as SQuAD deletes
   ASCII punctuation (so 「국가보안법」으로 becomes 국가보안법으로, one token with its particle);
3. each whitespace token loses trailing particles / copula endings (`KO_ENDINGS`: 은/는/이/가/
   을/를/의/에/에서/으로/로/와/과/도/만/이다/입니다 …), longest first, at most two in a row
   (고양이를 → 고양이 → 고양), never the whole token;
4. whitespace is removed entirely before comparing: Korean spacing is inconsistent
   ("1989년 2월" vs "1989년2월"), as in the official KorQuAD evaluation.

Stripping is applied to gold and prediction alike, so "1989년" and "1989년에" both become
"1989년". The price is rare collisions between words that differ only by a particle-like final
syllable (사과 / 사 both become 사); for answer spans this is much rarer than the particle
mismatches it fixes.

Korean F1 is computed over characters (syllables) of the normalised, space-free strings, not over
morphemes. Reasons: it is what the official KorQuAD script does, so numbers are comparable; it
gives partial credit inside agglutinated words (대한민국의 vs 대한민국) without depending on a
morphological analyser's errors on short spans; and it is insensitive to spacing.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

# the normalisers live with the other text tools; re-exported here, where the metrics are defined with them
from gaji.text.answers import KO_ENDINGS, normalize_en, normalize_ko, strip_ko_ending  # noqa: F401
from gaji.text.lang import has_hangul

_YES_NO = ("yes", "no", "noanswer")


# -- English ------------------------------------------------------------------
def _f1_tokens(pred: list[str], gold: list[str]) -> float:
    common = Counter(pred) & Counter(gold)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(gold)
    return 2 * precision * recall / (precision + recall)


def em_en(prediction: str, gold: str) -> float:
    return float(normalize_en(prediction) == normalize_en(gold))


def f1_en(prediction: str, gold: str) -> float:
    """HotpotQA F1: token overlap; yes/no/noanswer must match exactly."""
    p, g = normalize_en(prediction), normalize_en(gold)
    if (p in _YES_NO or g in _YES_NO) and p != g:
        return 0.0
    return _f1_tokens(p.split(), g.split())


# -- Korean -------------------------------------------------------------------
def em_ko(prediction: str, gold: str) -> float:
    return float(normalize_ko(prediction) == normalize_ko(gold))


def f1_ko(prediction: str, gold: str) -> float:
    """Character-level F1 on the normalised, space-free strings (KorQuAD style)."""
    return _f1_tokens(list(normalize_ko(prediction)), list(normalize_ko(gold)))


# -- max over golds ----------------------------------------------------------
def answer_lang(prediction: str, golds: Iterable[str], lang: str = "") -> str:
    """'ko' when the item is Korean or any gold / the prediction contains Hangul, else 'en'."""
    if lang == "ko" or has_hangul(prediction) or any(has_hangul(g) for g in golds):
        return "ko"
    return "en"


@dataclass
class AnswerScore:
    em: float
    f1: float
    lang: str
    best_gold: str  # the gold answer that gave the best F1

    def to_dict(self) -> dict:
        return {"em": self.em, "f1": self.f1}


def answer_scores(prediction: str, golds: Iterable[str], lang: str = "") -> AnswerScore | None:
    """EM and F1 against every gold answer (max of each); None when there is no gold answer."""
    golds = [g for g in golds if g is not None and str(g).strip()]
    if not golds:
        return None
    prediction = prediction or ""
    which = answer_lang(prediction, golds, lang)
    em_fn, f1_fn = (em_ko, f1_ko) if which == "ko" else (em_en, f1_en)
    em = max(em_fn(prediction, g) for g in golds)
    f1s = [(f1_fn(prediction, g), g) for g in golds]
    best_f1, best_gold = max(f1s, key=lambda x: x[0])
    return AnswerScore(em=em, f1=best_f1, lang=which, best_gold=best_gold)
