"""Which format a file is in, from its first bytes (and, for zip files, its member names).

Office files, HWPX and EPUB-like containers are all zip archives, and HWP 5 shares the OLE2
container with the old .doc/.xls/.ppt, so the extension alone says little: `sniff` looks at the
content, and `detect` compares it with the extension.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

__all__ = ["sniff", "OLE_MAGIC"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<title")


def _zip_kind(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            mimetype = z.read("mimetype").decode("ascii", "replace").strip() if "mimetype" in names else ""
    except (zipfile.BadZipFile, OSError, KeyError, ValueError, EOFError):  # ValueError: a member name not in UTF-8
        return "zip?"
    if "word/document.xml" in names:
        return "docx"
    if "ppt/presentation.xml" in names:
        return "pptx"
    if "xl/workbook.xml" in names:
        return "xlsx"
    if mimetype.startswith("application/hwp") or any(n.lower().startswith("contents/section") for n in names):
        return "hwpx"
    return "zip"


def _ole_kind(path: Path) -> str:
    try:
        import olefile

        with olefile.OleFileIO(str(path)) as ole:
            if ole.exists("FileHeader"):
                return "hwp"
            if ole.exists("EncryptedPackage"):
                return "ole-encrypted"  # a password-protected .docx/.xlsx/.pptx is an OLE file holding the zip
            if ole.exists("WordDocument"):
                return "doc"
            if ole.exists("Workbook") or ole.exists("Book"):
                return "xls"
            if ole.exists("PowerPoint Document"):
                return "ppt"
    except Exception:
        return "ole?"
    return "ole"


def sniff(path: str | Path) -> str:
    """A content kind: pdf, hwp, hwpx, docx, pptx, xlsx, html, empty, text, or a kind no reader
    takes (zip, doc, xls, ppt, ole-encrypted, zip?/ole? for damaged containers, binary)."""
    p = Path(path)
    with open(p, "rb") as f:
        head = f.read(2048)
    if not head:
        return "empty"
    if head.lstrip()[:5] == b"%PDF-" or b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(OLE_MAGIC):
        return _ole_kind(p)
    if head.startswith(_ZIP_MAGIC):
        return _zip_kind(p)
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith(_HTML_STARTS) or (lowered.startswith(b"<!--") and b"<html" in lowered):
        return "html"
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary"
    return "text"
