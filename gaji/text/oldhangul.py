"""Old Hangul (옛한글) from Hanyang private-use code points to Unicode conjoining jamo.

Hancom Office (HWP files, and PDFs printed from them) stores old syllables such as ᄒᆞᆫ (in "ᄒᆞᆫ글") as single
private-use characters of the Hanyang PUA (U+E0BC..U+F8F7). Unicode writes them as a sequence of conjoining
jamo (choseong, jungseong, optional jongseong: U+1112 U+119E U+11AB). Without this mapping the private-use
character means nothing outside Hancom's fonts and is dropped as a glyph, losing the syllable.

    >>> pua_to_jamo("\\uf53a글")
    'ᄒᆞᆫ글'

The table (`data/hanyang_pua.txt`) is the KTUG Hanyang PUA table (public domain; see its header). NFC
keeps these sequences: an old syllable has no precomposed form, so only a modern initial+vowel pair at its
start may be composed (canonically equivalent, nothing is lost).
"""
from __future__ import annotations

import functools
import re
from importlib import resources

__all__ = ["pua_to_jamo", "hanyang_table", "HANYANG_PUA_RE"]

HANYANG_PUA_RE = re.compile("[\ue0bc-\uf8f7]")
_DATA = "hanyang_pua.txt"


@functools.cache
def hanyang_table() -> dict[int, str]:
    """PUA code point -> its jamo string, read once from the package data."""
    text = resources.files("gaji.text").joinpath("data", _DATA).read_text(encoding="ascii")
    table: dict[int, str] = {}
    code = None
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            code = int(line[1:], 16)
            continue
        if line == "-":  # a filler with no jamo of its own
            line = ""
        if code is None or len(line) % 4:
            raise ValueError(f"{_DATA}:{n}: expected '@XXXX' or jamo as 4-digit hex, got {line!r}")
        table[code] = "".join(chr(int(line[i:i + 4], 16)) for i in range(0, len(line), 4))
        code += 1
    return table


def pua_to_jamo(text: str) -> str:
    """`text` with every Hanyang PUA character replaced by its conjoining jamo; others are left as they are."""
    if text.isascii() or not HANYANG_PUA_RE.search(text):
        return text
    return text.translate(hanyang_table())
