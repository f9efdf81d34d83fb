"""PPTX with python-pptx (MIT): slide by slide, the slide title as its section, then its text
boxes top to bottom, tables as header-keyed rows, and the speaker notes."""
from __future__ import annotations

from pathlib import Path

from .base import Block, Parsed, table_blocks

__all__ = ["read"]


def _shape_blocks(shape, slide_no: int, out: list[Block]) -> None:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    try:
        kind = shape.shape_type
    except NotImplementedError:  # a graphic frame python-pptx does not model (SmartArt, OLE): its text frames below
        kind = None
    if kind == MSO_SHAPE_TYPE.GROUP:
        for s in sorted(shape.shapes, key=lambda s: ((s.top or 0), (s.left or 0))):
            _shape_blocks(s, slide_no, out)
        return
    if getattr(shape, "has_table", False) and shape.has_table:
        grid = [[c.text for c in row.cells] for row in shape.table.rows]
        out.extend(table_blocks(grid, unit=slide_no))
        return
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        for p in shape.text_frame.paragraphs:
            text = " ".join(p.text.replace("\v", " ").split())
            if text:
                out.append(Block(text, unit=slide_no))


def read(path: Path) -> Parsed:
    from pptx import Presentation

    prs = Presentation(str(path))
    blocks: list[Block] = []
    n = 0
    for n, slide in enumerate(prs.slides, 1):
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text.strip() if title_shape is not None and title_shape.has_text_frame else ""
        if title:
            blocks.append(Block(" ".join(title.split()), "heading", 1, unit=n))
        shapes = [s for s in slide.shapes if title_shape is None or s.shape_id != title_shape.shape_id]
        for s in sorted(shapes, key=lambda s: ((s.top or 0), (s.left or 0))):
            _shape_blocks(s, n, blocks)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                blocks.append(Block(notes.text.strip(), unit=n))
    return Parsed(blocks, unit="slide", units_total=n)
