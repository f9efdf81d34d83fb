"""End to end: a folder with one Korean file of each format indexes with one command, each file's
distinctive phrase finds that file first, and citations say where (PDF page, slide, sheet rows)."""
import json
import shutil

from gaji.bench.docgen import write_docx, write_hwpx, write_html, write_pdf, write_pptx, write_xlsx
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


def test_a_folder_with_an_unreadable_file_fails_unless_allowed(tmp_path, capsys):
    root = tmp_path / "docs"
    root.mkdir()
    write_docx(root / "좋은.docx", "문서", [("p", "읽을 수 있는 문서이다.")])
    (root / "깨진.xlsx").write_bytes(b"PK\x03\x04 broken")
    out = tmp_path / "idx"
    assert main(["index", "build", str(root), "--out", str(out), "--no-dense", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "깨진.xlsx" in err and "damaged zip" in err and not out.exists()
    assert main(["index", "build", str(root), "--out", str(out), "--no-dense", "--no-progress", "--skip-bad"]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 unreadable file(s)" in err and "깨진.xlsx" in err
