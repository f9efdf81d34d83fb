"""The seven passage compositions of paper 001, Table 7."""
import pytest

from gaji.errors import ConfigError
from gaji.expand.compose import CASES, DEFAULT_CASE, check_case, compose, lexical_text
from gaji.types import Chunk

CHUNK = Chunk(id="c", doc_id="c", title="경복궁", text="경복궁은 1395년에 지어졌다.", lang="ko")
EXP = {"title": "경복궁의 창건", "questions": ["경복궁은 언제 지어졌나?", "누가 지었나?", "어디에 있나?"]}
C = "경복궁\n경복궁은 1395년에 지어졌다."
Q = "경복궁은 언제 지어졌나? 누가 지었나? 어디에 있나?"
T = "경복궁의 창건"


@pytest.mark.parametrize(
    "case, expected",
    [
        ("case1", f"<s> {C} </s>"),
        ("case2", f"<s> {T} </s>"),
        ("case3", f"<s> {Q} </s>"),
        ("case4", f"<s> {T} </s> {Q} </s> {C} </s>"),
        ("case5", f"<s> {Q} </s> {T} </s> {C} </s>"),
        ("case6", f"<s> {Q} </s> {C} </s>"),
        ("case7", f"<s> {T} </s> {C} </s>"),
    ],
)
def test_all_seven_cases(case, expected):
    assert compose(case, CHUNK, EXP) == expected


def test_expansion_read_from_chunk_metadata_and_fallback():
    with_meta = Chunk(id="c", doc_id="c", title="경복궁", text=CHUNK.text, metadata={"expansion": EXP})
    assert compose("case6", with_meta) == f"<s> {Q} </s> {C} </s>"
    # no expansion (generation failed): the chunk alone, whatever the case
    assert compose("case2", CHUNK) == f"<s> {C} </s>"
    no_title = Chunk(id="d", doc_id="d", text="plain text")
    assert compose("case1", no_title) == "<s> plain text </s>"


def test_lexical_text_has_the_items_without_delimiters():
    assert lexical_text("case4", CHUNK, EXP) == f"{T}\n{Q}\n{C}"
    assert "<s>" not in lexical_text("case6", CHUNK, EXP)


def test_case_names():
    assert set(CASES) == {f"case{i}" for i in range(1, 8)} and DEFAULT_CASE in CASES
    assert check_case("6") == "case6" and check_case("CASE3") == "case3"
    with pytest.raises(ConfigError, match="case8"):
        check_case("case8")
