"""Document formats: an explicit registry of the readers for files people keep.

    fmt, notice = detect(path)                  # by content first, then extension; raises Unreadable
    docs, parsed = read_file(path, "a/b.pdf", fmt, rel="a/b.pdf")   # Documents with their Location

| name | extensions | content check | reader module | unit |
|---|---|---|---|---|
| pdf  | .pdf | ``%PDF-`` | pdf.py (pypdfium2) | page |
| hwp  | .hwp | OLE2 with a ``FileHeader`` stream | hwp.py (syhwp) | heading section |
| hwpx | .hwpx | zip with ``Contents/section*.xml`` | hwp.py (syhwp) | heading section |
| docx | .docx | zip with ``word/document.xml`` | docx.py (python-docx) | heading section |
| pptx | .pptx | zip with ``ppt/presentation.xml`` | pptx.py (python-pptx) | slide |
| xlsx | .xlsx .xlsm | zip with ``xl/workbook.xml`` | xlsx.py (openpyxl) | sheet (rows) |
| html | .html .htm | ``<html`` / ``<!doctype html`` | html.py (selectolax) | heading section |
| text | .txt .md .markdown | UTF-8 text | gaji.corpus.readers.read_text_file | file |

JSONL and KorQuAD/JSON corpora are record files, read by gaji.corpus.readers as before; they are
not picked up from folders.

A file whose content is another registered format than its extension says is read by its content
(and a notice says so); a file whose content matches no reader is refused with the reason.
"""
from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaji.types import Document, Location

from gaji.messages import Msg

from .base import Parsed, Unreadable, to_documents
from .detect import sniff
from .limits import LimitExceeded, ReadLimits, Refusal, human_size

__all__ = ["Format", "FORMATS", "DOCUMENT_SUFFIXES", "detect", "read_file", "parse_file", "Unreadable", "format_for",
           "ReadLimits", "LimitExceeded", "Refusal"]


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    module: str  # a module with `read(path: Path) -> Parsed`; "" = read by gaji.corpus.readers
    label: str  # for messages


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("pdf", (".pdf",), "gaji.corpus.formats.pdf", "PDF"),
        Format("hwp", (".hwp",), "gaji.corpus.formats.hwp", "HWP 5"),
        Format("hwpx", (".hwpx",), "gaji.corpus.formats.hwp", "HWPX"),
        Format("docx", (".docx",), "gaji.corpus.formats.docx", "DOCX"),
        Format("pptx", (".pptx",), "gaji.corpus.formats.pptx", "PPTX"),
        Format("xlsx", (".xlsx", ".xlsm"), "gaji.corpus.formats.xlsx", "XLSX"),
        Format("html", (".html", ".htm"), "gaji.corpus.formats.html", "HTML"),
        Format("text", (".txt", ".md", ".markdown"), "", "text"),
    )
}
DOCUMENT_SUFFIXES = tuple(s for f in FORMATS.values() for s in f.suffixes)
_BY_SUFFIX = {s: f for f in FORMATS.values() for s in f.suffixes}

# Content kinds no reader takes; what to do about each is the message table's "read.kind.<kind>".
_REFUSED = ("doc", "xls", "ppt", "ole-encrypted", "ole", "ole?", "zip", "zip?", "binary")


def format_for(path: str | Path) -> Format | None:
    """The format an extension names (None for an extension no reader takes)."""
    return _BY_SUFFIX.get(Path(path).suffix.lower())


