"""Answer normalisation for comparing short answers, English and Korean: the SQuAD/HotpotQA normalisation for
English and gaji's documented Korean one (Unicode punctuation dropped, trailing particles stripped, spaces
removed). The answer metrics (gaji/eval/metrics/answer.py) score with these; methods and the conversation use
them to compare answers and questions as text. The rules and their reasons are in that module's docstring.
"""
from __future__ import annotations

import re
import string
import unicodedata

from gaji.text.lang import has_hangul

_EN_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")

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


def normalize_en(text: str) -> str:
    """SQuAD normalisation: lower, drop punctuation, drop articles, collapse whitespace."""
    t = (text or "").lower().translate(_EN_PUNCT)
    t = _ARTICLES.sub(" ", t)
    return " ".join(t.split())


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
