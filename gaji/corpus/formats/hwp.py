"""HWP 5 (binary, OLE2) and HWPX (OWPML zip) with syhwp (MIT, pure Python).

Paragraphs and tables in reading order; tables become header-keyed rows. Distribution ("배포용")
documents are decrypted (their key travels in the file); a password-protected document is refused.
HWP files rarely mark headings in a way a reader can see, so numbered heading lines of Korean
reports ("1. 개요", "가. 추진 배경", "제2장 …") start the sections (`numbered_heading_level`).
덧말 (ruby) is read as text, "본말(덧말)", in HWPX (hwpx_objects) and HWP 5 (hwp5_objects), and so is HWPX
글맵시 (text art). Old Hangul in Hanyang private-use code points becomes conjoining jamo where the blocks are
cleaned (base.clean).
"""
from __future__ import annotations

from pathlib import Path

from gaji.messages import Msg

from .base import Block, Parsed, Unreadable, numbered_heading_level, table_blocks
from .hwp5_objects import read_hwp5
from .hwpx_objects import has_object_text, with_object_text

__all__ = ["read"]


def read(path: Path) -> Parsed:
    import syhwp

    try:
        doc = _open(syhwp, path)
    except syhwp.EncryptedDocumentError:
        raise Unreadable(Msg("read.hwp_password")) from None
    except syhwp.SyhwpError as e:
        raise Unreadable(Msg("read.bad_hwp", {"detail": str(e)})) from None
    blocks: list[Block] = []
    for b in doc.blocks:
        if isinstance(b, syhwp.Table):  # a layout table's lines come back as text: they may be headings too
            blocks.extend(_paragraph(t.text) if t.kind == "text" else t for t in table_blocks(b.grid()))
        elif isinstance(b, syhwp.Paragraph):
            blocks.append(_paragraph(b.text))
        elif isinstance(b, syhwp.Equation) and b.script:
            blocks.append(Block(b.text))
        # pictures carry no text
    return Parsed(blocks)


def _paragraph(text: str) -> Block:
    """A paragraph, made a heading when it is a numbered heading line."""
    text = text.strip()
    level = numbered_heading_level(text)
    return Block(text, "heading" if level else "text", level)


def _open(syhwp, path: Path):
    """syhwp's Document of the file, 덧말 read as text: an HWPX file with 덧말 or 글맵시 is read with them made
    text runs; an HWP 5 file with its 덧말 control characters made text (hwp5_objects)."""
    kind = syhwp.detect_format(str(path))
    if kind == "hwp5":
        return read_hwp5(path)
    if kind == "hwpx" and has_object_text(path):
        from syhwp._hwpx import read_document_hwpx  # syhwp.open takes a path; this reader takes the zip

        return read_document_hwpx(with_object_text(path))
    return syhwp.open(str(path))
