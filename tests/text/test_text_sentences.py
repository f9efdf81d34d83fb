"""Sentence splitting (gaji.text.sentences): Korean and English rules, spans into the original text."""
from gaji.text.sentences import sentence_spans, split_sentences


def test_korean_endings_and_punctuation():
    text = "첫 문장이다. 두 번째는 질문인가요? 세 번째요! 마지막이에요."
    assert split_sentences(text) == ["첫 문장이다.", "두 번째는 질문인가요?", "세 번째요!", "마지막이에요."]


def test_korean_ending_without_space():
    assert split_sentences("비가 왔다.그리고 그쳤다.") == ["비가 왔다.", "그리고 그쳤다."]


def test_english_abbreviations_and_initials_do_not_split():
    text = "Stephen R. Covey wrote it in 2004. Mr. Smith went to Washington, D.C. in 2001. It cost 3.5 dollars."
    assert split_sentences(text) == [
        "Stephen R. Covey wrote it in 2004.",
        "Mr. Smith went to Washington, D.C. in 2001.",
        "It cost 3.5 dollars.",
    ]


def test_quotes_after_terminator_stay_with_sentence():
    assert split_sentences('He said "Stop." Then he left.') == ['He said "Stop."', "Then he left."]


def test_newlines_split_and_spans_are_exact_slices():
    text = "  제목\n\n본문 첫 줄이다. Second line here\n끝"
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["제목", "본문 첫 줄이다.", "Second line here", "끝"]
    assert all(not text[s].isspace() and not text[e - 1].isspace() for s, e in spans)


def test_empty_and_unterminated():
    assert sentence_spans("") == []
    assert sentence_spans("   \n ") == []
    assert split_sentences("no terminator") == ["no terminator"]


class _CountingStr(str):
    """A str that adds up the characters copied by slicing it."""

    copied = 0

    def __getitem__(self, key):
        out = str.__getitem__(self, key)
        if isinstance(key, slice):
            _CountingStr.copied += len(out)
        return out


def _copied(text: str) -> int:
    _CountingStr.copied = 0
    spans = sentence_spans(_CountingStr(text))
    assert spans and spans == sentence_spans(text)
    return _CountingStr.copied


def test_splitting_a_long_text_copies_a_linear_amount_of_it():
    # (a slice of the rest of the text per period made a 4 MB document take seconds, quadratically)
    for unit in ("Dr. Kim met Mr. Lee at 3 p.m. in the U.S. office. They talked about e.g. the plan. ",
                 "그는 말했다. 그리고 떠났다.그리고 돌아왔다! 정말? ",
                 "x" * 300 + ". Then a word. " + "가" * 300 + "다.나" * 50):  # long runs without spaces
        once, twice = _copied(unit * 500), _copied(unit * 1000)
        assert twice <= 2.1 * once, (once, twice)
