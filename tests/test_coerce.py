import pytest

from gaji.coerce import coerce, parse_bool, parse_pairs
from gaji.errors import ConfigError


def test_parse_bool_words_and_errors():
    assert [parse_bool(x) for x in ("1", "TRUE", " yes ", "on")] == [True] * 4
    assert [parse_bool(x) for x in ("0", "False", "no", "OFF")] == [False] * 4
    with pytest.raises(ValueError):
        parse_bool("maybe")


def test_parse_pairs_strips_and_names_the_bad_item():
    assert parse_pairs(["a=1", " b = x=y "]) == {"a": "1", "b": "x=y"}
    with pytest.raises(ValueError) as e:
        parse_pairs(["a=1", "oops"])
    assert e.value.args[0] == "oops"


def test_coerce_types_lists_optionals_and_errors():
    assert coerce("3", int, "w") == 3 and coerce("0.5", float, "w") == 0.5 and coerce("on", bool, "w") is True
    assert coerce("1, 2", list[int], "w") == [1, 2] and coerce("none", int | None, "w") is None
    assert coerce(7, int, "w") == 7  # not text: passed through
    with pytest.raises(ConfigError, match="opt: cannot read 'x' as int"):
        coerce("x", int, "opt")


def test_typed_values_must_fit_the_option_type():
    """JSON values (the HTTP API) are checked like text: a float k is a ConfigError, not a crash mid-run."""
    import pytest

    from gaji.coerce import coerce
    from gaji.errors import ConfigError

    assert coerce(5, int, "k") == 5 and coerce(1e9, int, "k") == 1_000_000_000 and coerce(5.0, int, "k") == 5
    assert coerce(2, float, "t") == 2.0 and isinstance(coerce(2, float, "t"), float)
    assert coerce(None, int | None, "x") is None and coerce([1, 2.0], list[int], "l") == [1, 2]
    for value, ty in [(1.5, int), (True, int), (float("inf"), int), (3, bool), (True, float), (3, str),
                      ("a", list[int]), ([1.5], list[int]), ({}, int)]:
        with pytest.raises(ConfigError, match="^opt: cannot read"):
            coerce(value, ty, "opt")


def test_check_range_names_the_option_and_the_allowed_range():
    from gaji.coerce import MAX_K, check_range

    assert MAX_K == 100
    assert check_range("k", 100, "option 'k'") == 100 and check_range("k", 1, "option 'k'") == 1
    assert check_range("seed", 10**12, "option 'seed'") == 10**12  # no bound
    assert check_range("k", "many", "x") == "many"  # not a number: the type check's business
    with pytest.raises(ConfigError, match=r"^option 'k' must be between 1 and 100, not 1000000000$"):
        check_range("k", 1_000_000_000, "option 'k'")
    with pytest.raises(ConfigError, match="between 1 and 100, not -5"):
        check_range("k", -5, "option 'k'")
    with pytest.raises(ConfigError, match="between 0 and 1, not nan"):
        check_range("threshold", float("nan"), "option 'threshold'")
    assert check_range("k", 0, "x", {"k": (0, MAX_K)}) == 0  # a method's own meaning of 0


def test_every_method_default_lies_inside_its_range():
    import dataclasses

    from gaji.coerce import OPTION_RANGES
    from gaji.registry import METHODS

    for entry in METHODS.entries():
        cls = entry.obj
        opts = cls.Options()
        ranges = {**OPTION_RANGES, **cls.option_ranges}
        for f in dataclasses.fields(opts):
            if f.name in ranges:
                low, high = ranges[f.name]
                assert low <= getattr(opts, f.name) <= high, (entry.name, f.name)
