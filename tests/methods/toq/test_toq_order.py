"""Order hints for comparison nodes: date/number parsing, item names, the hint line, the comparison decided by
code, and their use in the tree."""
import doctest

import pytest
from toq_helpers import OverlapRetriever, make_ctx, routed_llm, scores

from gaji.methods.toq import order
from gaji.methods.toq.method import ToQ
from gaji.methods.toq.order import Order, decide, item_label, named_as_items, order_hint, ordered, parse_date, parse_number


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
    # order_decide off: the reader answers the comparison, with the hint in its prompt when the option is on
    t = ToQ(k=2, evaluate_root=False, order_hints=on, order_decide=False).run(
        Q, make_ctx(routed_llm(comparison_handlers(seen)), OverlapRetriever(DOCS)))
    assert t.answer == "Home Monthly" and len(seen) == 1
    hint = "In time order, earliest first: Home Monthly (1896), Mirabella (1989)."
    assert (hint in seen[0]) is on
    assert t.root.data.get("order_hint") == (hint if on else None)


def test_ordered_gives_the_items_in_order_with_their_kind():
    o = ordered("Which city has more people, Busan or Incheon?",
                [("What is the population of Busan?", "3.4 million"),
                 ("What is the population of Incheon?", "2,950,000")])
    assert o == Order("number", (("Incheon", "2,950,000"), ("Busan", "3.4 million")), (2950000.0, 3.4e6))
    assert o.hint("ko") == "크기 순서(작은 것부터): Incheon (2,950,000), Busan (3.4 million)."
    assert ordered("Who was born first, A1 or B2?", [("When was A1 born?", "1929")]) is None
    with pytest.raises(AttributeError):  # frozen: the order a decision rests on cannot change under it
        o.kind = "date"


def test_module_examples():
    assert doctest.testmod(order).failed == 0


KO_Q = "박형식과 승리 중 누가 먼저 태어났나?"
KO_KIDS = [("박형식은 언제 태어났나요?", "1990년 11월 16일"), ("승리는 언제 태어났나요?", "1990년 12월 12일")]


def test_decide_korean_birth_order():
    assert item_label(KO_KIDS[1][0], KO_Q, [KO_KIDS[0][0]]) == "승리"  # the particle 는 is not part of the name
    d = decide(KO_Q, KO_KIDS, "ko")
    assert (d.answer, d.kind, d.direction) == ("박형식", "date", "min")
    assert d.hint == "시간 순서(이른 것부터): 박형식 (1990년 11월 16일), 승리 (1990년 12월 12일)."
    assert d.to_dict() == {"answer": "박형식", "kind": "date", "direction": "min", "hint": d.hint}
    later = decide("박형식과 승리 중 누가 더 늦게 태어났나?", KO_KIDS[::-1], "ko")
    assert later.answer == "승리" and later.direction == "max"
    nums = decide("인천과 부산 중 인구가 더 많은 도시는?",
                  [("인천의 인구는 얼마인가?", "295만 명"), ("부산의 인구는 얼마인가?", "340만 명")], "ko")
    assert nums.answer == "부산" and nums.kind == "number"


def test_decide_english_dates_and_numbers():
    kids = [("When was Mirabella published?", "1989"), ("When was Home Monthly published?", "1896")]
    assert decide("Which women's magazine was published first, Mirabella or Home Monthly?", kids, "en").answer \
        == "Home Monthly"
    assert decide("Which of Mirabella and Home Monthly was published more recently?", kids, "en").answer \
        == "Mirabella"
    three = [("What is the population of Busan?", "3.4 million"), ("What is the population of Incheon?", "2,950,000"),
             ("What is the population of Daegu?", "2.4 million")]
    q = "Which is the smallest city by population: Busan, Incheon or Daegu?"
    assert decide(q, three, "en").answer == "Daegu"
    assert decide(q.replace("smallest", "largest"), three, "en").answer == "Busan"
    # an item's name holding a comparative ("Last") is taken out before the question is read
    films = [("When did The Last Samurai come out?", "2003"), ("When did Avatar come out?", "2009")]
    assert decide("Which came out first, The Last Samurai or Avatar?", films, "en").answer == "The Last Samurai"


def test_decide_refuses_what_it_cannot_read():
    kids = [("When was Am Rong born?", "1929"), ("When was Ava DuVernay born?", "August 24, 1972")]
    q = "Who was born first, Am Rong or Ava DuVernay?"
    assert decide(q, kids, "en").answer == "Am Rong"
    assert decide(q, [kids[0], ("When was Ava DuVernay born?", "1929")], "en") is None  # a tie
    assert decide(q, [kids[0], ("When was Ava DuVernay born?", "unknown")], "en") is None  # not all dates
    assert decide(q, [kids[0], ("When was Ava DuVernay born?", "4 million")], "en") is None  # mixed kinds
    assert decide(q, kids[:1], "en") is None
    assert decide("Which of the two, Am Rong or Ava DuVernay, has an award?", kids, "en") is None  # no direction
    assert decide("Was Am Rong born earlier than Ava DuVernay?", kids, "en") is None  # yes/no
    # a year alone is not before a full date of the same year (nor after it)
    assert decide(q, [("When was Am Rong born?", "1972"), ("When was Ava DuVernay born?", "August 24, 1972")],
                  "en") is None
    assert decide(q, [("When was Am Rong born?", "3 May 1972"), ("When was Ava DuVernay born?", "August 24, 1972")],
                  "en").answer == "Am Rong"
    # items named inside a description: the answer is someone else (the director), not the label
    assert decide("Who was born first, the director of Jaws or the director of Alien?",
                  [("When was the director of Jaws born?", "1946"), ("When was the director of Alien born?", "1937")],
                  "en") is None
    assert decide("Who was born first, Alien's director or Jaws's director?",
                  [("When was Alien's director born?", "1946"), ("When was Jaws's director born?", "1937")],
                  "en") is None
    assert decide("에일리언의 감독과 죠스의 감독 중 누가 먼저 태어났나?",
                  [("에일리언의 감독은 언제 태어났나?", "1937년"), ("죠스의 감독은 언제 태어났나?", "1946년")], "ko") is None


