"""Language of a text, by script: Hangul share among letters. Enough to route prompts and analysers."""
from __future__ import annotations


import re

# Hangul: syllables, conjoining jamo, compatibility jamo. The one definition: analysers, answer normalisation and
# metrics use these.
HANGUL = "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f"
_HANGUL_RE = re.compile(f"[{HANGUL}]")


def is_hangul(ch: str) -> bool:
    o = ord(ch)
    return 0xAC00 <= o <= 0xD7A3 or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F


def has_hangul(text: str) -> bool:
    """Whether `text` holds any Hangul character."""
    return bool(_HANGUL_RE.search(text or ""))


def hangul_ratio(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if is_hangul(c)) / len(letters)


def detect_lang(text: str, threshold: float = 0.2) -> str:
    """'ko' when at least `threshold` of the letters are Hangul, else 'en'.

    Korean text routinely mixes in Latin names (BMW i5, KBO), so a low threshold is right.
    """
    return "ko" if hangul_ratio(text) >= threshold else "en"


def resolve_lang(lang: str | None, text: str) -> str:
    """`lang` when it names a supported language ('ko' or 'en'); otherwise (None, '', 'auto', anything else) the
    language `text` is written in."""
    return lang if lang in ("ko", "en") else detect_lang(text)
