from gaji.corpus.docgen import write_html
from gaji.corpus.formats import FORMATS, read_file
from gaji.corpus.formats.html import read_html

NAV = ["전자결재", "사내게시판", "복리후생안내"]
ITEMS = [
    ("h1", "정기 보안 점검 절차"),
    ("p", "정보보안팀은 매 분기 첫째 주 수요일에 노트북의 디스크 암호화 상태를 점검한다."),
    ("h2", "위반 시 조치"),
    ("table", [["등급", "조치"], ["경미", "재교육 1회"], ["중대", "접속 차단 및 경위서 제출"]]),
]


def test_main_content_only(tmp_path):
    p = write_html(tmp_path / "wiki.html", "사내 위키 - 보안 점검", ITEMS, nav=NAV, footer="가지전자 고객센터 1588-0000")
    docs, _ = read_file(p, "wiki.html", FORMATS["html"])
    text = "\n".join(d.text + "\n" + d.title for d in docs)
    assert "디스크 암호화 상태를 점검한다" in text
    assert "등급: 중대 · 조치: 접속 차단 및 경위서 제출" in text
    for noise in NAV + ["그룹웨어 홈", "고객센터", "추적", "바로가기", "홈 >"]:
        assert noise not in text, noise
    assert docs[-1].location.section == ["정기 보안 점검 절차", "위반 시 조치"]
    assert docs[0].title == "사내 위키 - 보안 점검 › 정기 보안 점검 절차"


def test_euc_kr_page(tmp_path):
    p = write_html(tmp_path / "old.htm", "옛 공지", [("p", "구형 인트라넷 페이지도 읽는다.")], encoding="euc-kr")
    (doc,), _ = read_file(p, "old.htm", FORMATS["html"])
    assert doc.text == "구형 인트라넷 페이지도 읽는다."


def test_page_without_landmarks_reads_body_and_drops_scripts():
    parsed = read_html("<html><body><div class='x'>본문 첫 줄<br>둘째 줄</div><script>var a='스크립트';</script>"
                       "<style>.y{}</style></body></html>")
    assert [b.text for b in parsed.blocks] == ["본문 첫 줄", "둘째 줄"]
