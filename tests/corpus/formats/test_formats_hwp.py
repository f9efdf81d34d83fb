import pytest

from gaji.corpus.docgen import lock_hwp, write_hwpx
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


def test_password_protected_hwp_is_refused(fixtures, tmp_path):
    p = tmp_path / "암호.hwp"
    lock_hwp(fixtures / "gaji_report.hwp", p)
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


def test_hwp5_ruby_is_kept_as_hwpx_keeps_it(fixtures):
    """A real Hancom HWP 5 file whose only paragraph is two 덧말: their text is in the controls' headers, not
    in the paragraph's text, and it read as an empty document."""
    (doc,), _ = read_file(fixtures / "hwplib_dutmal.hwp", "덧말.hwp", FORMATS["hwp"])
    assert doc.text.splitlines()[-1] == "ABC(1234) 가나다라(이것은 덧말이다.)"


def _hwp5_paragraph(text_units: list[int], *controls: bytes) -> list[tuple[int, int, bytes]]:
    """A paragraph's records: PARA_HEADER, PARA_TEXT (the given UTF-16 units) and its controls' CTRL_HEADERs."""
    import struct

    return [(66, 0, b"\0" * 24), (67, 1, struct.pack(f"<{len(text_units)}H", *text_units)),
            *((71, 1, c) for c in controls)]


def _dutmal_char() -> list[int]:
    return [23, 0x7574, 0x7464, 0, 0, 0, 0, 23]  # the extended control character, id "tdut" inside


def _dutmal_ctrl(main: str, sub: str) -> bytes:
    import struct

    def s(t):
        return struct.pack("<H", len(t)) + t.encode("utf-16-le")
    return b"tudt" + s(main) + s(sub) + b"\0" * 20


def test_hwp5_ruby_records_in_place_and_in_order():
    from syhwp._hwp5 import decode_para_text

    from gaji.corpus.formats.hwp5_objects import dutmal_text, with_dutmal_text

    before = [ord(c) for c in "이 글은 "]
    after = [ord(c) for c in "에 관한 것이다."]
    records = _hwp5_paragraph(before + _dutmal_char() + after + _dutmal_char() + [13],
                              _dutmal_ctrl("訓民正音", "훈민정음"), _dutmal_ctrl("世宗", ""))
    out = with_dutmal_text(records)
    assert decode_para_text(out[1][2]) == "이 글은 訓民正音(훈민정음)에 관한 것이다.世宗\n"
    assert out[0] == records[0] and out[2:] == records[2:]
    assert dutmal_text(b"tudt\xff\x00") == ""  # a count past the payload's end: what is there, no error
    # a 덧말 character whose control is missing (a damaged file) is skipped as before
    lone = with_dutmal_text(_hwp5_paragraph(before + _dutmal_char()))
    assert decode_para_text(lone[1][2]) == "이 글은 "


def test_real_government_rfp_sections(fixtures):
    """A real 제안요청서 (국가데이터처, HWPX): numbered lines that are values, form fields or table-of-contents
    entries stay text; the numbered titles start sections, nested as the document nests them."""
    docs, _ = read_file(fixtures / "gov_rfp_synthetic_data.hwpx", "rfp.hwpx", FORMATS["hwpx"])
    by_section = {tuple(d.location.section): d.text for d in docs}
    titles = [t for d in docs for t in d.location.section]
    assert "ㅇ 예산액 : 261,000천원(부가세포함)" in by_section[("6. 소요예산",)].splitlines()
    assert not [t for t in titles if ":" in t]  # "2. 추진일정 : 계약체결일로부터 12월 18일" was a title
    assert "2. 추진일정 : 계약체결일로부터 12월 18일" in by_section[("1. 추진체계",)]
    assert "Ⅳ. 행정사항 7" not in titles and "3. 과제수행계획서 서식 19" not in titles  # the table of contents
    assert ("Ⅱ. 제안 연구기관 현황", "1. 일반현황") in by_section  # Ⅰ. > 1. > 가.
    assert ("Ⅲ. 제안 내용", "3. 과제 수행조직 및 업무분장", "가. 수행조직") in by_section
    assert len(docs) == 37  # 44 before these rules (benchmarks/documents/NOTES.md)


def test_real_bid_notice_drawn_as_a_layout_table(fixtures):
    """A real 조달청 bid notice (HWP) laid out as one 278 x 31 table: its lines are read as text, so its
    numbered titles are sections and its "label: value" lines stay whole."""
    docs, _ = read_file(fixtures / "pps_bid_notice.hwp", "notice.hwp", FORMATS["hwp"])
    by_section = {tuple(d.location.section): d.text for d in docs}
    assert "○ 추정가격: 50,250,000,000원(부가가치세 제외)" in by_section[("1. 입찰개요",)].splitlines()
    assert ("5. (입찰, 계약, 하자보수) 보증금 납부", "1) 입찰보증금") in by_section
    assert [d.location.section[0] for d in docs if len(d.location.section) == 1][:3] == [
        "1. 입찰개요", "2. 입찰(개찰) 일시 및 장소", "3. 입찰참가자격"]
    assert all(not d.table_rows for d in docs)  # no "우편번호:: ○ · 추정가격: · …" rows any more


@pytest.mark.parametrize("line, level", [
    ("1. 개요", 5), ("2.1 교대 근무", 6), ("가. 추진 배경", 8), ("Ⅱ. 현황", 3), ("제3장 결론", 2), ("(1) 대상", 10),
    ("1) 사업자등록증", 9), ("1. 입찰참가자격(하기 조건 모두 충족해야 함)", 5), ("라. 업무 책임", 8),
    ("마. 소요예산: 270,000,000원", 0), ("3. 발주자명 :", 0), ("Ⅳ. 행정사항 7", 0), ("9. 계약조건31", 0),
    ("1) 계약상대자는 보안사고 위험요인을 식별하여 대응방안을 제안하여야 함", 0), ("2) 해당 없음", 0),
    ("1. 발주자 및 구성원 전원이 동의하는 경우", 0), ("3) 입찰자는 제출한다", 0),
    ("사. 제안서의 내용을 객관적으로 입증할 수 있는 관련 자료는 제안서의 별첨으로 제출", 0),
])
def test_numbered_heading_rule(line, level):
    from gaji.corpus.formats.base import numbered_heading_level

    assert numbered_heading_level(line) == level
