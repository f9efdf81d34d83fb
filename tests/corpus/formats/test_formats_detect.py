import shutil

import pytest

from gaji.corpus.docgen import write_docx, write_xlsx
from gaji.corpus.formats import FORMATS, Unreadable, detect
from gaji.corpus.formats.detect import sniff
from gaji.corpus.readers import read_documents
from gaji.errors import InputError


def test_sniff_by_content(tmp_path, fixtures):
    d = write_docx(tmp_path / "a.docx", "제목", [("p", "본문")])
    x = write_xlsx(tmp_path / "b.xlsx", {"s": [["a"], ["b"]]})
    (tmp_path / "c.html").write_text("\ufeff<!DOCTYPE html><html><body>x</body></html>", encoding="utf-8")
    (tmp_path / "d.txt").write_text("그냥 글", encoding="utf-8")
    (tmp_path / "e.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "f.pdf").write_bytes(b"")
    got = [sniff(p) for p in (d, x, tmp_path / "c.html", tmp_path / "d.txt", tmp_path / "e.bin", tmp_path / "f.pdf")]
    assert got == ["docx", "xlsx", "html", "text", "binary", "empty"]
    assert sniff(fixtures / "gaji_report.hwp") == "hwp"


def test_wrong_extension_is_read_by_content(tmp_path):
    src = write_docx(tmp_path / "real.docx", "정책", [("h1", "1. 목적"), ("p", "잘못된 확장자로 저장된 문서이다.")])
    p = tmp_path / "renamed.pdf"
    shutil.copyfile(src, p)
    fmt, notice = detect(p)
    assert fmt is FORMATS["docx"] and "content is DOCX, not PDF" in notice
    docs, rep = read_documents([p])
    assert "잘못된 확장자로 저장된 문서이다." in docs[0].text
    assert any("read as DOCX" in n for n in rep.notices)


def test_wrong_content_is_refused_with_the_reason(tmp_path):
    p = tmp_path / "notes.pdf"
    p.write_text("PDF가 아니라 그냥 글이다.", encoding="utf-8")
    with pytest.raises(Unreadable, match="the extension says PDF, but the content is plain text"):
        detect(p)
    q = tmp_path / "old.docx"
    q.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(Unreadable, match="damaged zip"):
        detect(q)
    e = tmp_path / "empty.hwp"
    e.write_bytes(b"")
    with pytest.raises(InputError, match="empty.hwp: empty file"):
        read_documents([e])


def test_unknown_single_file_keeps_the_old_error(tmp_path):
    q = tmp_path / "c.csv"
    q.write_text("id,text\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown corpus format '.csv'"):
        read_documents([q])
