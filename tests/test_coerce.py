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
