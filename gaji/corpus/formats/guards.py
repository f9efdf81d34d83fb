"""Checks run on a document file before its reader's library opens it, so a file built to exhaust the
machine is refused with the limit it hit (gaji.corpus.formats.limits) instead of being read.

- every file: its size;
- zip containers (DOCX, PPTX, XLSX, HWPX): the entry count from the end record, then each member's declared
  size, the total and the compression ratio from the central directory. Python's zipfile never hands out
  more than a member's declared size (and fails its CRC when the data holds more), so the libraries, which
  read through it, are bound by these figures while they stream;
- their XML members, streamed through expat: nesting depth, entity declarations (billion laughs),
  well-formedness ("broken XML in Contents/section0.xml, line 3"), and for worksheets rows and cells;
- after the reader: the characters of text of each page, slide or sheet (`check_parsed`);
- HWP 5 (OLE2): every compressed stream inflated in pieces and counted, never all at once;
- HTML: characters, and the nesting its tags would build (the HTML tree builder is quadratic in it).
"""
from __future__ import annotations

import re
import struct
import zipfile
import zlib
from pathlib import Path
from xml.parsers import expat

from .base import Parsed, Unreadable
from .limits import MB, LimitExceeded, ReadLimits, human_size

__all__ = ["check_file", "check_size", "check_zip", "check_xml_stream", "check_hwp", "check_html", "check_parsed",
           "ZIP_FORMATS"]

ZIP_FORMATS = ("docx", "pptx", "xlsx", "hwpx")
_RATIO_FLOOR = 1 * MB  # below this a member may compress as well as it likes
_CHUNK = 256 * 1024


def check_size(path: Path, limits: ReadLimits) -> None:
    size = path.stat().st_size
    if size > limits.max_file_bytes:
        raise LimitExceeded("file", size=human_size(size), limit=human_size(limits.max_file_bytes))


def check_file(path: Path, fmt: str, limits: ReadLimits) -> LimitExceeded | None:
    """All the checks for a file about to be read as `fmt` (a gaji.corpus.formats name). Returns the first broken
    XML part of a package (not raised: the reader may not need that part; see `parse_file`)."""
    check_size(path, limits)
    if fmt in ZIP_FORMATS:
        return check_zip(path, limits)
    elif fmt == "hwp":
        check_hwp(path, limits)
    elif fmt == "html":
        from .html import _decode

        check_html(_decode(path.read_bytes()), limits)
    return None


def check_parsed(parsed: Parsed, limits: ReadLimits) -> None:
    """What a reader extracted: no unit (page, slide, sheet, or the whole file) over the character limit."""
    per_unit: dict[object, int] = {}
    for b in parsed.blocks:
        n = per_unit[b.unit] = per_unit.get(b.unit, 0) + len(b.text)
        if n > limits.max_chars:
            part = f"{parsed.unit} {b.unit}" if parsed.unit and b.unit is not None else "the document"
            raise LimitExceeded("chars", part=part, limit=f"{limits.max_chars:,}")


