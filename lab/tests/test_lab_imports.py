"""The lab's import graph, with the product's walker (tests/test_imports.py): no module cycles inside gaji_lab,
argparse only in gaji_lab.cli; and every `gaji.commands` entry point of lab/pyproject.toml names a register
function that adds its commands to gaji's parser."""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import tomllib
from pathlib import Path

LAB = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("gaji_test_imports", LAB.parent / "tests" / "test_imports.py")
walker = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = walker  # its dataclasses look their module up
_spec.loader.exec_module(walker)


def test_no_import_cycles_in_the_lab():
    g = walker.build_graph(LAB, "gaji_lab")
    assert "gaji_lab.bench.runner" in g.modules
    groups = walker.cycles(g)
    assert not groups, walker.explain(g, groups)


def test_only_the_labs_command_line_builds_parsers():
    bad = walker.cli_violations(walker.build_graph(LAB, "gaji_lab"), "gaji_lab.cli")
    assert not bad, "outside gaji_lab/cli:\n" + "\n".join(bad)


def _entry_points() -> dict[str, str]:
    meta = tomllib.loads((LAB / "pyproject.toml").read_text(encoding="utf-8"))
    return meta["project"]["entry-points"]["gaji.commands"]


def _load(value: str):
    module, func = value.split(":")
    return getattr(importlib.import_module(module), func)


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices)


def test_the_entry_points_are_the_places_gaji_leaves_for_the_lab():
    from gaji.cli.main import COMMANDS, Lab

    places = {e.name for e in COMMANDS if isinstance(e, Lab)}
    places |= {m.name for e in COMMANDS if isinstance(e, tuple) for m in e[1] if isinstance(m, Lab)}
    assert set(_entry_points()) == places


def test_the_lab_commands_build_with_gajis_parser(monkeypatch):
    """gaji's parser with the lab's register functions, as the installed entry points give them."""
    import gaji.cli.main as cli_main

    eps = _entry_points()
    monkeypatch.setattr(cli_main, "lab_registrars", lambda name: [_load(eps[name])] if name in eps else [])
    parser = cli_main.build_parser()
    assert parser.get_default("lab_missing") == set()
    root = next(a for a in parser._actions if a.dest == "command")
    assert _choices(root.choices["bench"]) == [
        "retrieval", "embed", "run", "check", "report", "sweep", "serve", "chat-set", "injection", "security",
        "llm-server", "dense-store", "ray-embed", "ray-expand", "toq-depth", "toq-judge", "evaluator", "decomposer",
        "verifier", "trim", "documents", "crossdoc", "build", "embed-workers", "bigdoc", "plot", "targets",
        "followups", "ttft", "crash", "concurrency", "fuzz-readers", "replay"]
    assert _choices(root.choices["expand"]) == [
        "run", "show", "keywords", "chunk-keywords", "label", "train-tagger", "train", "subset", "bench", "judge"]
    assert "train-auto" in _choices(root.choices["classifier"])


def test_an_installed_lab_is_found_through_its_entry_points():
    """In an environment where `pip install -e ./lab` ran, gaji's own discovery finds the same functions."""
    from importlib.metadata import entry_points

    import pytest

    from gaji.cli.main import ENTRY_POINTS, lab_registrars

    found = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINTS)}
    if not found:
        pytest.skip("gaji-lab is not installed in this environment (pip install -e ./lab)")
    assert found == _entry_points()
    assert lab_registrars("bench") == [_load(found["bench"])]
