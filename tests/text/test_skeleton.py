"""Question skeletons: names masked as X in English and Korean, structure kept."""
from __future__ import annotations

import pytest

from gaji.text import skeleton as sk
from gaji.text.skeleton import skeleton


@pytest.mark.parametrize("question, expected", [
    ("Who was born first, Park Chan-wook or Bong Joon-ho?", "Who was born first, X or X?"),
    ("Are Nintendo and Sony both Japanese companies?", "Are X and X both X companies?"),
    ("In which city was the director of the film Parasite born?", "In which city was the director of the film X born?"),
    ('Who was the main vocal of "Set the Fire to the Third Bar"?', "Who was the main vocal of X?"),
    ("Is the Bank of America older than Leonardo da Vinci?", "Is the X older than X?"),
    ("Pyotr Verzilov is married to whom?", "X is married to whom?"),  # a name as the first word is masked too
    ("The Havanese and the Black Mouth Cur are both which kind of animal?",
     "The X and the X are both which kind of animal?"),
    ("What happened in the 1992-93 season?", "What happened in the X season?"),
])
def test_english_names_are_masked(question, expected):
    assert skeleton(question, "en") == expected


def test_korean_names_are_masked_with_kiwi():
    pytest.importorskip("kiwipiepy")
    assert skeleton("박찬욱과 봉준호 중 누가 먼저 태어났나요?") == "X과 X 중 누가 먼저 태어났나요?"
    assert skeleton("영화 『기생충』 감독이 태어난 도시는 어디인가요?") == "영화 X 감독이 태어난 도시는 어디인가요?"
    assert skeleton("갤럭시 S24랑 아이폰 15 중 어느 폰이 더 큰가요?") == "X랑 X 중 어느 폰이 더 큰가요?"


def test_korean_without_kiwi_masks_latin_names_and_titles(monkeypatch):
    monkeypatch.setattr(sk, "_kiwi_name_spans", lambda text: None)
    assert skeleton("BMW i5랑 가격이 비슷한 『전기차』는?", "ko") == "X랑 가격이 비슷한 X는?"