def _declared_entries(path: Path) -> int | None:
    """Entries the zip's end-of-central-directory record declares (None when it cannot be found or is zip64)."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - 66_000))
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + 22 > len(tail):
        return None
    (total,) = struct.unpack("<H", tail[at + 10: at + 12])
    return None if total == 0xFFFF else total


def check_zip(path: Path, limits: ReadLimits) -> LimitExceeded | None:
    """The archive's members against the size, ratio and count limits, then its XML members' structure; returns
    the first member that is not well-formed XML (the other findings are raised)."""
    declared = _declared_entries(path)
    if declared is not None and declared > limits.max_members:
        raise LimitExceeded("members", limit=limits.max_members)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None  # the reader reports the damage in its own words
    with z:
        infos = z.infolist()
        if len(infos) > limits.max_members:
            raise LimitExceeded("members", limit=limits.max_members)
        total = 0
        for info in infos:
            if info.file_size > limits.max_member_bytes:
                raise LimitExceeded("member", part=info.filename, limit=human_size(limits.max_member_bytes))
            total += info.file_size
            if total > limits.max_expanded_bytes:
                raise LimitExceeded("expanded", limit=human_size(limits.max_expanded_bytes))
            if info.file_size > _RATIO_FLOOR:
                ratio = info.file_size / max(1, info.compress_size)
                if ratio > limits.max_ratio:
                    raise LimitExceeded("ratio", part=info.filename, ratio=f"{ratio:.0f}", limit=f"{limits.max_ratio:g}")
        broken = None
        for info in infos:
            name = info.filename.lower()
            if name.endswith((".xml", ".rels")) and not info.is_dir():
                try:
                    with z.open(info) as stream:
                        check_xml_stream(stream, info.filename, limits, sheet=_is_sheet(name))
                except LimitExceeded as e:
                    if e.refusal.key != "broken_xml":
                        raise
                    broken = broken or e
                except (zipfile.BadZipFile, zlib.error, EOFError) as e:
                    raise Unreadable(f"the archive member {info.filename} is damaged ({e})") from None
                except (NotImplementedError, RuntimeError):
                    return broken  # an encrypted member or a compression zipfile lacks: the reader says so
        return broken


def _is_sheet(name: str) -> bool:
    return name.startswith("xl/worksheets/") and name.endswith(".xml")


_XML_TAG = re.compile(rb"<(/?)[A-Za-z_][^\s/>]*[^>]*?(/?)>")
_ROW = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row[\s>/]")
_CELL = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s>/]")


def check_xml_stream(stream, part: str, limits: ReadLimits, *, sheet: bool = False) -> None:
    """Stream one XML part, refusing it past the depth, character, row or cell limits, for any entity
    declaration, or for not being well-formed XML. (Characters are counted on what the reader extracted,
    `check_parsed`: counting them here would cost a second pass over every tag.)

    expat checks the form (in C, no per-element callback); the figures come from byte counts over the
    complete tags of each piece: a piece whose opening tags cannot take the depth past the limit is not
    looked at tag by tag."""
    p = expat.ParserCreate()
    p.EntityDeclHandler = lambda *_a: _raise(LimitExceeded("entities", part=part))
    depth = rows = cells = 0
    carry = b""
    try:
        while True:
            chunk = stream.read(_CHUNK)
            p.Parse(chunk, not chunk)
            text = carry + chunk
            cut = text.rfind(b">") + 1 if chunk else len(text)
            scan, carry = text[:cut], text[cut:]
            depth = _depth_after(scan, depth, part, limits.max_depth)
            if sheet:
                if b":row" in scan or b":c " in scan:  # prefixed SpreadsheetML: tag by tag
                    rows += len(_ROW.findall(scan))
                    cells += len(_CELL.findall(scan))
                else:
                    rows += scan.count(b"<row ") + scan.count(b"<row>")
                    cells += scan.count(b"<c ") + scan.count(b"<c>")
                if rows > limits.max_rows:
                    raise LimitExceeded("rows", part=part, limit=f"{limits.max_rows:,}")
                if cells > limits.max_cells:
                    raise LimitExceeded("cells", part=part, limit=f"{limits.max_cells:,}")
            if not chunk:
                break
    except expat.ExpatError as e:
        raise LimitExceeded("broken_xml", part=part, line=e.lineno, column=e.offset + 1,
                            detail=expat.errors.messages.get(e.code, str(e))) from None


_WINDOW = 4096


def _depth_after(scan: bytes, depth: int, part: str, max_depth: int) -> int:
    """The nesting after `scan` (complete tags) starting at `depth`; LimitExceeded when it passes `max_depth`.
    Window by window (cut after a '>'): one whose opening tags cannot reach the limit is only counted."""
    pos, n = 0, len(scan)
    while pos < n:
        end = scan.find(b">", pos + _WINDOW)
        end = n if end < 0 else end + 1
        opens = (scan.count(b"<", pos, end) - scan.count(b"</", pos, end) - scan.count(b"<?", pos, end)
                 - scan.count(b"<!", pos, end))
        if depth + opens <= max_depth:
            depth += opens - scan.count(b"</", pos, end) - scan.count(b"/>", pos, end)
        else:
            for m in _XML_TAG.finditer(scan, pos, end):
                if m.group(1):
                    depth -= 1
                elif not m.group(2):
                    depth += 1
                    if depth > max_depth:
                        raise LimitExceeded("depth", part=part, limit=max_depth)
        pos = end
    return depth


def _raise(e: Exception) -> None:
    raise e


# HWP 5: the FileHeader's properties (offset 36) say whether the streams are deflated (bit 0)
_HWP_COMPRESSED = 0x1


def check_hwp(path: Path, limits: ReadLimits) -> None:
    """An HWP 5 file whose streams are cut short is refused as truncated (the reader would find no text and
    call it empty). Each deflated stream is inflated piecewise: no stream past the member limit, all of them
    together not past the expanded limit. Distribution documents' encrypted ViewText streams are bound by the
    worker's memory limit instead (their key is only known to the reader)."""
    try:
        import olefile

        ole = olefile.OleFileIO(str(path))
    except Exception:  # noqa: BLE001 - a damaged container is the reader's to report
        return
    with ole:
        streams: dict[str, bytes] = {}
        for entry in ole.listdir(streams=True, storages=False):
            name = "/".join(entry)
            try:
                data = ole.openstream(entry).read()
                declared = ole.get_size(entry)
            except Exception:  # noqa: BLE001
                return
            if len(data) < declared:
                raise LimitExceeded("truncated", part=name, got=f"{len(data):,}", size=f"{declared:,}")
            streams[name] = data
        header = streams.get("FileHeader", b"")
        if len(header) < 40 or not struct.unpack("<I", header[36:40])[0] & _HWP_COMPRESSED:
            return
        total = 0
        for name, data in streams.items():
            if name.startswith("BodyText/") or name == "DocInfo":
                total += _inflated_size(data, name, limits, limits.max_expanded_bytes - total)