@pytest.mark.parametrize("parent, labels, lang, expected", [
    ("Who was born first, Am Rong or Ava DuVernay?", ["Am Rong", "Ava DuVernay"], "en", True),
    ("Which of Mirabella and Home Monthly came first?", ["Mirabella", "Home Monthly"], "en", True),
    ("Between Busan and Incheon, which is larger?", ["Busan", "Incheon"], "en", True),
    ("Which came first, The Lord of the Rings or Avatar?", ["The Lord of the Rings", "Avatar"], "en", True),
    ("Which came first, Schindler's List or Avatar?", ["Schindler's List", "Avatar"], "en", True),
    ("Who was born first, the man who directed Jaws or Alien?", ["Jaws", "Alien"], "en", False),
    ("Who was born first, the mother of Jaws or Alien?", ["Jaws", "Alien"], "en", False),
    ("Who was born first, Jaws's director or Alien?", ["Jaws", "Alien"], "en", False),
    ("Who was born first, Jaws' director or Alien?", ["Jaws", "Alien"], "en", False),
    ("Which came first, 'Jaws' or 'Alien'?", ["Jaws", "Alien"], "en", True),  # quotes are no possessive
    ("박형식과 승리 중 누가 먼저 태어났나?", ["박형식", "승리"], "ko", True),
    ("부산, 인천 중 더 큰 도시는?", ["부산", "인천"], "ko", True),
    ("죠스의 감독과 에일리언 중 누가 먼저 나왔나?", ["죠스", "에일리언"], "ko", False),
])
def test_named_as_items(parent, labels, lang, expected):
    assert named_as_items(parent, labels, lang) is expected


@pytest.mark.parametrize("decide_on", [True, False])
def test_order_decide_answers_the_comparison_without_the_responder(decide_on):
    seen = []
    t = ToQ(k=2, evaluate_root=False, order_hints=True, order_decide=decide_on).run(
        Q, make_ctx(routed_llm(comparison_handlers(seen)), OverlapRetriever(DOCS)))
    hint = "In time order, earliest first: Home Monthly (1896), Mirabella (1989)."
    assert t.answer == "Home Monthly"
    purposes = [c.purpose for c in t.root.calls]
    assert purposes.count("evaluate") == 1  # the root's final evaluation runs either way
    if decide_on:
        assert seen == [] and "answer" not in purposes  # no responder call for the decided node
        assert t.root.data["order_decided"] == {"answer": "Home Monthly", "kind": "date", "direction": "min",
                                                "hint": hint}
        assert "order_hint" not in t.root.data  # the hint went to no model
        assert t.explanation == hint and t.root.data["explanation"] == hint
        assert sorted(t.citations) == ["home", "mir"]  # the children's cited documents
        decided = [f for f in t.root.display if f.label == "decided by code"]
        assert decided and decided[0].text == f"Home Monthly (earliest): {hint}"
    else:
        assert len(seen) == 1 and purposes.count("answer") == 1  # the old path: the model reads the hint
        assert t.root.data["order_hint"] == hint and "order_decided" not in t.root.data
    assert all("answer" in [c.purpose for c in n.calls] for n in t.root.children)  # the children still answer


def test_order_decide_korean_tree_and_its_streamed_answer():
    # (박형식 and 박보검: the decomposer's name check finds no name in "승리", so 승리's branch would be refused)
    handlers = {
        "decompose": lambda u: {"type": "comparison", "subquestions": [
            {"question": "박형식은 언제 태어났나요?", "each": False},
            {"question": "박보검은 언제 태어났나요?", "each": False}]},
        "query": lambda u: "출생",
        "integrate": lambda u: {"relevance": "relevant", "answer_span": "태어났다"},
        "answer_plain": lambda u: "박형식이 먼저 태어났다" if "하위 질문의 답변" in u
        else ("1991년 11월 16일" if "박형식" in u else "1993년 6월 16일"),
        "evaluate": lambda u: scores(True),
    }
    docs = [("p", "박형식", "박형식은 1991년 11월 16일에 태어났다."), ("b", "박보검", "박보검은 1993년 6월 16일에 태어났다.")]
    got = []
    ctx = make_ctx(routed_llm(handlers), OverlapRetriever(docs))
    ctx.on_answer = got.append
    t = ToQ(k=2, evaluate_root=False, order_decide=True).run("박형식과 박보검 중 누가 먼저 태어났나?", ctx)
    assert [c.answer for c in t.root.children] == ["1991년 11월 16일", "1993년 6월 16일"]
    assert t.answer == "박형식" and "answer" not in [c.purpose for c in t.root.calls]
    assert "".join(p.text for p in got) == "박형식"  # the decided answer is the root's one draft
    assert [f.text for f in t.root.display if f.label == "코드로 결정"] == \
        ["박형식 (가장 이른 것): 시간 순서(이른 것부터): 박형식 (1991년 11월 16일), 박보검 (1993년 6월 16일)."]
