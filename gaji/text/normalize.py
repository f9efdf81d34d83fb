"""One Unicode form for every text gaji compares: NFC.

The same Korean syllable can arrive precomposed (NFC, what keyboards type: "한" U+D55C) or as
conjoining jamo (NFD, what macOS file names and some PDF extractors produce: U+1112 U+1161 U+11AB).
They look identical but share no code point, so an analyser, an embedder or an exact-match metric
sees two different words. `normalize_text` is applied at the boundaries where text enters gaji
(corpus readers, JSONL lines, uploads, analysers, embedder input), so everything inside is NFC.

NFC, not NFKC: compatibility folding (full-width digits, ligatures, circled numbers) changes what a
document says, and the analysers fold what they need themselves.
"""
from __future__ import annotations

import unicodedata

FORM = "NFC"


def normalize_text(text: str) -> str:
    """`text` in NFC. ASCII and already-normal text come back as the same object (the common case is cheap)."""
    if text.isascii() or unicodedata.is_normalized(FORM, text):
        return text
    return unicodedata.normalize(FORM, text)
