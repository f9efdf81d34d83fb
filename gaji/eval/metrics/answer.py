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

import re
import string
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

_EN_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_YES_NO = ("yes", "no", "noanswer")

# Particles (조사) and copula/ending forms stripped at the end of a Korean token.
KO_ENDINGS: tuple[str, ...] = (
    # case particles
    "이", "가", "을", "를", "의", "에", "에서", "에게", "께", "께서", "한테", "으로", "로",
    "으로서", "로서", "으로써", "로써", "와", "과", "이랑", "랑",
    # topic / delimiters
    "은", "는", "도", "만", "까지", "부터", "보다", "처럼", "마다", "조차", "밖에", "이나", "나",
    "에는", "에서는", "으로는", "로는", "에도", "에서도", "와는", "과는", "이라는", "라는",
    # copula and polite endings on answer spans
    "이다", "입니다", "이었다", "였다", "이며", "이고", "이라고", "라고", "이요", "요", "이에요", "예요",
)
_ENDINGS_LONGEST_FIRST = tuple(sorted(set(KO_ENDINGS), key=len, reverse=True))
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def has_hangul(text: str) -> bool:
    return bool(_HANGUL.search(text or ""))


# -- English ------------------------------------------------------------------
def normalize_en(text: str) -> str:
    """SQuAD normalisation: lower, drop punctuation, drop articles, collapse whitespace."""
    t = (text or "").lower().translate(_EN_PUNCT)
    t = _ARTICLES.sub(" ", t)
    return " ".join(t.split())


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
def strip_ko_ending(token: str, max_strips: int = 2) -> str:
    """Remove up to `max_strips` trailing particles/endings, longest match first, never all of it."""
    for _ in range(max_strips):
        for end in _ENDINGS_LONGEST_FIRST:
            if len(token) > len(end) and token.endswith(end):
                token = token[: -len(end)]
                break
        else:
            break
    return token


def _drop_punct(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PS")


def normalize_ko(text: str, keep_spaces: bool = False) -> str:
    """Korean normalisation (see module docstring). Spaces are removed unless `keep_spaces`."""
    t = _drop_punct(unicodedata.normalize("NFKC", text or "").lower())
    tokens = [strip_ko_ending(tok) if has_hangul(tok) else tok for tok in t.split()]
    return (" " if keep_spaces else "").join(tokens)


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
