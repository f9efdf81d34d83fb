import pytest

from gaji.errors import ConfigError
from gaji.registry import METHODS, Registry


def test_unknown_name_lists_known_ones():
    r = Registry("widget")
    r.register("a", help="first")(object())
    with pytest.raises(ConfigError, match="unknown widget 'b'; known: a"):
        r.get("b")


def test_double_registration_is_an_error():
    r = Registry("widget")
    r.register("a")(1)
    with pytest.raises(ValueError):
        r.register("a")(2)


def test_core_methods_are_registered():
    assert {"nor", "oner"} <= set(METHODS.names())
