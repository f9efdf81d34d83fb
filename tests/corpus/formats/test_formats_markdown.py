import doctest

from gaji.corpus.formats import markdown
from gaji.corpus.formats.markdown import markdown_sections, title_heading


def test_headings_nest_and_code_fences_hide_hash_lines():
    text = "intro\n\n# A\na body\n\n```\n# not a heading\n    code\n```\n## A1\n## A2\na2 body\n# B\n"
    assert markdown_sections(text) == [
        ([], "intro"),
        (["A"], "a body\n\n```\n# not a heading\n    code\n```"),
        (["A"], "## A1"),  # no text and no subheading: its line is kept
        (["A", "A2"], "a2 body"),
        ([], "# B"),
    ]


def test_the_title_heading_is_not_a_section():
    assert title_heading("\n# 제목 #\n본문") == "제목"
    assert title_heading("본문\n# 제목") == ""
    assert markdown_sections("# 제목\n\n본문이다.") == [([], "본문이다.")]
    assert markdown_sections("####### seven hashes is text\n#no-space is text") == [
        ([], "####### seven hashes is text\n#no-space is text")]


def test_docstring_example():
    assert doctest.testmod(markdown).failed == 0
