"""The command registry (gaji/cli/main.py COMMANDS): every command module is listed once, and the parser builds."""
from __future__ import annotations

import ast
from pathlib import Path

import gaji.cli
from gaji.cli.main import COMMANDS, build_parser, main


def _listed() -> list[str]:
    out = []
    for entry in COMMANDS:
        group, members = (entry, ()) if isinstance(entry, str) else entry
        out += [group, *members]
    return out


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


def test_groups_hold_their_members_sub_commands(capsys):
    parser = build_parser()
    top = _sub_commands(parser)
    assert top == ["demo", "ask", "index", "methods", "model", "eval", "bench", "serve", "history", "keys", "expand",
                   "classifier"]
    root = next(a for a in parser._actions if a.dest == "command")
    assert _sub_commands(root.choices["bench"]) == [
        "retrieval", "embed", "run", "check", "report", "sweep", "serve", "injection", "security", "llm-server", "dense-store",
        "ray-embed",
        "ray-expand", "toq-depth", "toq-judge", "evaluator", "decomposer", "verifier", "trim", "documents", "crossdoc", "build", "embed-workers", "bigdoc", "plot",
        "followups", "ttft", "crash", "concurrency"]
    assert _sub_commands(root.choices["expand"]) == [
        "run", "show", "label", "train-tagger", "train", "keywords", "chunk-keywords", "subset", "bench", "judge"]
    assert main(["bench"]) == 0 and "BENCHMARK" in capsys.readouterr().out  # a group alone prints its help
