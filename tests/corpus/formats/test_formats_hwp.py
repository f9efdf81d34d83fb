import shutil
import struct

import pytest

from gaji.bench.docgen import write_hwpx
from gaji.corpus.formats import FORMATS, Unreadable, detect, read_file
from gaji.corpus.readers import read_documents
from gaji.errors import InputError


def test_hwp5_headings_become_sections_and_tables_rows(fixtures):
    docs, _ = read_file(fixtures / "gaji_report.hwp", "gaji_report.hwp", FORMATS["hwp"])
    by_section = {tuple(d.location.section): d for d in docs}
    overview = by_section[("1. 개요",)]
    assert "은하수 물류센터는 세종시 연서면에 있으며" in overview.text
    assert overview.title == "gaji_report › 1. 개요"
    shifts = by_section[("2. 근무 체계", "2.1 교대 근무")]
    assert "조: 야간조 · 근무 시간: 21:00~06:00 · 인원: 18명" in shifts.text.splitlines()
    assert len(shifts.table_rows) == 3  # header + two rows, each kept whole by the chunker
    assert [t for t in (d.location.section for d in docs)] == [
        [], ["1. 개요"], ["2. 근무 체계", "2.1 교대 근무"], ["2. 근무 체계", "2.2 안전 교육"], ["3. 비상 연락"]]


def test_real_hancom_table(fixtures):
    (doc,), _ = read_file(fixtures / "hwplib_table.hwp", "t.hwp", FORMATS["hwp"])
    assert "ABC 123: LMN · DEF: OPQ · GHI: STR" in doc.text.splitlines()


def test_distribution_document_is_decrypted(fixtures):
    docs, _ = read_file(fixtures / "hwplib_distribution.hwp", "d.hwp", FORMATS["hwp"])
    text = "\n".join(d.text for d in docs)
    assert "강남세움센터 시설관리원 용역업체" in text
    assert "배포용 문서입니다" not in text  # not the placeholder text a reader without the key sees
    assert ["1. 입찰에 부치는 사항"] in [d.location.section for d in docs]


def test_sample_with_header_footnote_and_pictures(fixtures):
    docs, _ = read_file(fixtures / "hwp_converter_ai_template.hwp", "s.hwp", FORMATS["hwp"])
    text = "\n".join(d.text for d in docs)
    assert "한글 2005 예제 파일입니다." in text and "이건 각주이지요." in text
    # old Hangul in Hanyang private-use code points becomes conjoining jamo, kept through NFC
    assert "본 문서는 \u1112\u119e\u11ab글 워드 프로세서" in text and "\uf53a" not in text
    docs, _ = read_documents([fixtures / "hwp_converter_ai_template.hwp"])
    assert "\u1112\u119e\u11ab글 워드 프로세서" in "\n".join(d.text for d in docs)


def _set_password_flag(src, dst):
    import olefile

    shutil.copyfile(src, dst)
    with olefile.OleFileIO(str(dst), write_mode=True) as ole:
        fh = bytearray(ole.openstream("FileHeader").read())
        (flags,) = struct.unpack_from("<I", fh, 36)
        struct.pack_into("<I", fh, 36, flags | 0x2)
        ole.write_stream("FileHeader", bytes(fh))


def test_password_protected_hwp_is_refused(fixtures, tmp_path):
    p = tmp_path / "암호.hwp"
    _set_password_flag(fixtures / "gaji_report.hwp", p)
    with pytest.raises(InputError, match="password-protected HWP document") as e:
        read_documents([p])
    assert e.value.path.endswith("암호.hwp")


