import doctest

from gaji.corpus import rowcite
from gaji.corpus.rowcite import answer_row, narrow_to_answer, row_lines, row_prefix
from gaji.types import Location, Passage

SHEET = ("1행 · 부서 · 예산 · 담당\n2행 · 부서: 모바일사업부 · 예산: 48억 원 · 담당: 김\n"
         "3행 · 부서: 등대사업부 · 예산: 77억 원 · 담당: 이\n4행 · 부서: 반딧불사업부 · 예산: 48억 원 · 담당: 박")


def _passage(rows=(1, 4)):
    return Passage("b.xlsx#sheet1", "b.xlsx#sheet1", SHEET, location=Location(file="b.xlsx", sheet="예산", rows=list(rows)))


def test_prefixes_and_lines():
    assert row_prefix(12, "부서 예산") == "12행 · " and row_prefix(12, "Team Budget") == "row 12 · "
    assert [r for r, _ in row_lines(SHEET)] == [1, 2, 3, 4]
    assert row_lines("row 7 · Team: A\nno label here") == [(7, "row 7 · Team: A")]


def test_the_row_holding_the_answer():
    assert answer_row(SHEET, "77억 원") == 3
    assert answer_row(SHEET, "77억원") == 3  # spacing does not matter
    assert answer_row(SHEET, "48억 원", "반딧불사업부의 예산은?") == 4  # two rows hold it: the question decides
    assert answer_row(SHEET, "48억 원", "예산이 얼마야?") is None  # a tie: no row is named
    assert answer_row(SHEET, "99억 원") is None


def test_a_cited_passage_names_its_row():
    p = _passage()
    q = narrow_to_answer(p, "77억 원", "등대사업부 예산은?")
    assert q.location.rows == [3, 3] and q.location.label() == "b.xlsx · 예산 · row 3"
    assert p.location.rows == [1, 4]  # the original is not changed
    assert narrow_to_answer(p, "없는 값") is p
    assert narrow_to_answer(_passage((3, 3)), "48억 원").location.rows == [3, 3]  # one row already


def test_docstring_example():
    assert doctest.testmod(rowcite).failed == 0