def detect(path: str | Path) -> tuple[Format | None, str | None]:
    """(format to read it with, notice) for a file; (None, None) for a file no reader claims.

    Raises `Unreadable` for a file that claims a format by its extension but whose content cannot be
    read as any (empty, damaged, another format no reader takes).
    """
    p = Path(path)
    by_ext = format_for(p)
    kind = sniff(p)
    if kind == "empty":
        if by_ext is None:
            return None, None
        raise Unreadable(Msg("read.empty_file"))
    if kind in FORMATS and kind != "text":
        fmt = FORMATS[kind]
        if by_ext is not None and by_ext is not fmt:
            return fmt, f"content is {fmt.label}, not {by_ext.label} as its extension says; read as {fmt.label}"
        return fmt, None
    if kind == "text":
        if by_ext is not None and by_ext.name in ("text", "html"):
            return by_ext, None
        if by_ext is not None:
            raise Unreadable(Msg("read.plain_text", {"label": by_ext.label}))
        return None, None
    if by_ext is None:
        return None, None
    if kind == "ole-encrypted":
        raise Unreadable(Msg("read.office_password"))
    if kind in _REFUSED:
        raise Unreadable(Msg("read.wrong_content", {"label": by_ext.label, "kind": kind_text(kind)}))
    raise Unreadable(f"the extension says {by_ext.label}, but the content is {kind}")


def kind_text(kind: str) -> Msg:
    """What a content kind no reader takes is, and what to do about it."""
    return Msg(f"read.kind.{kind}")


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_file(path: str | Path, fmt: Format, limits: ReadLimits | None = None) -> Parsed:
    """Run the format's reader under `limits` (the checks of gaji.corpus.formats.guards first); any failure
    of the underlying library becomes `Unreadable`, a limit hit a `LimitExceeded` naming it."""
    from .guards import check_file, check_parsed

    limits = limits or ReadLimits()
    mod = importlib.import_module(fmt.module)
    try:
        broken = check_file(Path(path), fmt.name, limits)  # a package part that is not well-formed XML
    except Unreadable:
        raise
    except MemoryError:
        raise LimitExceeded("memory", limit=human_size(limits.max_memory_bytes)) from None
    except Exception as e:  # noqa: BLE001 - a container too damaged for the checks
        raise Unreadable(f"cannot be read as {fmt.label}: {' '.join(str(e).split())[:200] or type(e).__name__}") from None
    try:
        parsed = _read_module(mod, Path(path), fmt, limits)
    except LimitExceeded:
        raise
    except Unreadable:
        if broken is not None:  # the reader failed on it, or on what followed: say what is wrong
            raise broken from None
        raise
    if broken is not None:
        if not any(b.text.strip() for b in parsed.blocks):
            raise broken
        parsed.notices.append(f"{broken} (read without it)")
    check_parsed(parsed, limits)
    return parsed


def _read_module(mod: Any, path: Path, fmt: Format, limits: ReadLimits) -> Parsed:
    """`mod.read(path)`, its library's failures as `Unreadable`."""
    try:
        return mod.read(path)
    except Unreadable:
        raise
    except ImportError as e:
        raise Unreadable(Msg("read.needs_package", {"label": fmt.label, "package": e.name})) from None
    except (MemoryError, RecursionError):
        raise LimitExceeded("memory", limit=human_size(limits.max_memory_bytes)) from None
    except Exception as e:  # libraries raise their own types for damaged files
        msg = " ".join(str(e).split())[:200] or type(e).__name__
        raise Unreadable(Msg("read.damaged", {"label": fmt.label, "detail": msg})) from None


def read_file(path: str | Path, doc_id: str, fmt: Format, *, rel: str | None = None,
              limits: ReadLimits | None = None) -> tuple[list[Document], Parsed]:
    """Documents of one file in a non-text format (see `to_documents`), and the parse (for notices).

    Raises `Unreadable` when it cannot be read or holds no text, `LimitExceeded` past `limits`.
    """
    from .guards import check_size

    p = Path(path)
    limits = limits or ReadLimits()
    check_size(p, limits)
    digest = file_digest(p.read_bytes())
    parsed = parse_file(p, fmt, limits)
    base = Location(file=rel or p.name, sha256=digest)
    docs = to_documents(parsed, doc_id, parsed.title or p.stem, base, str(p))
    if not docs:
        if parsed.notices:
            raise Unreadable(Msg("read.no_text", {"detail": "; ".join(parsed.notices)}))
        raise Unreadable(Msg("read.empty_doc"))
    return docs, parsed
