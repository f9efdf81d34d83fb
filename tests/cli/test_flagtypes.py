"""Flags that cannot go wrong: out-of-range values are refused with the flag and its range named, exit 2, no
traceback, nothing silently changed; the same for the settings from the environment (GAJI_DEADLINE_S)."""
from __future__ import annotations

import argparse

import pytest

from gaji.cli.flagtypes import PORT, count, number, seconds
from gaji.cli.main import main


@pytest.mark.parametrize("argv, flag, says", [
    (["serve", "--port", "99999"], "--port", "between 1 and 65535"),
    (["serve", "--port", "0"], "--port", "between 1 and 65535"),
    (["serve", "--timeout", "-5"], "--timeout", "between 0.1 and 86400 s"),
    (["serve", "--timeout", "inf"], "--timeout", "between 0.1 and 86400 s"),
    (["serve", "--queue", "-1"], "--queue", "between 0 and 10000"),
    (["serve", "--slots", "0"], "--slots", "between 1 and 256"),
    (["serve", "--max-upload-mb", "-1"], "--max-upload-mb", "between 0.01 and 4096 MiB"),
    (["serve", "-k", "0"], "-k/--k", "between 1 and 100"),
    (["eval", "--limit", "-1"], "--limit", "at least 1"),
    (["eval", "--limit", "many"], "--limit", "not a whole number"),
    (["eval", "--concurrency", "0"], "--concurrency", "between 1 and 256"),
    (["history", "list", "--limit", "-2"], "--limit", "at least 0"),
    (["keys", "add", "web", "--rate", "0"], "--rate", "between 1 and 100000"),
])
def test_out_of_range_flags_exit_2_naming_the_flag_and_range(argv, flag, says, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"argument {flag}: " in err and says in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["0", "-3", "nan", "soon"])
def test_a_deadline_of_zero_or_less_is_refused_not_switched_off(value, monkeypatch, capsys):
    monkeypatch.setenv("GAJI_DEADLINE_S", value)
    assert main(["ask", "무엇?", "--llm", "scripted", "-m", "nor"]) == 2
    err = capsys.readouterr().err
    assert "GAJI_DEADLINE_S" in err and ("between 0.1 and 86400" in err or "cannot be" in err)


def test_settings_out_of_range_are_refused(monkeypatch, capsys):
    assert main(["ask", "q", "--llm", "scripted", "-m", "nor", "--parallel", "0"]) == 2
    assert "--parallel: setting 'parallel' must be between 1 and 256, not 0" in capsys.readouterr().err


def test_the_types_accept_what_is_in_range():
    assert PORT("8000") == 8000 and count(0)("0") == 0 and number(0.5, 2)(" 1.5 ") == 1.5
    assert seconds()("0.1") == 0.1
    with pytest.raises(argparse.ArgumentTypeError, match="out of range"):
        seconds()("0")
