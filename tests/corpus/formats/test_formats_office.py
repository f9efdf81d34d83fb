"""DOCX, PPTX and XLSX written by the tests and read back."""
from gaji.corpus.docgen import write_docx, write_pptx, write_xlsx
from gaji.corpus.chunking import ChunkingConfig, chunk_document
from gaji.corpus.formats import FORMATS, read_file


def test_docx_headings_paragraphs_tables(tmp_path):
    p = write_docx(tmp_path / "규정.docx", "보안 규정", [
        ("h1", "1. 목적"), ("p", "이 규정은 사내 정보 자산을 보호하기 위해 만든다."),
        ("h2", "1.1 적용 범위"), ("p", "모든 임직원과 협력사 직원에게 적용한다."),
        ("table", [["등급", "조치"], ["경미", "재교육 1회"], ["중대", "접속 차단"]]),
        ("h1", "2. 시행"), ("p", "이 규정은 2025년 1월 1일부터 시행한다."),
    ])
    docs, _ = read_file(p, "규정.docx", FORMATS["docx"])
    assert [d.location.section for d in docs] == [["1. 목적"], ["1. 목적", "1.1 적용 범위"], ["2. 시행"]]
    assert docs[1].title == "보안 규정 › 1. 목적 › 1.1 적용 범위"  # the Title paragraph names the document
    assert docs[1].text.splitlines()[-2:] == ["등급: 경미 · 조치: 재교육 1회", "등급: 중대 · 조치: 접속 차단"]
    assert [d.id for d in docs] == ["규정.docx#sec1", "규정.docx#sec2", "규정.docx#sec3"]


def test_pptx_slide_by_slide(tmp_path):
    p = write_pptx(tmp_path / "발표.pptx", [
        ("분기 실적", ["매출은 전년 대비 12% 늘었다.", "신규 고객은 340곳이다."], None),
        ("조직 현황", ["연구소 인원은 58명이다."], [["부서", "인원"], ["연구소", "58명"]]),
    ])
    docs, parsed = read_file(p, "발표.pptx", FORMATS["pptx"])
    assert [(d.id, d.location.slide) for d in docs] == [("발표.pptx#slide1", 1), ("발표.pptx#slide2", 2)]
    assert docs[0].location.section == ["분기 실적"] and "신규 고객은 340곳이다." in docs[0].text
    assert "부서: 연구소 · 인원: 58명" in docs[1].text.splitlines()
    assert docs[1].location.label() == "발표.pptx · slide 2 · 조직 현황"
    assert parsed.units_total == 2


def test_xlsx_rows_repeat_their_header_and_chunks_keep_rows(tmp_path):
    # rows of uneven length holding "sentences": a sentence-aware cut would fall inside some of them
    rows = [["부서", "예산", "비고"]] + [[f"부서{i:02d}", f"{i}억 원", "점검 완료. " * (1 + i % 4) + "보고됨"] for i in range(1, 41)]
    rows[1] = ["모바일사업부", "48억 원", None]
    p = write_xlsx(tmp_path / "예산.xlsx", {"2024년": rows, "빈 시트": []})
    (doc,), parsed = read_file(p, "예산.xlsx", FORMATS["xlsx"])
    assert doc.id == "예산.xlsx#sheet1" and doc.location.sheet == "2024년" and doc.title == "예산 › 2024년"
    lines = doc.text.splitlines()
    assert lines[0] == "1행 · 부서 · 예산 · 비고" and lines[1] == "2행 · 부서: 모바일사업부 · 예산: 48억 원"
    assert [r.row for r in doc.table_rows][:3] == [1, 2, 3]
    chunks = chunk_document(doc, ChunkingConfig(size=150, overlap=0))
    assert len(chunks) > 5
    for c in chunks:  # every chunk is whole rows ("점검. 완료." inside a row is no cut)
        assert all(line in lines for line in c.text.splitlines())
        first, last = c.location.rows
        assert c.text.splitlines()[0] == lines[first - 1] and c.text.splitlines()[-1] == lines[last - 1]
    assert chunks[1].location.label().startswith("예산.xlsx · 2024년 · rows ")


def test_xlsx_row_labels_follow_the_sheet_language(tmp_path):
    p = write_xlsx(tmp_path / "budget.xlsx", {"2024": [["Team", "Budget"], ["Lighthouse", "7.7"]]})
    (doc,), _ = read_file(p, "budget.xlsx", FORMATS["xlsx"])
    assert doc.text.splitlines() == ["row 1 · Team · Budget", "row 2 · Team: Lighthouse · Budget: 7.7"]
