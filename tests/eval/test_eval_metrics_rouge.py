import random

import pytest

from gaji.eval.metrics.rouge import lcs_length, rouge_l, rouge_l_tokens, tokenize, tokenize_fallback


def lcs_dp(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def test_bit_parallel_lcs_matches_dynamic_programming():
    rng = random.Random(3)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        assert lcs_length(a, b) == lcs_dp(a, b)


def test_rouge_l_hand_case():
    # LCS(the cat sat on the mat, the cat is on the mat) = the cat on the mat = 5 of 6 each side
    assert rouge_l("the cat sat on the mat", ["the cat is on the mat"]) == pytest.approx(5 / 6)
    assert rouge_l_tokens(["a", "b"], ["c"]) == 0.0
    assert rouge_l("The cat.", ["the CAT"]) == 1.0


def test_rouge_l_max_over_references_and_none():
    assert rouge_l("the cat", ["a dog", "the cat"]) == 1.0
    assert rouge_l("x", []) is None
    assert rouge_l("", ["the cat"]) == 0.0


def test_korean_tokenisation_separates_particles():
    toks = tokenize("법원은 판결을 내렸다.")
    assert "법원" in toks and "판결" in toks and "." not in toks
    # particles differ but content morphemes match -> high, not zero as with whole words
    assert rouge_l("법원은 판결을 내렸다", ["법원이 판결을 내렸다"]) > 0.7


def test_fallback_splits_hangul_words_into_syllables():
    assert tokenize_fallback("법원은 BMW i5") == ["법", "원", "은", "bmw", "i5"]
    assert tokenize("법원은", use_kiwi=False) == ["법", "원", "은"]


def test_long_answers_are_fast():
    a = ("word%d " * 600) % tuple(range(600))
    assert rouge_l(a, [a]) == 1.0
