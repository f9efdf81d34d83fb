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
