"""Korean sample documents in every supported format, written with the same libraries gaji reads
them with (python-docx, python-pptx, openpyxl), plus reportlab for PDF (test extra; needs a Korean
TrueType font such as Debian's fonts-nanum) and a small OWPML writer for HWPX.

Used by the tests (tests/corpus/formats/) and by `gaji bench documents`. Every writer takes the
content as plain Python data, so a test states what it wrote and checks it comes back.

    write_docx(path, "제목", [("h1", "1. 개요"), ("p", "본문"), ("table", [["부서", "예산"], ["모바일", "48억"]])])
"""
from __future__ import annotations

import html as _html
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = [
    "lock_hwp", "Item", "korean_font", "write_docx", "write_pptx", "write_xlsx", "write_hwpx", "write_html", "write_pdf",
    "write_sample_folder", "FONT_CANDIDATES",
]

# ("h1".."h3", text) | ("p", text) | ("table", [[cell, ...], ...])
Item = tuple[str, object]

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/nanum/NanumGothic.ttf",
    "/usr/share/fonts/truetype/nanum/NanumBarunGothic.ttf",
    "/usr/share/fonts/truetype/nanum/NanumMyeongjo.ttf",
)


def korean_font() -> str | None:
    """A Korean TrueType font on this machine (Debian fonts-nanum), or None."""
    for f in FONT_CANDIDATES:
        if Path(f).is_file():
            return f
    return None


def write_docx(path: str | Path, title: str, items: Sequence[Item]) -> Path:
    import docx

    d = docx.Document()
    d.add_heading(title, level=0)
    for kind, value in items:
        if kind.startswith("h"):
            d.add_heading(str(value), level=int(kind[1:]))
        elif kind == "table":
            rows = list(value)  # type: ignore[arg-type]
            t = d.add_table(rows=len(rows), cols=max(len(r) for r in rows))
            for i, r in enumerate(rows):
                for j, c in enumerate(r):
                    t.cell(i, j).text = str(c)
        else:
            d.add_paragraph(str(value))
    d.save(str(path))
    return Path(path)


def write_pptx(path: str | Path, slides: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]] | None]]) -> Path:
    """One slide per (title, bullet lines, optional table)."""
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    for title, bullets, table in slides:
        s = prs.slides.add_slide(prs.slide_layouts[1])
        s.shapes.title.text = title
        body = s.placeholders[1].text_frame
        for i, line in enumerate(bullets):
            (body.paragraphs[0] if i == 0 else body.add_paragraph()).text = line
        if table:
            shape = s.shapes.add_table(len(table), len(table[0]), Inches(1), Inches(4.5), Inches(8), Inches(1.5))
            for i, row in enumerate(table):
                for j, c in enumerate(row):
                    shape.table.cell(i, j).text = str(c)
    prs.save(str(path))
    return Path(path)


def write_xlsx(path: str | Path, sheets: dict[str, Sequence[Sequence[object]]]) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for r in rows:
            ws.append(list(r))
    wb.save(str(path))
    return Path(path)


_HS = "http://www.hancom.co.kr/hwpml/2011/section"
_HP = "http://www.hancom.co.kr/hwpml/2011/paragraph"


def _hwpx_para(text: str, style: int = 0) -> str:
    return (f'<hp:p paraPrIDRef="0" styleIDRef="{style}"><hp:run charPrIDRef="0"><hp:t>{escape(text)}</hp:t>'
            "</hp:run></hp:p>")


def _hwpx_table(rows: Sequence[Sequence[object]]) -> str:
    n_cols = max(len(r) for r in rows)
    trs = []
    for i, r in enumerate(rows):
        tcs = "".join(
            f'<hp:tc><hp:subList>{_hwpx_para(str(c))}</hp:subList><hp:cellAddr colAddr="{j}" rowAddr="{i}"/>'
            '<hp:cellSpan colSpan="1" rowSpan="1"/></hp:tc>'
            for j, c in enumerate(r)
        )
        trs.append(f"<hp:tr>{tcs}</hp:tr>")
    return (f'<hp:p paraPrIDRef="0" styleIDRef="0"><hp:run charPrIDRef="0"><hp:tbl rowCnt="{len(rows)}" '
            f'colCnt="{n_cols}">{"".join(trs)}</hp:tbl></hp:run></hp:p>')


