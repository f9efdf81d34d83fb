"""The method contract's option checks: every numeric option is inside its range however the options were made."""
from __future__ import annotations

import pytest

from gaji.errors import ConfigError
from gaji.registry import METHODS


@pytest.mark.parametrize("method, raw, message", [
    ("oner", {"k": 1e9}, "option 'k' of method 'oner' must be between 1 and 100, not 1000000000"),
    ("oner", {"k": "101"}, "option 'k' of method 'oner' must be between 1 and 100, not 101"),
    ("oner", {"k": -5}, "option 'k' of method 'oner' must be between 1 and 100, not -5"),
    ("toq", {"max_depth": 1000}, "option 'max_depth' of method 'toq' must be between 1 and 8, not 1000"),
    ("toq", {"max_nodes": 10**6}, "option 'max_nodes' of method 'toq' must be between 1 and 500"),
    ("ircot", {"max_steps": 10**9}, "option 'max_steps' of method 'ircot' must be between 1 and 50"),
    ("chain", {"max_length": 10**9}, "option 'max_length' of method 'chain' must be between 1 and 50"),
    ("contregen", {"max_depth": 99}, "option 'max_depth' of method 'contregen' must be between 0 and 8, not 99"),
    ("self_ask", {"max_followups": 10**4}, "option 'max_followups' of method 'self_ask' must be between 0 and 50"),
    ("iter_retgen", {"iterations": 10**4}, "option 'iterations' of method 'iter_retgen' must be between 1 and 50"),
    ("auto", {"k": 500}, "option 'k' of method 'auto' must be between 0 and 100, not 500"),
])
def test_an_option_out_of_range_is_refused_naming_it_and_the_range(method, raw, message):
    cls = METHODS.get(method)
    with pytest.raises(ConfigError, match=message):
        cls(cls.parse_options(raw))


def test_options_made_in_code_are_checked_too():
    oner = METHODS.get("oner")
    with pytest.raises(ConfigError, match="option 'k' of method 'oner' must be between 1 and 100"):
        oner(k=1000)
    with pytest.raises(ConfigError, match="option 'k' of method 'oner'"):
        oner(oner.Options(k=0))
    assert oner(k=100).opts.k == 100
    assert METHODS.get("auto")(k=0).opts.k == 0  # auto's 0: the routed method's own k
    assert METHODS.get("contregen")(max_depth=0).opts.max_depth == 0
