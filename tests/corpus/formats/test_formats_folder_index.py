"""End to end: a folder with one Korean file of each format indexes with one command, each file's
distinctive phrase finds that file first, and citations say where (PDF page, slide, sheet rows)."""
import json
import shutil

from gaji.corpus.docgen import lock_hwp, write_docx, write_hwpx, write_html, write_pdf, write_pptx, write_xlsx
from gaji.cli.main import main
from gaji.index.store import open_index

NAV = ["전자결재", "사내게시판"]
FOOTER = "가지전자 고객센터 1588-0000"

# query -> (file the answer is in, what its location must say)
EXPECT = {
    "두루미 습지 보호구역": ("보고서.pdf", "p. 2"),
    "연서면 하루 평균 상자": ("운영/gaji_report.hwp", "1. 개요"),
    "한라산 관측소 해발": ("계획.hwpx", "1. 추진 배경"),
    "양자 센서 시제품": ("연구.docx", "2. 일정"),
    "반딧불 앱 월간 사용자": ("발표.pptx", "slide 2"),
    "등대사업부 예산": ("예산.xlsx", "rows"),
    "디스크 암호화 점검 분기": ("wiki.html", "보안 점검"),
    "첫 회의 봄": ("메모.md", ""),
}


def _folder(root, fixtures):
    (root / "운영").mkdir(parents=True)
    write_pdf(root / "보고서.pdf", [["1쪽: 연간 보고서의 머리말이다."], ["2쪽: 두루미 습지 보호구역은 철원 평야에 있다."]])
    shutil.copyfile(fixtures / "gaji_report.hwp", root / "운영" / "gaji_report.hwp")
    write_hwpx(root / "계획.hwpx", "사업 계획", [("h1", "1. 추진 배경"), ("p", "한라산 관측소는 해발 1,950미터에 있다.")])
    write_docx(root / "연구.docx", "연구 계획", [("h1", "1. 목표"), ("p", "연구소는 센서를 만든다."),
                                             ("h1", "2. 일정"), ("p", "백두 연구소의 양자 센서 시제품은 11월에 완성된다.")])
    write_pptx(root / "발표.pptx", [("현황", ["올해 목표를 정리했다."], None),
                                   ("성과", ["반딧불 앱의 월간 사용자는 340만 명이다."], None)])
    write_xlsx(root / "예산.xlsx", {"부서별": [["부서", "예산"], ["모바일사업부", "48억 원"], ["등대사업부", "77억 원"]]})
    write_html(root / "wiki.html", "보안 점검", [("h1", "보안 점검"), ("p", "노트북 디스크 암호화 점검은 분기마다 한다.")],
               nav=NAV, footer=FOOTER)
    (root / "메모.md").write_text("# 메모\n\n가지 프로젝트의 첫 회의는 봄에 열렸다.", encoding="utf-8")


def test_folder_of_every_format_indexes_and_cites(tmp_path, fixtures, korean_font, capsys):
    root, out = tmp_path / "문서함", tmp_path / "idx"
    _folder(root, fixtures)
    assert main(["index", "build", str(root), "--out", str(out), "--no-dense", "--no-progress"]) == 0
    assert "documents ->" in capsys.readouterr().out

    for query, (file, where) in EXPECT.items():
        assert main(["index", "search", str(out), query, "--retriever", "bm25", "-k", "3", "--json"]) == 0
        top = json.loads(capsys.readouterr().out.splitlines()[0])
        assert top["location"]["file"] == file, (query, top["id"])
        from gaji.types import Location

        assert where in Location.from_dict(top["location"]).label(), (query, top["location"])
    idx = open_index(out)
    try:
        pdf = [c for c in idx.iter_chunks() if c.location and c.location.file == "보고서.pdf"]
        assert sorted(c.location.page for c in pdf) == [1, 2]
        every = "\n".join(c.title + "\n" + c.text for c in idx.iter_chunks())
        for noise in NAV + [FOOTER, "그룹웨어 홈"]:
            assert noise not in every, noise
    finally:
        idx.close()

    # the search listing shows the place too
    assert main(["index", "search", str(out), "두루미 습지", "--retriever", "bm25", "-k", "1"]) == 0
    assert "(보고서.pdf · p. 2)" in capsys.readouterr().out


def test_a_folder_with_bad_files_indexes_the_good_ones_and_names_the_others(tmp_path, fixtures, capsys):
    root = tmp_path / "docs"
    root.mkdir()
    write_docx(root / "좋은.docx", "문서", [("p", "읽을 수 있는 문서이다.")])
    (root / "메모.md").write_text("# 메모\n\n두 번째 좋은 파일이다.", encoding="utf-8")
    (root / "깨진.xlsx").write_bytes(b"PK\x03\x04 broken")
    (root / "빈.txt").write_bytes(b"")
    lock_hwp(fixtures / "gaji_report.hwp", root / "암호.hwp")
    out = tmp_path / "idx"
    assert main(["index", "build", str(root), "--out", str(out), "--no-dense", "--no-progress"]) == 3
    err = capsys.readouterr().err
    assert "refused 3 file(s) that could not be read" in err and "exit code 3" in err
    assert "깨진.xlsx: " in err and "damaged zip" in err and "빈.txt: empty file" in err
    assert "암호.hwp: password-protected HWP document" in err
    idx = open_index(out)
    try:
        assert sorted({c.doc_id for c in idx.iter_chunks()}) == ["메모.md", "좋은.docx"]
    finally:
        idx.close()

    strict_out = tmp_path / "strict"
    assert main(["index", "build", str(root), "--out", str(strict_out), "--no-dense", "--no-progress", "--strict"]) == 2
    err = capsys.readouterr().err
    assert "3 files could not be read" in err and "암호.hwp" in err and not strict_out.exists()

    # sync: the same list, the same exit code; a clean folder syncs with 0
    assert main(["index", "sync", str(root), "--index", str(out), "--no-progress"]) == 3
    assert "암호.hwp: password-protected" in capsys.readouterr().err
    for name in ("깨진.xlsx", "빈.txt", "암호.hwp"):
        (root / name).unlink()
    assert main(["index", "sync", str(root), "--index", str(out), "--no-progress"]) == 0


def test_skip_bad_is_still_accepted_and_strict_excludes_it(tmp_path, capsys):
    import pytest

    root = tmp_path / "docs"
    root.mkdir()
    write_docx(root / "좋은.docx", "문서", [("p", "읽을 수 있는 문서이다.")])
    (root / "깨진.xlsx").write_bytes(b"PK\x03\x04 broken")
    out = tmp_path / "idx"
    assert main(["index", "build", str(root), "--out", str(out), "--no-dense", "--no-progress", "--skip-bad"]) == 3
    assert "깨진.xlsx" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["index", "build", str(root), "--out", str(out), "--strict", "--skip-bad"])
    assert e.value.code == 2
