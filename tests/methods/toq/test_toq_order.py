"""Order hints for comparison nodes: date/number parsing, item names, the hint line, and its use in the tree."""
import pytest
from toq_helpers import OverlapRetriever, make_ctx, routed_llm, scores

from gaji.methods.toq.method import ToQ
from gaji.methods.toq.order import item_label, order_hint, parse_date, parse_number


@pytest.mark.parametrize("text, expected", [
    ("1896", (1896, 0, 0)),
    ("8 October 1985", (1985, 10, 8)),
    ("August 24, 1972", (1972, 8, 24)),
    ("21 July – 10 August 1944", (1944, 7, 21)),  # a range: its first day and month, the range's year
    ("It was first published in 1896.", (1896, 0, 0)),
    ("1985-10-08", (1985, 10, 8)),
    ("1985년 10월 8일", (1985, 10, 8)),
    ("1989년", (1989, 0, 0)),
    ("500 BC", None),
    ("기원전 500년", None),
    ("unknown", None),
    ("Paris", None),
])
def test_parse_date(text, expected):
    assert parse_date(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("2,950,000", 2950000.0), ("3.4 million", 3.4e6), ("about 120 people", 120.0), ("3만 명", 30000.0),
    ("1.2억 원", 1.2e8), ("none", None), ("the 12th", None), ("the 3rd of 5", None),
    ("The 7 Habits of Highly Effective People", None), ("Apollo 11 was the first crewed landing", None),
])
def test_parse_number(text, expected):
    assert parse_number(text) == pytest.approx(expected) if expected is not None else parse_number(text) is None


def test_item_label_is_the_part_only_this_child_shares_with_the_parent():
    parent = "Which women's magazine was published first, Mirabella or Home Monthly?"
    a, b = "When was Mirabella published?", "When was the magazine Home Monthly published?"
    assert item_label(a, parent, [b]) == "Mirabella"
    assert item_label(b, parent, [a]) == "Home Monthly"
    assert item_label("미라벨라는 언제 창간되었나?", "미라벨라와 홈 먼슬리 중 먼저 창간된 잡지는?",
                      ["홈 먼슬리는 언제 창간되었나?"]) == "미라벨라"
    assert item_label("When was it made?", parent, [a]) == ""  # names nothing of the parent


def test_order_hint_english_korean_numbers_and_refusals():
    parent = "Who was born first, Am Rong or Ava DuVernay?"
    kids = [("When was Am Rong born?", "1929"), ("When was Ava DuVernay born?", "August 24, 1972")]
    assert order_hint(parent, kids[::-1], "en") == \
        "In time order, earliest first: Am Rong (1929), Ava DuVernay (August 24, 1972)."
    ko = order_hint("미라벨라와 홈 먼슬리 중 먼저 창간된 잡지는?",
                    [("미라벨라는 언제 창간되었나?", "1989년"), ("홈 먼슬리는 언제 창간되었나?", "1896년")], "ko")
    assert ko == "시간 순서(이른 것부터): 홈 먼슬리 (1896년), 미라벨라 (1989년)."
    nums = order_hint("Which city has more people, Busan or Incheon?",
                      [("What is the population of Busan?", "3.4 million"),
                       ("What is the population of Incheon?", "2,950,000")], "en")
    assert nums == "In order of size, smallest first: Incheon (2,950,000), Busan (3.4 million)."
    # not every answer a date or a number, one child only, or an item not named: no hint
    assert order_hint(parent, [kids[0], ("When was Ava DuVernay born?", "unknown")], "en") == ""
    assert order_hint(parent, kids[:1], "en") == ""
    assert order_hint(parent, [kids[0], ("When was she born?", "1972")], "en") == ""
    # a tie orders nothing; titles that hold a number are no quantities
    assert order_hint(parent, [kids[0], ("When was Ava DuVernay born?", "1929")], "en") == ""
    assert order_hint("Steven Covey, the father of Sean Covey, wrote what similar title to The 7 Habits of Teens?",
                      [("What is the title of the book by Steven Covey?", "The 7 Habits of Highly Effective People"),
                       ("What is the title of the book by Sean Covey?", "The 7 Habits of Highly Effective Teens")],
                      "en") == ""
    # a date next to a non-date is never compared as numbers ("7 November 1435" vs "the late 12th century")
    assert order_hint("When was the palace founded at which Columba de Dunbar died in 1435?",
                      [("When did Columba de Dunbar die?", "7 November 1435"),
                       ("When was the palace founded?", "The palace was founded in the late 12th Century")], "en") == ""


DOCS = [
    ("mir", "Mirabella", "Mirabella was a women's magazine first published in 1989."),
    ("home", "Home Monthly", "Home Monthly was a women's magazine first published in 1896."),
]
Q = "Which women's magazine was published first, Mirabella or Home Monthly?"


def comparison_handlers(seen):
    def plain(u):
        if "Answers to sub-questions" in u:
            seen.append(u)
            return "Home Monthly"
        return "1989" if "Mirabella published" in u else "1896"

    return {
        "decompose": lambda u: {"type": "comparison", "subquestions": [
            {"question": "When was Mirabella published?", "each": False},
            {"question": "When was Home Monthly published?", "each": False}]},
        "query": lambda u: "magazine",
        "integrate": lambda u: {"relevance": "relevant", "answer_span": "first published"},
        "answer_plain": plain,
        "evaluate": lambda u: scores(True),
    }


@pytest.mark.parametrize("on", [True, False])
def test_comparison_node_gets_the_hint_only_when_the_option_is_on(on):
    seen = []
    t = ToQ(k=2, evaluate_root=False, order_hints=on).run(Q, make_ctx(routed_llm(comparison_handlers(seen)),
                                                                       OverlapRetriever(DOCS)))
    assert t.answer == "Home Monthly" and len(seen) == 1
    hint = "In time order, earliest first: Home Monthly (1896), Mirabella (1989)."
    assert (hint in seen[0]) is on
    assert t.root.data.get("order_hint") == (hint if on else None)
