"""A corpus of hostile document files, generated on demand (never stored): zip bombs for XLSX, DOCX, PPTX and
HWPX, billion laughs, deep XML, deep HTML closed and unclosed, a 1.1 M-row sheet, a huge single cell, broken
XML, a zip whose headers lie, truncated PDF and HWP. Each case says which refusals are right for it.

    for case in CASES:
        path = case.build(folder)           # the file, written into `folder`
        case.expect                         # refusal keys (gaji.corpus.formats.limits.MESSAGES) it must end in

Used by tests/corpus/test_readers_bombs.py and `gaji bench fuzz-readers` (lab/gaji_lab/bench/fuzz_readers.py). The zip
bombs stream their members, so writing one takes seconds and little memory whatever it expands to.
"""
from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gaji.corpus.docgen import write_docx, write_hwpx, write_pptx, write_xlsx

__all__ = ["Case", "CASES", "cases", "minimal_pdf", "rezip", "write_zip", "deflated", "deflated_repeat", "DAMAGED"]

MB = 1024 * 1024
DAMAGED = "damaged"  # expected: refused as damaged (a plain Unreadable, not a limit)
_PIECE = b"A" * MB

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_HS = "http://www.hancom.co.kr/hwpml/2011/section"
_HP = "http://www.hancom.co.kr/hwpml/2011/paragraph"


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    make: Callable[[Path, int], Path]  # (path, size in MB where the case has one) -> path
    expect: tuple[str, ...]
    size_mb: int = 0
    limits: dict[str, str] = field(default_factory=dict)  # read limits for this case (default: ReadLimits())
    scalable: bool = False  # a zip bomb whose expanded size a bench may choose

    def build(self, folder: Path, size_mb: int | None = None) -> Path:
        return self.make(Path(folder) / self.filename, size_mb or self.size_mb)


@dataclass(frozen=True)
class Deflated:
    """A member's content already raw-deflated: its CRC-32, size and compressed bytes."""

    crc: int
    size: int
    data: bytes


