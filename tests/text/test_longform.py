"""Tidying long-form answers: citation marks with their lead-ins, repeated sentences, both languages."""
from __future__ import annotations

from gaji.text.longform import drop_repeated_sentences, strip_citations, tidy_long_answer


def test_strip_citations_removes_marks_runs_and_their_lead_ins():
    assert strip_citations("Paris is the capital [1]. It is large [2, 3].") == "Paris is the capital. It is large."
    assert strip_citations("According to [1] and [2], Paris is large.") == "Paris is large."
    assert strip_citations("As stated in documents [4], it rained.") == "It rained."
    assert strip_citations("Paris, according to [1], is large.") == "Paris, is large."
    assert strip_citations("[1], [2], [3]에 따르면, 갑은 처벌받는다.") == "갑은 처벌받는다."
    assert strip_citations("을은 [2]에 의하면 면책된다 [2].") == "을은 면책된다."
    assert strip_citations("이 조항은 [1]의 내용에 따르면 무효이다.") == "이 조항은 무효이다."
    # numbers that are not marks stay
    assert strip_citations("Article 366 [of the Act] applies; fines up to 7,000,000 won.") == \
        "Article 366 [of the Act] applies; fines up to 7,000,000 won."


def test_drop_repeated_sentences_keeps_the_first_of_each_and_the_line_breaks():
    looped = "갑은 처벌받는다. 을은 면책된다. 갑은 처벌받는다. 을은 면책된다. 갑은 처벌"
    assert drop_repeated_sentences(looped) == "갑은 처벌받는다. 을은 면책된다."
    assert drop_repeated_sentences("It is large.\nIt is LARGE!\nIt is old.") == "It is large.\nIt is old."
    # a last fragment that starts something new is kept
    assert drop_repeated_sentences("It is large. It is old. Also") == "It is large. It is old. Also"
    assert drop_repeated_sentences("") == ""


def test_tidy_long_answer_does_both():
    text = ("대기오염경보는 주의보, 경보, 중대경보로 나뉜다. [1], [2]에 따르면, 대기오염경보는 주의보, 경보, "
            "중대경보로 나뉜다. 대상은 미세먼지이다 [3]. 대기오염경보는 주")
    assert tidy_long_answer(text) == "대기오염경보는 주의보, 경보, 중대경보로 나뉜다. 대상은 미세먼지이다."