def write_hwpx(path: str | Path, title: str, items: Sequence[Item]) -> Path:
    """A minimal OWPML package (mimetype, version, container, one section): enough structure for
    HWPX readers; not every field Hancom Office writes."""
    body = [_hwpx_para(title)]
    for kind, value in items:
        if kind == "table":
            body.append(_hwpx_table(list(value)))  # type: ignore[arg-type]
        elif kind == "xml":  # a paragraph's OWPML as given (hp: prefix), for objects docgen does not write
            body.append(str(value))
        else:
            body.append(_hwpx_para(str(value)))
    section = f'<?xml version="1.0" encoding="UTF-8"?><hs:sec xmlns:hs="{_HS}" xmlns:hp="{_HP}">{"".join(body)}</hs:sec>'
    container = ('<?xml version="1.0" encoding="UTF-8"?><ocf:container xmlns:ocf="urn:oasis:names:tc:opendocument:'
                 'xmlns:container"><ocf:rootfiles><ocf:rootfile full-path="Contents/content.hpf" '
                 'media-type="application/hwpml-package+xml"/></ocf:rootfiles></ocf:container>')
    content = ('<?xml version="1.0" encoding="UTF-8"?><opf:package xmlns:opf="http://www.idpf.org/2007/opf/">'
               f'<opf:metadata><opf:title>{escape(title)}</opf:title></opf:metadata><opf:manifest>'
               '<opf:item id="section0" href="Contents/section0.xml" media-type="application/xml"/></opf:manifest>'
               '<opf:spine><opf:itemref idref="section0"/></opf:spine></opf:package>')
    version = ('<?xml version="1.0" encoding="UTF-8"?><hv:HCFVersion xmlns:hv="http://www.hancom.co.kr/hwpml/2011/'
               'version" tagetApplication="WORDPROCESSOR" major="5" minor="1" micro="0" buildNumber="1"/>')
    p = Path(path)
    with zipfile.ZipFile(p, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/hwp+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("version.xml", version, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/container.xml", container, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("Contents/content.hpf", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("Contents/section0.xml", section, compress_type=zipfile.ZIP_DEFLATED)
    return p


def write_html(path: str | Path, title: str, items: Sequence[Item], *, nav: Sequence[str] = (),
               footer: str = "", encoding: str = "utf-8") -> Path:
    """An intranet-like page: header + navigation + left menu + content + sidebar + footer + scripts."""
    esc = _html.escape
    parts = []
    for kind, value in items:
        if kind.startswith("h"):
            parts.append(f"<{kind}>{esc(str(value))}</{kind}>")
        elif kind == "table":
            rows = list(value)  # type: ignore[arg-type]
            head = "".join(f"<th>{esc(str(c))}</th>" for c in rows[0])
            body = "".join("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in r) + "</tr>" for r in rows[1:])
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            parts.append(f"<p>{esc(str(value))}</p>")
    menu = "".join(f'<li><a href="#">{esc(n)}</a></li>' for n in nav)
    page = f"""<!DOCTYPE html>
<html lang="ko"><head><meta charset="{encoding}"><title>{esc(title)}</title>
<script>window.dataLayer = ["{esc(nav[0]) if nav else ''} 추적"];</script></head>
<body>
<div id="header"><a href="/">그룹웨어 홈</a></div>
<nav class="gnb"><ul>{menu}</ul></nav>
<div class="wrap"><div id="lnb"><ul>{menu}</ul></div>
<div id="contents"><div class="breadcrumb">홈 &gt; {esc(title)}</div>
{chr(10).join(parts)}
</div><aside class="sidebar"><h3>공지</h3><p>{esc(nav[-1]) if nav else ''} 바로가기</p></aside></div>
<footer id="footer"><p>{esc(footer)}</p></footer>
</body></html>"""
    Path(path).write_bytes(page.encode(encoding))
    return Path(path)


def write_pdf(path: str | Path, pages: Sequence[Sequence[str]], *, font: str | None = None,
              password: str | None = None, image_pages: Sequence[int] = ()) -> Path:
    """One PDF page per list of lines (Korean text in `font`, default `korean_font()`).

    `image_pages` (1-based) get a picture and no text, like a scanned page; `password` encrypts the file.
    """
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    font = font or korean_font()
    if font is None:
        raise RuntimeError("no Korean TrueType font found (install Debian's fonts-nanum)")
    name = "GajiKorean-" + Path(font).stem
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, font))
    c = canvas.Canvas(str(path), encrypt=password) if password else canvas.Canvas(str(path))
    for i, lines in enumerate(pages, 1):
        if i in image_pages:  # a grey picture (a tiny PPM, decoded by Pillow) and no text
            import io

            ppm = b"P6 64 64 255\n" + bytes([128, 128, 128]) * (64 * 64)
            c.drawImage(ImageReader(io.BytesIO(ppm)), 100, 400, 256, 256)
        else:
            y = 800
            c.setFont(name, 12)
            for line in lines:
                c.drawString(60, y, line)
                y -= 20
        c.showPage()
    c.save()
    return Path(path)


def write_sample_folder(folder: str | Path, n_files: int = 50, *, pdf: bool = True,
                        extra: Sequence[str | Path] = ()) -> list[Path]:
    """`n_files` Korean documents cycling through the formats (PDF only with a Korean font), each
    with its own facts ("문서 7의 담당자는 …"), plus copies of the `extra` files. Returns the paths."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    kinds = ["docx", "pptx", "xlsx", "hwpx", "html"] + (["pdf"] if pdf and korean_font() else [])
    names = ["김하늘", "이바다", "박구름", "최들녘", "정노을", "한솔비"]
    teams = ["모바일사업부", "클라우드사업부", "보안팀", "인사팀", "재무팀", "연구소"]
    out: list[Path] = []
    for i in range(n_files):
        kind = kinds[i % len(kinds)]
        who, team = names[i % len(names)], teams[(i // 2) % len(teams)]
        facts = [
            f"문서 {i}의 담당자는 {who}이며 {team} 소속이다.",
            f"{team}의 {2020 + i % 5}년 예산은 {10 + i}억 원이고, 그중 {40 + i % 30}%를 상반기에 집행했다.",
            "분기마다 진행 상황을 점검하고 결과를 사내 포털에 게시한다. 위험 요소는 별도 회의에서 검토한다.",
        ]
        table = [["부서", "예산", "인원"]] + [[teams[(i + k) % 6], f"{10 + i + k}억 원", f"{20 + k * 7}명"] for k in range(8)]
        items: list[Item] = [("h1", "1. 개요"), *[("p", f) for f in facts], ("h1", "2. 예산 현황"), ("table", table),
                             ("h2", "2.1 집행 계획"), ("p", " ".join([facts[2]] * 3))]
        p = root / f"doc{i:03d}.{kind}"
        if kind == "docx":
            write_docx(p, f"운영 보고서 {i}", items)
        elif kind == "hwpx":
            write_hwpx(p, f"운영 보고서 {i}", items)
        elif kind == "html":
            write_html(p, f"사내 위키 {i}", items, nav=["전자결재", "사내게시판"], footer="가지전자 고객센터")
        elif kind == "pptx":
            write_pptx(p, [(f"{k + 1}. 발표 {i}-{k + 1}", [facts[k % 3], facts[(k + 1) % 3]], table[:4] if k == 1 else None)
                           for k in range(6)])
        elif kind == "xlsx":
            rows = [["부서", "예산", "담당자", "비고"]] + [
                [teams[k % 6], f"{10 + i + k}억 원", names[k % 6], f"문서 {i} 행 {k}"] for k in range(60)
            ]
            write_xlsx(p, {"예산": rows, "인원": [["부서", "인원"]] + [[t, 20 + k] for k, t in enumerate(teams)]})
        else:
            write_pdf(p, [[f"운영 보고서 {i} - {k + 1}쪽", *facts, *[r[0] + " " + r[1] for r in table]] for k in range(8)])
        out.append(p)
    for e in extra:
        dst = root / Path(e).name
        shutil.copyfile(e, dst)
        out.append(dst)
    return out


def lock_hwp(src: str | Path, dst: str | Path) -> Path:
    """A copy of an HWP 5 file with the FileHeader's "password" bit set (what Hancom writes for 문서 암호): a file
    every reader must refuse by name."""
    import struct

    import olefile

    shutil.copyfile(src, dst)
    with olefile.OleFileIO(str(dst), write_mode=True) as ole:
        fh = bytearray(ole.openstream("FileHeader").read())
        (flags,) = struct.unpack_from("<I", fh, 36)
        struct.pack_into("<I", fh, 36, flags | 0x2)
        ole.write_stream("FileHeader", bytes(fh))
    return Path(dst)
