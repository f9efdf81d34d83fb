"""The answer-shape regression set (span_cases.jsonl): real model replies, from the issue and from the
benchmark traces in benchmarks/results, with the answer a reader should see. A span is cut only when a
clean one exists; otherwise the sentence itself is the answer, never a piece of it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaji.methods.common import plain_answer
from gaji.methods.span import is_fragment, is_sentence, shape_answer

CASES = [json.loads(line) for line in (Path(__file__).parent / "span_cases.jsonl").read_text("utf-8").splitlines()
         if line.strip()]


def test_the_set_covers_korean_english_and_the_issue():
    langs = [c["lang"] for c in CASES]
    assert langs.count("ko") >= 25 and langs.count("en") >= 8
    assert sum(c["source"] == "issue 42" for c in CASES) >= 4
    assert sum(c["source"].startswith("benchmarks/results/") for c in CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['lang']}" for i, c in enumerate(CASES)])
def test_the_shown_answer_is_clean(case):
    shaped = shape_answer(plain_answer(case["reply"]), case["question"], [], case["lang"])
    assert shaped.answer == case["answer"]
    # a piece of a sentence is never shown alone: either a clean span, or the sentence whole
    assert not is_fragment(shaped.answer) or is_sentence(shaped.answer, case["lang"])
    if shaped.explanation:  # the supporting sentence holds the answer it explains
        assert shaped.answer.replace(" ", "") in shaped.explanation.replace(" ", "")


def test_fragments_are_told_apart_from_answers():
    for piece in ("정할", "든 영화", "것", "경장사업(更張事業", "작성했어? 총무팀"):
        assert is_fragment(piece), piece
    for answer in ("총무팀", "매년 4월 셋째 주 목요일", "한지호", "2006년", "드라마 《아이리스》", "Battle of Guam"):
        assert not is_fragment(answer), answer
