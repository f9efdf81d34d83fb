"""gaji.deadline: one total time limit per call; nested scopes keep the sooner one; the env default."""
from __future__ import annotations

import time

import pytest

from gaji.deadline import DEFAULT_DEADLINE_S, Deadline, current_deadline, deadline_scope, default_deadline_s, within
from gaji.errors import ConfigError


def test_deadline_counts_down_and_expires():
    d = Deadline.after(0.2)
    assert 0 < d.remaining() <= 0.2 and not d.expired and d.budget_s == 0.2
    time.sleep(0.25)
    assert d.expired and d.remaining() == 0.0


def test_scopes_nest_and_the_sooner_deadline_wins():
    assert current_deadline() is None and within(None) is None
    with deadline_scope(10) as outer:
        assert current_deadline() is outer and outer.budget_s == 10
        with deadline_scope(0.5) as inner:
            assert current_deadline() is inner and inner.remaining() <= 0.5
        with deadline_scope(60) as longer:
            assert longer is outer  # an inner call never outlives the outer budget
        with deadline_scope(None) as same:
            assert same is outer
    assert current_deadline() is None


def test_the_default_comes_from_the_environment_when_valid():
    assert default_deadline_s({}) == DEFAULT_DEADLINE_S < 60
    assert default_deadline_s({"GAJI_DEADLINE_S": "7.5"}) == 7.5
    assert default_deadline_s({"GAJI_DEADLINE_S": ""}) == DEFAULT_DEADLINE_S
    for bad in ("soon", "-1", "0", "nan", "1e9"):  # never silently off or replaced: refused, naming the variable
        with pytest.raises(ConfigError, match=f"GAJI_DEADLINE_S='{bad}': must be a number of seconds between 0.1"):
            default_deadline_s({"GAJI_DEADLINE_S": bad})