def test_hwpx_written_by_the_tests(tmp_path):
    p = write_hwpx(tmp_path / "계획.hwpx", "사업 계획", [
        ("h1", "1. 추진 배경"), ("p", "한라산 관측소는 해발 1,950미터에 있다."),
        ("h2", "가. 예산"), ("table", [["부서", "예산"], ["모바일사업부", "48억 원"]]),
    ])
    assert detect(p)[0].name == "hwpx"
    docs, _ = read_file(p, "계획.hwpx", FORMATS["hwpx"])
    by_section = {tuple(d.location.section): d.text for d in docs}
    assert "한라산 관측소는 해발 1,950미터에 있다." in by_section[("1. 추진 배경",)]
    assert "부서: 모바일사업부 · 예산: 48억 원" in by_section[("1. 추진 배경", "가. 예산")]


def test_corrupt_hwp_is_refused(fixtures, tmp_path):
    p = tmp_path / "broken.hwp"
    p.write_bytes((fixtures / "gaji_report.hwp").read_bytes()[:3000])
    with pytest.raises(Unreadable):
        fmt, _ = detect(p)
        read_file(p, "broken.hwp", fmt or FORMATS["hwp"])


def test_numbered_lines_taken_for_headings_keep_their_text():
    from gaji.corpus.formats.base import Block, Parsed, to_documents
    from gaji.types import Location

    blocks = [Block("1. 제출 서류", "heading", 1), Block("다음 서류를 낸다."),
              Block("1) 사업자등록증", "heading", 3), Block("2) 법인 인감증명서", "heading", 3),
              Block("2. 일정", "heading", 1), Block("2.1 접수", "heading", 2), Block("3월에 접수한다.")]
    docs = to_documents(Parsed(blocks), "f.hwp", "공고", Location(file="f.hwp"), "f.hwp")
    text = "\n".join(d.text for d in docs)
    assert "1) 사업자등록증" in text and "2) 법인 인감증명서" in text
    assert [d.location.section for d in docs] == [["1. 제출 서류"], ["2. 일정", "2.1 접수"]]
    assert docs[0].text == "다음 서류를 낸다.\n1) 사업자등록증\n2) 법인 인감증명서"


DUTMAL = ('<hp:p paraPrIDRef="0" styleIDRef="0"><hp:run charPrIDRef="0"><hp:t>이 글은 </hp:t>'
          '<hp:dutmal posType="TOP" szRatio="0" option="0" styleIDRef="0" align="CENTER">'
          '<hp:mainText>訓民正音</hp:mainText><hp:subText>훈민정음</hp:subText></hp:dutmal>'
          '<hp:t>에 관한 것이다.</hp:t></hp:run></hp:p>')
TEXTART = ('<hp:p paraPrIDRef="0" styleIDRef="0"><hp:run charPrIDRef="0">'
           '<hp:textart id="7" text="가지 연구소&#13;&#10;창립 10주년"><hp:sz width="40500" height="16000"/>'
           '<hp:pos treatAsChar="1"/><hp:textartPr fontName="HY견고딕" fontStyle="REGULAR"/></hp:textart>'
           '</hp:run></hp:p>')


def test_hwpx_ruby_and_text_art_are_kept(tmp_path):
    p = write_hwpx(tmp_path / "덧말.hwpx", "덧말 시험", [("xml", DUTMAL), ("xml", TEXTART), ("p", "끝 문단이다.")])
    docs, _ = read_file(p, "덧말.hwpx", FORMATS["hwpx"])
    lines = "\n".join(d.text for d in docs).splitlines()
    assert "이 글은 訓民正音(훈민정음)에 관한 것이다." in lines
    assert "가지 연구소 창립 10주년" in lines and "끝 문단이다." in lines


def test_a_ruby_without_annotation_keeps_its_text(tmp_path):
    xml = DUTMAL.replace("<hp:subText>훈민정음</hp:subText>", "<hp:subText/>")
    p = write_hwpx(tmp_path / "a.hwpx", "t", [("xml", xml)])
    docs, _ = read_file(p, "a.hwpx", FORMATS["hwpx"])
    assert "이 글은 訓民正音에 관한 것이다." in "\n".join(d.text for d in docs).splitlines()
