"""Fixtures for the lab's tests. Run them from the repository root (pytest collects tests/ and lab/tests/).

Where gaji-lab is importable but not installed (a checkout on PYTHONPATH, no `pip install -e ./lab`), gaji's
command line finds no `gaji.commands` entry points; the lab's command tests then get the ones lab/pyproject.toml
declares, loaded the same way."""
from __future__ import annotations

import importlib
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

try:
    import gaji_lab  # noqa: F401
except ImportError as e:  # say what to do instead of one import error per test file
    raise ImportError("the lab's tests (lab/tests) need gaji-lab: pip install -e ./lab") from e

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


@pytest.fixture(autouse=True)
def lab_commands(monkeypatch):
    import gaji.cli.main as cli_main

    if any(True for _ in entry_points(group=cli_main.ENTRY_POINTS)):
        return
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["entry-points"][cli_main.ENTRY_POINTS]

    def registrars(name: str) -> list:
        if name not in declared:
            return []
        module, func = declared[name].split(":")
        return [getattr(importlib.import_module(module), func)]

    monkeypatch.setattr(cli_main, "lab_registrars", registrars)