def deflated_repeat(head: bytes, mb: int, tail: bytes, piece: bytes = _PIECE) -> Deflated:
    """`head` + `piece` `mb` times + `tail` (by default `mb` MB of one letter), deflated in seconds whatever
    `mb` is: after a full flush the compressor has no history, so every piece deflates to the same bytes,
    which are repeated."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    packed = c.compress(piece) + c.flush(zlib.Z_FULL_FLUSH)
    end = c.compress(tail) + c.flush()
    crc = zlib.crc32(head)
    for _ in range(mb):
        crc = zlib.crc32(piece, crc)
    crc = zlib.crc32(tail, crc)
    return Deflated(crc, len(head) + mb * len(piece) + len(tail), start + packed * mb + end)


def deflated(data: bytes) -> Deflated:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return Deflated(zlib.crc32(data), len(data), c.compress(data) + c.flush())


def write_zip(path: Path, members: list[tuple[str, Deflated]]) -> Path:
    """A zip of deflated members (sizes under 4 GB), written field by field as APPNOTE describes."""
    out = bytearray()
    central = bytearray()
    for name, m in members:
        raw = name.encode("utf-8")
        fields = struct.pack("<HHHHHIIIHH", 20, 0x800, 8, 0, 0x21, m.crc, len(m.data), m.size, len(raw), 0)
        central += b"PK\x01\x02" + struct.pack("<H", 20) + fields + struct.pack("<HHHII", 0, 0, 0, 0, len(out)) + raw
        out += b"PK\x03\x04" + fields + raw + m.data
    end = struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(central), len(out), 0)
    path.write_bytes(bytes(out + central + b"PK\x05\x06" + end))
    return path


def rezip(src: Path, dst: Path, replace: dict[str, Deflated]) -> Path:
    """Copy the zip `src` to `dst` with the members named in `replace` holding that content instead."""
    with zipfile.ZipFile(src) as zin:
        members = [(i.filename, replace.get(i.filename) or deflated(zin.read(i.filename))) for i in zin.infolist()]
    return write_zip(dst, members)


def _base(kind: str, path: Path) -> Path:
    tmp = path.with_name(path.stem + ".base" + path.suffix)
    if kind == "docx":
        write_docx(tmp, "폭탄", [("p", "본문")])
    elif kind == "pptx":
        write_pptx(tmp, [("표지", ["본문"], None)])
    elif kind == "xlsx":
        write_xlsx(tmp, {"Sheet1": [["a"], ["b"]]})
    else:
        write_hwpx(tmp, "폭탄", [("p", "본문")])
    return tmp


_MEMBER = {"docx": "word/document.xml", "pptx": "ppt/slides/slide1.xml", "xlsx": "xl/worksheets/sheet1.xml",
           "hwpx": "Contents/section0.xml"}
_WRAP = {
    "docx": (f'<w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:t>'.encode(), b"</w:t></w:r></w:p></w:body></w:document>"),
    "pptx": (b'<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
             b'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:t>', b"</a:t></p:sld>"),
    "xlsx": (f'<worksheet xmlns="{_S}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>'.encode(),
             b"</t></is></c></row></sheetData></worksheet>"),
    "hwpx": (f'<hs:sec xmlns:hs="{_HS}" xmlns:hp="{_HP}"><hp:p><hp:run><hp:t>'.encode(),
             b"</hp:t></hp:run></hp:p></hs:sec>"),
}


def _replace_member(kind: str, content: Callable[[], Deflated]) -> Callable[[Path, int], Path]:
    def make(path: Path, _mb: int) -> Path:
        base = _base(kind, path)
        try:
            return rezip(base, path, {_MEMBER[kind]: content()})
        finally:
            base.unlink()
    return make


def _zip_bomb(kind: str) -> Callable[[Path, int], Path]:
    """One member that inflates to `mb` MB of one letter: a single huge text node (for XLSX, one cell)."""
    def make(path: Path, mb: int) -> Path:
        head, tail = _WRAP[kind]
        return _replace_member(kind, lambda: deflated_repeat(b'<?xml version="1.0"?>' + head, mb, tail))(path, mb)
    return make


def _laughs(kind: str) -> Callable[[Path, int], Path]:
    """The billion laughs: ten entities, each ten of the one before; a parser that expands them makes 3 GB."""
    ents = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)]
    head, tail = _WRAP[kind]
    doc = f'<?xml version="1.0"?><!DOCTYPE lolz [{"".join(ents)}]>'.encode() + head + b"&lol9;" + tail
    return _replace_member(kind, lambda: deflated(doc))


def _deep_xml(kind: str, depth: int = 100_000) -> Callable[[Path, int], Path]:
    head, tail = _WRAP[kind]
    doc = b'<?xml version="1.0"?>' + head + b"<x>" * depth + b"</x>" * depth + tail
    return _replace_member(kind, lambda: deflated(doc))


def _broken_xml(kind: str) -> Callable[[Path, int], Path]:
    head, _tail = _WRAP[kind]
    doc = b'<?xml version="1.0"?>' + head + "본문이 중간에 끊긴".encode() + b"</hp:r"
    return _replace_member(kind, lambda: deflated(doc))


def _many_rows(path: Path, _mb: int, rows: int = 1_100_000) -> Path:
    """A sheet of `rows` one-cell rows (Excel itself stops at 1,048,576), written as raw SpreadsheetML."""
    head, tail = f'<?xml version="1.0"?><worksheet xmlns="{_S}"><sheetData>'.encode(), b"</sheetData></worksheet>"
    per = 10_000
    piece = b"<row><c><v>7</v></c></row>" * per
    return _replace_member("xlsx", lambda: deflated_repeat(head, rows // per, tail, piece))(path, 0)


def _huge_cell(path: Path, _mb: int, chars: int = 300_000) -> Path:
    """One cell of `chars` characters of numbered Korean sentences (compressed like text, not like a bomb)."""
    text, n = [], 0
    while n < chars:
        s = f"{len(text)}번째 문장은 표의 한 칸에 들어 있습니다. "
        text.append(s)
        n += len(s)
    head, tail = _WRAP["xlsx"]
    body = b'<?xml version="1.0"?>' + head + "".join(text)[:chars].encode() + tail
    return _replace_member("xlsx", lambda: deflated(body))(path, 0)


def _lying_zip(path: Path, mb: int) -> Path:
    """A DOCX whose central directory says document.xml is 1 KB while it holds `mb` MB: zipfile reads no more
    than the header says and fails the CRC, so the file is damaged, not a memory hog."""
    head, tail = _WRAP["docx"]
    _replace_member("docx", lambda: deflated_repeat(b'<?xml version="1.0"?>' + head, mb, tail))(path, mb)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        real, start_dir = z.getinfo("word/document.xml").file_size, z.start_dir
    # the central directory is what zipfile believes: its entry for the member says 1 KB (uncompressed size at
    # offset 24 of the entry, the name at 46)
    name = b"word/document.xml"
    at = data.find(b"PK\x01\x02", start_dir)
    while data[at + 46: at + 46 + len(name)] != name:
        at = data.find(b"PK\x01\x02", at + 4)
    assert int.from_bytes(data[at + 24: at + 28], "little") == real
    data[at + 24: at + 28] = (1024).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    return path


def _deep_html(closed: bool, n: int = 100_000) -> Callable[[Path, int], Path]:
    """`n` times <div><span> (nesting 2n deep), closed or not."""
    def make(path: Path, _mb: int) -> Path:
        body = "<div><span>" * n + "본문" + ("</span></div>" * n if closed else "")
        path.write_text(f"<!doctype html><html><head><title>깊은 문서</title></head><body>{body}</body></html>",
                        encoding="utf-8")
        return path
    return make


def minimal_pdf(pages: list[str]) -> bytes:
    """A small valid PDF (Helvetica, one line a page) written by hand: no font file or PDF library needed."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    font_no = 3
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for text in pages:
        stream = f"BT /F1 12 Tf 60 780 Td ({text}) Tj ET".encode("latin-1")
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_no = len(objs)
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents {content_no} 0 R "
                    f"/Resources << /Font << /F1 {font_no} 0 R >> >> >>".encode())
        kids.append(f"{len(objs)} 0 R")
    objs[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def _truncated_pdf(path: Path, _mb: int) -> Path:
    data = minimal_pdf([f"Page {i} of a report on budgets" for i in range(1, 41)])
    path.write_bytes(data[: len(data) * 2 // 5])
    return path


def hwp_fixture() -> Path | None:
    """The HWP 5 report the format tests use, when this is a source checkout."""
    p = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "formats" / "fixtures" / "gaji_report.hwp"
    return p if p.is_file() else None


def _truncated_hwp(path: Path, _mb: int) -> Path:
    src = hwp_fixture()
    if src is None:
        raise FileNotFoundError("the HWP fixture (tests/corpus/formats/fixtures/gaji_report.hwp) is not here")
    data = src.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


CASES: tuple[Case, ...] = (
    Case("xlsx zip bomb (one huge cell)", "bomb.xlsx", _zip_bomb("xlsx"), ("member", "expanded", "ratio"), 120,
         scalable=True),
    Case("docx zip bomb", "bomb.docx", _zip_bomb("docx"), ("member", "expanded", "ratio"), 120,
         scalable=True),
    Case("pptx zip bomb", "bomb.pptx", _zip_bomb("pptx"), ("member", "expanded", "ratio"), 120,
         scalable=True),
    Case("hwpx zip bomb", "bomb.hwpx", _zip_bomb("hwpx"), ("member", "expanded", "ratio"), 120,
         scalable=True),
    Case("zip bomb under the size limits (ratio)", "ratio.docx", _zip_bomb("docx"), ("ratio",), 20),
    Case("zip whose headers lie about a member's size", "lying.docx", _lying_zip, (DAMAGED,), 20),
    Case("billion laughs (docx)", "laughs.docx", _laughs("docx"), ("entities",)),
    Case("billion laughs (xlsx)", "laughs.xlsx", _laughs("xlsx"), ("entities",)),
    Case("billion laughs (hwpx)", "laughs.hwpx", _laughs("hwpx"), ("entities",)),
    Case("deep XML (docx, 100k nested elements)", "deep.docx", _deep_xml("docx"), ("depth",)),
    Case("broken XML (hwpx)", "broken.hwpx", _broken_xml("hwpx"), ("broken_xml",)),
    Case("1.1 M rows (xlsx)", "rows.xlsx", _many_rows, ("rows", "ratio")),
    Case("1.1 M rows (xlsx, ratio limit lifted)", "rows-only.xlsx", _many_rows, ("rows",), limits={"ratio": "100000"}),
    Case("huge single cell (xlsx, 300k characters, limit 200k)", "cell.xlsx", _huge_cell, ("chars",),
         limits={"chars": "200000"}),
    Case("deep HTML, closed (100k <div><span>)", "deep-closed.html", _deep_html(True), ("depth",)),
    Case("deep HTML, unclosed (100k <div><span>)", "deep-open.html", _deep_html(False), ("depth",)),
    Case("deep HTML past the depth check (unclosed, 98k deep, time limit 3 s)", "slow.html", _deep_html(False, 49_000),
         ("time",),
         limits={"depth": "100000", "seconds": "3"}),
    Case("truncated PDF", "truncated.pdf", _truncated_pdf, (DAMAGED, "read")),
    Case("truncated HWP", "truncated.hwp", _truncated_hwp, ("truncated",)),
)


def cases(names: list[str] | None = None) -> Iterator[Case]:
    for c in CASES:
        if not names or any(n.lower() in c.name.lower() or n == c.filename for n in names):
            yield c
