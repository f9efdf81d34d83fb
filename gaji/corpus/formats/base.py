"""What a format reader returns, and how it becomes Documents.

A reader turns one file into a `Parsed`: the document's blocks in reading order (paragraphs,
headings, table rows), each tagged with its unit (PDF page, PPTX slide, XLSX sheet). `to_documents`
then cuts the blocks into Documents, one per unit and, inside a unit, one per heading section, so
every Document has a single `Location` (file + page / slide / sheet / heading path) and a title
``file title › section › subsection``. Table rows become lines that repeat their header
("부서: 모바일사업부 · 예산: 48억 원") and are recorded as `RowSpan`s that the chunker keeps whole.

A reader signals a file it cannot read with `Unreadable(reason)`; the folder reader lists it and
goes on. `Parsed.notices` carries what was read but is worth telling (a scanned page left out).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gaji.messages import Msg
from gaji.text.oldhangul import pua_to_jamo
from gaji.types import Document, Location, RowSpan

__all__ = [
    "Unreadable", "Block", "Parsed", "to_documents", "table_blocks", "row_line", "numbered_heading_level", "clean",
    "ROW_SEP", "is_layout_table",
]

ROW_SEP = " \u00b7 "  # between "header: value" pairs of one table row
_SPACE_RE = re.compile(r"[ \t\u00a0\u3000]+")
_PRIVATE_USE_RE = re.compile("[\ue000-\uf8ff]")  # font-specific glyphs left after old Hangul is mapped carry no text


class Unreadable(Exception):
    """This file cannot be read; the message says why (shown as ``path: reason``). Raised with a
    `gaji.messages.Msg`, the reason is in the message table, so a Korean reader reads it in Korean."""

    @property
    def msg(self) -> Msg | None:
        return self.args[0] if self.args and isinstance(self.args[0], Msg) else None


@dataclass
class Block:
    """One piece of a document in reading order.

    kind: "text" (a paragraph), "heading" (with `level` >= 1) or "row" (one table row, already
    rendered as a line). `unit` is the page / slide number or the sheet name the block belongs to
    (None for formats without units); `row` is a spreadsheet row number.
    """

    text: str
    kind: str = "text"
    level: int = 0
    unit: int | str | None = None
    row: int | None = None


@dataclass
class Parsed:
    """A file as a reader saw it."""

    blocks: list[Block]
    unit: str = ""  # "page" | "slide" | "sheet" | "" (what Block.unit means)
    title: str = ""  # the document's own title when it has a trustworthy one (HTML <title>)
    notices: list[str] = field(default_factory=list)
    units_total: int = 0  # pages / slides / sheets in the file (for parse-speed reports)


def clean(text: str) -> str:
    """Collapse runs of spaces inside lines, drop blank lines and private-use glyphs. Old Hangul in Hanyang
    private-use code points (HWP) becomes Unicode conjoining jamo first, so it is kept (gaji.text.oldhangul)."""
    text = _PRIVATE_USE_RE.sub("", pua_to_jamo(str(text))).replace("\r\n", "\n").replace("\r", "\n")
    lines = [_SPACE_RE.sub(" ", ln).strip() for ln in text.split("\n")]
    return "\n".join(ln for ln in lines if ln)


def row_line(header: Sequence[str] | None, cells: Sequence[str]) -> str:
    """One table row as a line that stands alone: "부서: 모바일사업부 · 예산: 48억 원".

    Empty cells are left out; a cell under an empty header keeps just its value. Newlines inside a
    cell become spaces, so a row is always one line.
    """
    parts = []
    for i, value in enumerate(cells):
        v = " ".join(str(value).split())
        if not v:
            continue
        h = " ".join(str(header[i]).split()) if header is not None and i < len(header) and header[i] is not None else ""
        parts.append(f"{h}: {v}" if h and h != v else v)
    return ROW_SEP.join(parts)


def is_layout_table(rows: Sequence[Sequence[str]]) -> bool:
    """Whether a table only lays out a page (a whole notice drawn in a wide grid of merged cells) rather
    than holding data: six or more grid columns, yet at least 80 % of its rows fill at most two cells."""
    if not rows or max(len(r) for r in rows) < 6:
        return False
    sparse = sum(1 for r in rows if sum(1 for c in r if c) <= 2)
    return sparse >= 0.8 * len(rows)


def table_blocks(grid: Sequence[Sequence[str]], unit: int | str | None = None) -> list[Block]:
    """A table (rows of cell texts) as row blocks whose cells carry the first row's header.

    A table of one row, or whose first row is empty, has no header: its rows are just their values.
    A layout table (`is_layout_table`) is read as text instead: one text block per row, its cells joined
    by spaces, so its lines are paragraphs (and numbered headings) like the rest of the document.
    """
    rows = [[" ".join(str(c or "").split()) for c in r] for r in grid]
    rows = [r for r in rows if any(r)]
    if not rows:
        return []
    if is_layout_table(rows):
        return [Block(" ".join(c for c in r if c), "text", unit=unit) for r in rows]
    header = rows[0] if len(rows) > 1 else None
    out = []
    if header is not None:
        out.append(Block(ROW_SEP.join(c for c in header if c), "row", unit=unit))
    for r in rows[1:] if header is not None else rows:
        line = row_line(header, r)
        if line:
            out.append(Block(line, "row", unit=unit))
    return out


# Numbered headings of Korean (and English) reports, for formats whose files rarely say which
# paragraph is a heading (HWP): "1. 개요", "2.1 예산", "가. 추진 배경", "Ⅱ. 현황", "제3장 결론", "(1) 대상".
# The level is the marker's rank in the order Korean official documents nest them (제1장 > Ⅰ. > 제1절 >
# 1. > 1.1 > 1.1.1 > 가. > 1) > (1)); only the order matters (a heading closes those of equal or deeper rank).
_HEADING_PATTERNS: tuple[tuple[re.Pattern, int], ...] = (
    (re.compile(r"^제\s*\d+\s*[편부]\b"), 1),
    (re.compile(r"^제\s*\d+\s*장\b"), 2),
    (re.compile(r"^[IVX]{1,4}\.\s|^[\u2160-\u216b]\.?\s"), 3),
    (re.compile(r"^제\s*\d+\s*절\b"), 4),
    (re.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,2}\.?\s"), 7),
    (re.compile(r"^\d{1,2}\.\d{1,2}\.?\s"), 6),
    (re.compile(r"^\d{1,2}\.\s"), 5),
    (re.compile(r"^[가-하]\.\s"), 8),
    (re.compile(r"^\d{1,2}\)\s"), 9),
    (re.compile(r"^\(\d{1,2}\)\s"), 10),
)
_SENTENCE_END_RE = re.compile(r"[.!?。][\"'”’)]*$")
_MARKER_RE = re.compile(r"^(?:제\s*\d+\s*[편장부절]|[IVX]{1,4}\.|[\u2160-\u216b]\.?|[\d.]+|[가-하]\.|\(\d{1,2}\)|\d{1,2}\))\s*")
_TRAILING_NOTE_RE = re.compile(r"\s*(?:\([^()]*\)|※.*)$")  # "(하기 조건 모두 충족해야 함)", "※ 세부내용 참조"
_PAREN_RE = re.compile(r"\([^()]*\)")
# A table-of-contents entry: the title, then its page ("Ⅳ. 행정사항 7", "9. 계약조건31", "개요 ····· 3").
_TOC_RE = re.compile(r"(?:[^\d\s.,]\s*|\s)\d{1,3}$|[.·…․‥]{3,}")
# Korean items written as clauses (개조식) end like a sentence: "…제출함", "…있음", "…것", "…한다"; headings do not.
_CLAUSE_END_RE = re.compile(r"(?:(?<!포)함|[하되있없않같받]음|됨|것|[한된있없이]다|경우|행위)$")
MAX_HEADING_WORDS = 7  # words after the number, parentheses left out; more is a list item, not a title


def numbered_heading_level(text: str, max_len: int = 60) -> int:
    """Heading level (the marker's rank, 1 = outermost) of a short numbered line that is not a sentence, else 0.

    Refused, though numbered: a "label: value" line or a form field ("마. 소요예산: 270,000,000원",
    "3. 발주자명 :"), a table-of-contents entry ending in its page number, a clause ending like a
    sentence ("1) 계약상대자는 … 제안하여야 함", "1. … 동의하는 경우"), and a line of more than
    MAX_HEADING_WORDS words.
    """
    t = text.strip()
    if not t or "\n" in t or len(t) > max_len or _SENTENCE_END_RE.search(t):
        return 0
    level = 0
    for pat, lv in _HEADING_PATTERNS:
        if pat.search(t):
            level = lv
            break
    if not level:
        return 0
    if ":" in t or "\uff1a" in t or _TOC_RE.search(t):
        return 0
    title = _MARKER_RE.sub("", t, count=1)
    core = _TRAILING_NOTE_RE.sub("", title).strip()
    while core != (shorter := _TRAILING_NOTE_RE.sub("", core).strip()):
        core = shorter
    if not core or _SENTENCE_END_RE.search(core) or _CLAUSE_END_RE.search(core):
        return 0
    if len(_PAREN_RE.sub(" ", title).split()) > MAX_HEADING_WORDS:
        return 0
    return level


def _unit_location(parsed: Parsed, unit: int | str | None, base: Location) -> Location:
    loc = Location(file=base.file, sha256=base.sha256)
    if unit is None or not parsed.unit:
        return loc
    if parsed.unit == "page":
        loc.page = int(unit)
    elif parsed.unit == "slide":
        loc.slide = int(unit)
    elif parsed.unit == "sheet":
        loc.sheet = str(unit)
    return loc


def to_documents(parsed: Parsed, doc_id: str, title: str, base: Location, source: str) -> list[Document]:
    """Documents of one file: one per unit (page, slide, sheet) and heading section.

    Ids are ``doc_id`` when the file makes one Document, else ``doc_id#page3``, ``#slide2``,
    ``#sheet1`` (1-based sheet order) and ``#sec2`` (sections in reading order, with the unit's
    suffix first when there are units: ``deck.pptx#slide2``).
    """
    groups: list[tuple[int | str | None, list[str], list[Block]]] = []
    path: list[tuple[int, str]] = []  # (level, heading) stack
    sheet_no: dict[str, int] = {}
    cur_unit: object = object()
    for b in parsed.blocks:
        text = b.text.strip()
        if not text:
            continue
        if b.unit != cur_unit:
            cur_unit = b.unit
            path = []
            groups.append((b.unit, [], []))
            if parsed.unit == "sheet" and b.unit is not None:
                sheet_no.setdefault(str(b.unit), len(sheet_no) + 1)
        if b.kind == "heading":
            level = max(1, b.level)
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, " ".join(clean(text).split())))
            groups.append((b.unit, [h for _, h in path], []))
            continue
        groups[-1][2].append(b)
    # A heading with no body of its own lives on in the path of the subheading that follows it; one that
    # is followed by a sibling or by nothing (a short numbered list taken for headings) keeps its text.
    kept = []
    for i, (unit, section, blocks) in enumerate(groups):
        if not blocks and section:
            nxt = groups[i + 1] if i + 1 < len(groups) else None
            if nxt is not None and nxt[0] == unit and len(nxt[1]) > len(section) and nxt[1][: len(section)] == section:
                continue
            blocks = [Block(section[-1], unit=unit)]
            section = section[:-1]
        if not blocks:
            continue
        if kept and kept[-1][0] == unit and kept[-1][1] == section:
            kept[-1][2].extend(blocks)  # back in the same section after such a list
        else:
            kept.append((unit, section, list(blocks)))
    groups = kept
    docs: list[Document] = []
    per_unit: dict[object, int] = {}
    for unit, section, blocks in groups:
        per_unit[unit] = per_unit.get(unit, 0) + 1
    seen_unit: dict[object, int] = {}
    for unit, section, blocks in groups:
        seen_unit[unit] = seen_unit.get(unit, 0) + 1
        lines: list[str] = []
        rows: list[RowSpan] = []
        pos = 0
        for b in blocks:
            text = clean(b.text) if b.kind != "row" else " ".join(clean(b.text).split())
            if not text:
                continue
            if lines:
                pos += 1  # the "\n" joining it to the previous line
            if b.kind == "row":
                rows.append(RowSpan(pos, pos + len(text), b.row))
            lines.append(text)
            pos += len(text)
        body = "\n".join(lines)
        if not body.strip():
            continue
        loc = _unit_location(parsed, unit, base)
        loc.section = list(section)
        suffix = ""
        if parsed.unit and unit is not None:
            n = sheet_no[str(unit)] if parsed.unit == "sheet" else unit
            suffix = f"#{parsed.unit}{n}"
        if per_unit[unit] > 1 or (not parsed.unit and len(groups) > 1):
            suffix += f"#sec{seen_unit[unit]}"
        title_parts = [title] + ([str(unit)] if parsed.unit == "sheet" and unit is not None else []) + list(section)
        docs.append(Document(
            id=doc_id + suffix,
            text=body,
            title=" \u203a ".join(p for p in title_parts if p),
            metadata={},
            source=source,
            location=loc,
            table_rows=rows,
        ))
    if len(docs) == 1 and not parsed.unit:
        docs[0].id = doc_id
    return docs