def _inflated_size(data: bytes, part: str, limits: ReadLimits, room: int) -> int:
    """Bytes a raw-deflate stream inflates to, counted in pieces; refused past the member limit or `room`."""
    d = zlib.decompressobj(-15)
    out = 0
    buf = data
    try:
        while buf:
            piece = d.decompress(buf, _CHUNK)
            out += len(piece)
            if out > limits.max_member_bytes:
                raise LimitExceeded("member", part=part, limit=human_size(limits.max_member_bytes))
            if out > room:
                raise LimitExceeded("expanded", limit=human_size(limits.max_expanded_bytes))
            buf = d.unconsumed_tail
            if d.eof or (not piece and not buf):
                break
    except zlib.error:
        return out  # damaged: the reader reports it
    return out


_VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr".split())
# closed by their next sibling, so a page may leave them open without nesting
_IMPLIED_END = frozenset("p li dt dd tr td th option optgroup thead tbody tfoot colgroup caption rb rt rtc rp".split())
_SKIP_RE = re.compile(r"<!--.*?(?:-->|\Z)|<(script|style|textarea|title)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I)
_TAG_RE = re.compile(r"<(/?)([A-Za-z][^\s/>]*)[^>]*?(/?)>")


def check_html(html: str, limits: ReadLimits, part: str = "HTML") -> None:
    """Characters, and how deep the page's tags nest: open tags minus closed ones, not counting void
    elements, self-closed tags and those a sibling closes (p, li, td …). The HTML tree builder scans its
    stack of open elements for many tags, so nesting costs time as its square."""
    if len(html) > limits.max_chars:
        raise LimitExceeded("chars", part=part, limit=f"{limits.max_chars:,}")
    depth = 0
    for m in _TAG_RE.finditer(_SKIP_RE.sub(" ", html)):
        closing, name, selfclose = m.group(1), m.group(2).lower(), m.group(3)
        if closing:
            depth = max(0, depth - 1) if name not in _VOID and name not in _IMPLIED_END else depth
        elif not selfclose and name not in _VOID and name not in _IMPLIED_END:
            depth += 1
            if depth > limits.max_depth:
                raise LimitExceeded("depth", part=part, limit=limits.max_depth)
