"""PDF: the text layer, one unit per page (pypdfium2: PDFium, Apache-2.0/BSD-3-Clause, prebuilt wheels).

A page without text is left out; when it holds an image it is reported as a probable scan, since
its words are in the picture and gaji does no OCR. A file with no text on any page is unreadable.
A password-protected PDF is refused; an owner-password-only PDF (printing/copying restrictions)
opens as usual.
"""
from __future__ import annotations

from pathlib import Path

from gaji.messages import Msg

from .base import Block, Parsed, Unreadable, clean

__all__ = ["read"]


def read(path: Path) -> Parsed:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as e:
        msg = str(e)
        if "password" in msg.lower():
            raise Unreadable(Msg("read.pdf_password")) from None
        raise Unreadable(Msg("read.bad_pdf", {"detail": msg})) from None
    blocks: list[Block] = []
    notices: list[str] = []
    scanned: list[int] = []
    try:
        n = len(pdf)
        for i in range(n):
            page = pdf[i]
            try:
                tp = page.get_textpage()
                try:
                    text = clean(tp.get_text_range())
                finally:
                    tp.close()
                if text:
                    blocks.append(Block(text, unit=i + 1))
                elif any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2)):
                    scanned.append(i + 1)
            finally:
                page.close()
    finally:
        pdf.close()
    if scanned:
        pages = ", ".join(map(str, scanned[:20])) + (" …" if len(scanned) > 20 else "")
        notices.append(f"{len(scanned)} page(s) with no text layer, only an image (scanned?), not indexed: p. {pages}")
    if not blocks and n:
        raise Unreadable(Msg("read.pdf_scanned" if scanned else "read.pdf_no_text", {"n": n}))
    return Parsed(blocks, unit="page", notices=notices, units_total=n)
