import pytest

from gaji.corpus.docgen import write_pdf
from gaji.corpus.formats import FORMATS, Unreadable, read_file
from gaji.corpus.readers import read_documents
from gaji.errors import InputError


def test_pages_keep_their_numbers(tmp_path, korean_font):
    p = write_pdf(tmp_path / "보고서.pdf", [["첫째 쪽: 판교 사옥은 7층이다."], ["둘째 쪽: 오로라 프로젝트는 3월에 출시된다."]])
    docs, parsed = read_file(p, "보고서.pdf", FORMATS["pdf"])
    assert [d.id for d in docs] == ["보고서.pdf#page1", "보고서.pdf#page2"]
    assert [d.location.page for d in docs] == [1, 2]
    assert "오로라 프로젝트는 3월에 출시된다" in docs[1].text and "판교" not in docs[1].text
    assert docs[0].location.file == "보고서.pdf" and len(docs[0].location.sha256) == 64
    assert docs[0].location.label() == "보고서.pdf · p. 1"
    assert parsed.units_total == 2


def test_scanned_page_is_reported_not_indexed(tmp_path, korean_font):
    p = write_pdf(tmp_path / "scan.pdf", [["본문이 있는 쪽이다."], [], ["셋째 쪽이다."]], image_pages=[2])
    docs, rep = read_documents([p])
    assert [d.location.page for d in docs] == [1, 3]
    assert all(d.text.strip() for d in docs)
    assert any("no text layer" in n and "p. 2" in n for n in rep.notices)


def test_all_scanned_pdf_is_unreadable(tmp_path, korean_font):
    p = write_pdf(tmp_path / "scan.pdf", [[], []], image_pages=[1, 2])
    with pytest.raises(Unreadable, match="no text layer on any of its 2 page"):
        read_file(p, "scan.pdf", FORMATS["pdf"])


def test_password_protected_pdf_is_refused(tmp_path, korean_font):
    p = write_pdf(tmp_path / "secret.pdf", [["비밀 문서이다."]], password="gaji")
    with pytest.raises(InputError, match="password-protected PDF") as e:
        read_documents([p])
    assert e.value.path.endswith("secret.pdf")


def test_truncated_pdf_is_refused(tmp_path, korean_font):
    good = write_pdf(tmp_path / "good.pdf", [["멀쩡한 문서이다."]])
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(good.read_bytes()[:300])
    with pytest.raises(InputError, match="bad.pdf: .*PDF"):
        read_documents([bad])
