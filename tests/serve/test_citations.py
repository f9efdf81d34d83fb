"""Units of what a chat client is shown (gaji/serve/citations.py) and of the signed passage links."""
from __future__ import annotations

import pytest

from gaji.serve.chat import ChatMessage, conversation
from gaji.serve.citations import Source, answer_of_shown, place_label, render
from gaji.serve.passage_links import BadLink, secret_for, sign, verify
from gaji.types import Location


@pytest.mark.parametrize("loc, lang, label", [
    (Location(file="docs/안전점검_보고서.pdf", page=3, section=["2. 점검 결과"]), "ko", "안전점검_보고서.pdf, 3쪽 · 2. 점검 결과"),
    (Location(file="slides.pptx", slide=4), "en", "slides.pptx, slide 4"),
    (Location(file="slides.pptx", slide=4), "ko", "slides.pptx, 슬라이드 4"),
    (Location(file="budget.xlsx", sheet="Sheet1", rows=[12, 12]), "en", "budget.xlsx, Sheet1 row 12"),
    (Location(file="budget.xlsx", sheet="부서별", rows=[2, 5]), "ko", "budget.xlsx, 부서별 2–5행"),
    (Location(file="규정.hwp", section=["제3장", "근무"]), "ko", "규정.hwp · 제3장 › 근무"),
    (None, "en", "Battle of Guam"),
])
def test_labels_name_the_file_and_the_place_a_person_reads(loc, lang, label):
    assert place_label(loc, "Battle of Guam", lang) == label


def test_the_text_starts_with_what_was_streamed_and_marks_each_source():
    srcs = [Source(1, "보고서.pdf, 3쪽", "http://h/passage/a"), Source(2, "표.xlsx, Sheet1 12행", "http://h/passage/b")]
    lead = "정기 점검은 매년 4월 셋째 주 목요일에 합니다."
    r = render(lead, "매년 4월 셋째 주 목요일", "", srcs, "ko")
    assert r.content.startswith(lead + " [1][2]\n\n**답:** 매년 4월 셋째 주 목요일\n\n**출처**\n")
    assert "[1] [보고서.pdf, 3쪽](http://h/passage/a)" in r.content
    spans = [(a["url_citation"]["start_index"], a["url_citation"]["end_index"]) for a in r.annotations]
    assert [r.content[a:b] for a, b in spans] == ["[1]", "[2]"]
    assert all(a["type"] == "url_citation" and a["url_citation"]["url"].startswith("http://h/") for a in r.annotations)
    # the block can be left out: the markers and annotations stay
    bare = render(lead, "매년 4월 셋째 주 목요일", "", srcs, "ko", sources_block=False)
    assert "**출처**" not in bare.content and bare.annotations == r.annotations


def test_a_draft_the_answer_replaced_is_not_shown_above_it():
    """auto streams its one-retrieval reply, then may overrule it ("박형식이 먼저 태어났습니다" -> 승리, from the two
    birth dates compared by code): the text starts with the answer, not with the draft it contradicts."""
    srcs = [Source(1, "박형식", "http://h/passage/a"), Source(2, "승리", "http://h/passage/b")]
    hint = "시간 순서(이른 것부터): 승리 (1990년 12월 12일), 박형식 (1991년 11월 16일)."
    r = render("박형식이 먼저 태어났습니다.", "승리", hint, srcs, "ko")
    assert r.content.startswith("승리 [1][2]\n\n근거: 시간 순서") and "박형식이 먼저" not in r.content
    assert answer_of_shown(r.content) == "승리"


def test_a_short_reply_gets_its_supporting_sentence():
    r = render("1446년", "1446년", "훈민정음은 1446년에 반포되었다.", [], "ko")
    assert r.content == "1446년\n\n근거: 훈민정음은 1446년에 반포되었다."
    assert answer_of_shown(r.content) == "1446년"


def test_a_reply_gaji_showed_comes_back_as_its_short_answer():
    shown = render("The Battle of Guam came first.", "Battle of Guam", "", [Source(1, "guam.pdf, p. 2", "u")], "en")
    assert answer_of_shown(shown.content) == "Battle of Guam"
    assert answer_of_shown("Battle of Manila\n\n↻ " + shown.content, "\n\n↻ ") == "Battle of Guam"
    assert answer_of_shown("just text from another server") == "just text from another server"
    q, turns = conversation([ChatMessage(role="user", content="Which came first?"),
                             ChatMessage(role="assistant", content=shown.content),
                             ChatMessage(role="user", content="When did it end?")])
    assert q == "When did it end?" and turns[0].answer == "Battle of Guam"


def test_links_are_signed_and_name_no_path():
    secret = secret_for("key")
    token = sign(secret, "demo", "보고서.pdf#page3")
    assert verify(secret, token) == ("demo", "보고서.pdf#page3")
    assert secret_for("key") == secret  # the same key signs the same links after a restart
    payload, _, mac = token.partition(".")
    forged = sign(secret_for("other"), "demo", "../../etc/passwd")
    for bad in (forged, payload + "." + mac[::-1], "nonsense", payload):
        with pytest.raises(BadLink):
            verify(secret, bad)
