"""DOCX with python-docx (MIT): paragraphs, headings (the section path) and tables, in body order.

A heading is a paragraph whose style is a heading style ("Heading 2", "제목 2") or that carries an
outline level; the first paragraph in the "Title" style is the document's title.
"""
from __future__ import annotations

import re
from pathlib import Path

from .base import Block, Parsed, table_blocks

__all__ = ["read"]

_HEADING_STYLE_RE = re.compile(r"^(?:heading|제목)\s*(\d)$", re.I)


def _heading_level(par) -> int:
    style = par.style
    while style is not None:
        m = _HEADING_STYLE_RE.match((style.name or "").strip())
        if m:
            return int(m.group(1))
        style = style.base_style
    ppr = par._p.pPr
    if ppr is not None:
        lvl = ppr.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}outlineLvl")
        if lvl is not None:
            val = lvl.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val")
            if val is not None and val.isdigit() and int(val) < 9:
                return int(val) + 1
    return 0


def _table_grid(table) -> list[list[str]]:
    grid = []
    for row in table.rows:
        cells, prev = [], None
        for cell in row.cells:
            if prev is not None and cell._tc is prev:
                continue  # a horizontally merged cell is listed once per grid column
            prev = cell._tc
            cells.append(cell.text)
        grid.append(cells)
    return grid


def read(path: Path) -> Parsed:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    d = docx.Document(str(path))
    blocks: list[Block] = []
    title = ""
    for item in d.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            if not title and not blocks and item.style is not None and item.style.name in ("Title", "제목"):
                title = " ".join(text.split())
                continue
            level = _heading_level(item)
            blocks.append(Block(text, "heading" if level else "text", level))
        elif isinstance(item, Table):
            blocks.extend(table_blocks(_table_grid(item)))
    return Parsed(blocks, title=title)
