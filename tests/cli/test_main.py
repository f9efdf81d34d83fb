"""The command registry (gaji/cli/main.py COMMANDS): every command module is listed once, and the parser builds."""
from __future__ import annotations

import ast
from pathlib import Path

import gaji.cli
import pytest

import gaji.cli.main as cli_main
from gaji.cli.main import COMMANDS, Lab, build_parser, main


def _listed() -> list[str]:
    out = []
    for entry in COMMANDS:
        if isinstance(entry, Lab):
            continue
        group, members = (entry, ()) if isinstance(entry, str) else entry
        out += [group, *(m for m in members if not isinstance(m, Lab))]
    return out


@pytest.fixture
def no_lab(monkeypatch):
    """gaji as installed without the lab: no `gaji.commands` entry points."""
    monkeypatch.setattr(cli_main, "lab_registrars", lambda name: [])


def test_every_module_with_a_register_function_is_listed_once():
    here = Path(gaji.cli.__file__).parent
    with_register = set()
    for path in here.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == "register" for n in tree.body):
            with_register.add(f"gaji.cli.{path.stem}")
    listed = _listed()
    assert len(listed) == len(set(listed))
    assert set(listed) == with_register


def _sub_commands(parser) -> list[str]:
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return list(action.choices)


def test_groups_hold_their_members_sub_commands(capsys, no_lab):
    parser = build_parser()
    top = _sub_commands(parser)
    assert top == ["demo", "ask", "index", "methods", "model", "eval", "bench", "serve", "history", "keys", "expand",
                   "classifier"]
    root = next(a for a in parser._actions if a.dest == "command")
    assert _sub_commands(root.choices["expand"]) == [
        "run", "show", "keywords", "chunk-keywords", "label", "train-tagger", "train", "subset", "bench", "judge"]
    assert main(["expand"]) == 0 and "ACTION" in capsys.readouterr().out  # a group alone prints its help


@pytest.mark.parametrize("argv, path", [
    (["bench", "run", "benchmarks/configs/x.yaml", "--record"], "bench"),
    (["bench"], "bench"),
    (["classifier", "train", "--data", "d", "--out", "o"], "classifier"),
    (["expand", "train-tagger", "labels.jsonl", "--out", "t"], "expand train-tagger"),
    (["expand", "bench", "koblex"], "expand bench"),
])
def test_lab_commands_without_the_lab_say_how_to_install_it(capsys, monkeypatch, no_lab, argv, path):
    monkeypatch.setenv("GAJI_LANG", "en")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: `gaji {path}` is part of gaji's lab" in err and "pip install -e ./lab" in err
    monkeypatch.setenv("GAJI_LANG", "ko")  # in the user's language
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"오류: `gaji {path}`은(는) 실험실(lab) 패키지의 명령입니다" in err and "pip install -e ./lab" in err
    assert "Traceback" not in err


def test_the_lab_adds_its_commands_where_the_entry_points_say(monkeypatch, capsys):
    """An installed lab's register functions run at their Lab place, in the top level or in a group."""
    seen = []

    def top(sub):
        p = sub.add_parser("bench", help="benchmarks")
        p.set_defaults(func=lambda a: seen.append("bench") or 0)

    def expand(esub):
        p = esub.add_parser("train-tagger")
        p.add_argument("--out")
        p.set_defaults(func=lambda a: seen.append(("train-tagger", a.out)) or 0)

    monkeypatch.setattr(cli_main, "lab_registrars",
                        lambda name: {"bench": [top], "expand": [expand]}.get(name, []))
    assert main(["bench"]) == 0 and main(["expand", "train-tagger", "--out", "t"]) == 0
    assert seen == ["bench", ("train-tagger", "t")]
    assert main(["classifier"]) == 2  # not declared by this lab: still the install line
    assert "pip install -e ./lab" in capsys.readouterr().err
