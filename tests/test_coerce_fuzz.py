"""Property-based fuzzing of option parsing (hypothesis): `-o key=value` strings and typed JSON values for every
registered method's options give an Options object or a ConfigError naming the option, never another exception;
what parses has the declared types."""
from __future__ import annotations

import dataclasses
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gaji.cli.common import parse_kv
from gaji.errors import ConfigError
from gaji.registry import METHODS

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ITEMS = st.text(max_size=30) | st.builds(lambda k, v: f"{k}={v}", st.text(max_size=10), st.text(max_size=15))
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
TYPE_OK = {int: lambda v: isinstance(v, int) and not isinstance(v, bool), float: lambda v: isinstance(v, float),
           bool: lambda v: isinstance(v, bool), str: lambda v: isinstance(v, str)}


@FUZZ
@given(st.lists(ITEMS, max_size=5))
def test_dash_o_pairs_parse_or_name_the_bad_one(items):
    try:
        out = parse_kv(items)
    except ConfigError as e:
        assert "must look like key=value" in str(e)
        return
    assert all("=" in i for i in items) and set(out) <= {i.split("=", 1)[0].strip() for i in items}


@pytest.mark.parametrize("method", METHODS.names())
@FUZZ
@given(data=st.data())
def test_method_options_from_text_or_json_values(method, data):
    cls = METHODS.get(method)
    hints = typing.get_type_hints(cls.Options)
    names = [f.name for f in dataclasses.fields(cls.Options)] + ["nope"]
    raw = data.draw(st.dictionaries(st.sampled_from(names), st.text(max_size=12) | scalars, max_size=4))
    try:
        opts = cls.parse_options(raw)
    except ConfigError as e:
        assert "option" in str(e) or method in str(e)
        return
    for k in raw:
        ty = hints.get(k)
        if ty in TYPE_OK:
            assert TYPE_OK[ty](getattr(opts, k)), (k, getattr(opts, k))
