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
from typing import Any

FORM = "NFC"


def normalize_text(text: str) -> str:
    """`text` in NFC. ASCII and already-normal text come back as the same object (the common case is cheap)."""
    if text.isascii() or unicodedata.is_normalized(FORM, text):
        return text
    return unicodedata.normalize(FORM, text)


def normalize_keeping_offsets(text: str, offsets: list[int]) -> tuple[str, dict[int, int]]:
    """`text` in NFC, and where each of `offsets` (character positions in `text`) lands in it. The text is
    normalised piece by piece between the offsets, so a span that started at an offset still does."""
    norm = normalize_text(text)
    if norm is text:
        return text, {o: o for o in offsets}
    cuts = sorted({0, len(text), *(min(max(0, o), len(text)) for o in offsets)})
    pieces, where, pos = [], {}, 0
    for a, b in zip(cuts, cuts[1:]):
        where[a] = pos
        piece = normalize_text(text[a:b])
        pieces.append(piece)
        pos += len(piece)
    where[len(text)] = pos
    return "".join(pieces), {o: where[min(max(0, o), len(text))] for o in offsets}


def unpaired_surrogate(text: str) -> int | None:
    """The index of the first unpaired surrogate (U+D800..U+DFFF) in `text`, else None. JSON can carry one as
    an escape ("\\ud800"); it is not a character, cannot be written as UTF-8 and breaks every later write."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return e.start
    return None


def surrogate_field(value: Any, where: str = "") -> str | None:
    """The dotted path of the first string (key or value) in a JSON value holding an unpaired surrogate
    ("" for `value` itself), else None."""
    if isinstance(value, str):
        return where if unpaired_surrogate(value) is not None else None
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{where}.{k}" if where else str(k)
            if isinstance(k, str) and unpaired_surrogate(k) is not None:
                return where or "(a key)"
            found = surrogate_field(v, path)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = surrogate_field(v, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def squash(text: str) -> str:
    """Lower-case letters and digits only: how two texts are compared when spacing, punctuation and case must not
    matter (a name against a question, an answer against a sentence or a reply)."""
    return "".join(ch for ch in text.lower() if ch.isalnum())
