"""Spreadsheet rows in passages: each row line says its row number, and a citation names the row that holds
the answer.

The XLSX reader starts every row line with its spreadsheet row number (`row_prefix`):
"3행 · 부서: 등대사업부 · 예산: 77억 원" (a sheet in Korean) or "row 3 · Team: Lighthouse · Budget: 7.7" (other
sheets), so the passage a reader is shown says which row each line is. A chunk holds many rows (a whole sheet
at the default chunk size) and its `Location.rows` is their range; `narrow_to_answer` narrows a cited
passage's location to the one row whose line holds the answer:

    >>> p = Passage("t.xlsx#sheet1", "t.xlsx#sheet1", "1행 · 부서 · 예산\\n2행 · 부서: 모바일 · 예산: 48억 원\\n"
    ...             "3행 · 부서: 등대 · 예산: 77억 원", location=Location(file="t.xlsx", sheet="예산", rows=[1, 3]))
    >>> narrow_to_answer(p, "77억 원", "등대 예산은?").location.label()
    't.xlsx · 예산 · row 3'
"""
from __future__ import annotations

import dataclasses
import re

from gaji.types import Location, Passage  # noqa: F401  (Location: the docstring example)

__all__ = ["row_prefix", "row_lines", "answer_row", "narrow_to_answer"]

_ROW_LINE_RE = re.compile(r"^(?:(\d+)행|row (\d+)) \u00b7 ")
_HANGUL_RE = re.compile("[\uac00-\ud7a3]")


def row_prefix(row: int, sample: str) -> str:
    """The label a row line starts with: "12행 · " when `sample` (the sheet's header) is Korean, else "row 12 · "."""
    return f"{row}행 \u00b7 " if _HANGUL_RE.search(sample) else f"row {row} \u00b7 "


def row_lines(text: str) -> list[tuple[int, str]]:
    """(row number, line) of every line of `text` that starts with a row label."""
    out = []
    for line in text.splitlines():
        m = _ROW_LINE_RE.match(line)
        if m:
            out.append((int(m.group(1) or m.group(2)), line))
    return out


def _squash(s: str) -> str:
    return "".join(s.split()).casefold()


def _bigrams(s: str) -> set[str]:
    s = _squash(s)
    return {s[i:i + 2] for i in range(len(s) - 1)}


def answer_row(text: str, answer: str, question: str = "") -> int | None:
    """The row whose line holds `answer`; among several, the one sharing most character pairs with
    `question`; None when no line holds it or the best lines tie."""
    a = _squash(answer)
    if not a:
        return None
    hits = [(row, line) for row, line in row_lines(text) if a in _squash(line)]
    if len(hits) <= 1:
        return hits[0][0] if hits else None
    q = _bigrams(question)
    scored = sorted(((len(q & _bigrams(line)), row) for row, line in hits), reverse=True)
    return scored[0][1] if scored[0][0] > scored[1][0] else None


def narrow_to_answer(passage: Passage, answer: str, question: str = "") -> Passage:
    """`passage` with its location narrowed to the row holding `answer` (a new Passage), or as it is."""
    loc = passage.location
    if loc is None or not loc.rows or loc.rows[0] == loc.rows[-1]:
        return passage
    row = answer_row(passage.text, answer, question)
    if row is None or not loc.rows[0] <= row <= loc.rows[-1]:
        return passage
    return dataclasses.replace(passage, location=dataclasses.replace(loc, rows=[row, row]))

