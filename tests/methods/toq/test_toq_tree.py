import pytest

from gaji.methods.toq.tree import (
    DependencyError,
    dependencies,
    dependency_waves,
    fill_slots,
    has_slots,
    slot_refs,
    split_list_answer,
    strip_slots,
)


def test_slot_refs_reads_both_spellings_in_order():
    assert slot_refs("Q with [ANS_2] and [Q1_ANS] and [ans 2]") == [2, 1]
    assert slot_refs("no slots") == []


def test_fill_slots_fills_known_and_keeps_unknown():
    q = "Which electric cars cost [ANS_1]? Compare with [ANS_3]."
    assert fill_slots(q, {1: " 98 to 120 million won "}) == "Which electric cars cost 98 to 120 million won? Compare with [ANS_3]."
    assert fill_slots("[ANS_1] 가격대의 전기차", {1: "1억 원"}) == "1억 원 가격대의 전기차"


def test_has_and_strip_slots():
    assert has_slots("price of [ANS_N]") and has_slots("[Q2_ANS] born")
    assert not has_slots("plain question")
    assert strip_slots("[ANS_1] price range electric car") == "price range electric car"


def test_dependencies_are_zero_based_and_checked():
    assert dependencies(["a", "b [ANS_1]", "c [ANS_1] [ANS_2]"]) == [[], [0], [0, 1]]
    with pytest.raises(DependencyError, match="only 2"):
        dependencies(["a", "b [ANS_3]"])
    with pytest.raises(DependencyError, match="own answer"):
        dependencies(["a [ANS_1]", "b"])
    with pytest.raises(DependencyError):
        dependencies(["a [ANS_0]"])


def test_waves_put_independent_siblings_together():
    assert dependency_waves([[], [], []]) == [[0, 1, 2]]
    assert dependency_waves([[], [0], [1]]) == [[0], [1], [2]]
    assert dependency_waves([[], [0], []]) == [[0, 2], [1]]
    # a reference to a later sibling is fine as long as there is no cycle
    assert dependency_waves([[1], []]) == [[1], [0]]


def test_cycles_are_rejected():
    with pytest.raises(DependencyError, match="cycle"):
        dependency_waves(dependencies(["a [ANS_2]", "b [ANS_1]"]))


def test_split_list_answer():
    assert split_list_answer("Pirates of the Caribbean 1, 2, 3") == [
        "Pirates of the Caribbean 1", "Pirates of the Caribbean 2", "Pirates of the Caribbean 3"]
    assert split_list_answer("A, B and C") == ["A", "B", "C"]
    assert split_list_answer("아이오닉 5 및 EV6") == ["아이오닉 5", "EV6"]
    assert split_list_answer("1. Alpha\n2. Beta") == ["Alpha", "Beta"]
    assert split_list_answer("Harry Potter and the Goblet of Fire, Harry Potter and the Order of the Phoenix") == [
        "Harry Potter and the Goblet of Fire", "Harry Potter and the Order of the Phoenix"]
    assert split_list_answer("120,000,000 won") == []
    assert split_list_answer("Seoul") == []
    assert split_list_answer("a, b, c, d", max_items=2) == ["a", "b"]
