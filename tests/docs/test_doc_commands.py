"""Every `gaji …` command line in README.md and docs/*.md parses with the real argparse parser: a renamed flag or
command fails here before a reader copies it. Lines are taken from fenced code blocks (shell comments, `\\`
continuations, `;`/`&&` chains and `.venv/bin/gaji` handled). Two kinds of `gaji …` text in code blocks are not
command lines and are left out: diagrams (a word in parentheses, "gaji serve (any number of replicas)") and
abbreviations (a bare `...` or `…` standing for flags already shown). The lab's commands are parsed with the lab's own
register functions when the lab is importable (lab/pyproject.toml entry points), and skipped otherwise."""
from __future__ import annotations

import importlib
import re
import shlex
import tomllib
from pathlib import Path

import pytest

import gaji.cli.main as cli_main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "DEVELOPERS.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
GAJI = re.compile(r"(?:^|\s)(?:\S*/)?gaji(?=\s)")


def command_lines(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, argv after `gaji`) for each gaji command in the file's shell code blocks."""
    out, lang, buf, start = [], None, "", 0
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(line.strip())
        if m:
            lang = None if lang is not None else (m.group(1) or "sh-untyped")
            continue
        if lang not in ("bash", "sh", "shell", "console", "sh-untyped"):
            continue
        if not buf:
            start = no
        buf += line.rstrip()
        if buf.endswith("\\"):
            buf = buf[:-1] + " "
            continue
        text, buf = buf, ""
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:
            continue
        cmd: list[str] = []
        for w in words + [";"]:
            if w in (";", "&&", "||", "|"):
                if cmd:
                    out.append((start, cmd))
                cmd = []
            elif cmd or (w == "gaji" or w.endswith("/gaji")):
                cmd.append(w)
    return [(no, c[1:]) for no, c in out if not _prose(c)]


def _prose(cmd: list[str]) -> bool:
    """A diagram or an abbreviation, not a command line."""
    return any(w.startswith("(") or w in ("...", "…") for w in cmd)


def _lab_registrars():
    try:
        importlib.import_module("gaji_lab")
    except ImportError:
        return None
    declared = tomllib.loads((ROOT / "lab" / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "entry-points"][cli_main.ENTRY_POINTS]

    def registrars(name: str) -> list:
        if name not in declared:
            return []
        module, func = declared[name].split(":")
        return [getattr(importlib.import_module(module), func)]

    return registrars


CASES = [pytest.param(path, no, argv, id=f"{path.name}:{no}") for path in DOCS for no, argv in command_lines(path)]


def test_the_docs_have_command_lines():
    assert len(CASES) > 40


@pytest.mark.parametrize("path, no, argv", CASES)
def test_each_documented_command_parses(monkeypatch, path, no, argv):
    registrars = _lab_registrars()
    if registrars is not None:
        monkeypatch.setattr(cli_main, "lab_registrars", registrars)
    parser = cli_main.build_parser()
    words = [a for a in argv[:2] if not a.startswith("-")]
    if registrars is None and any(" ".join(words[:n]) in parser.get_default("lab_missing") for n in (1, 2)):
        pytest.skip("a lab command; the lab is not importable (pip install -e ./lab)")
    try:
        parser.parse_args(argv)
    except SystemExit as e:
        assert e.code == 0, f"{path.relative_to(ROOT)}:{no}: `gaji {' '.join(argv)}` does not parse"


def test_the_extractor_on_a_small_document(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("text gaji ask not code\n```bash\ngaji ask \"q\" --index runs/x   # a comment\n"
                   "python3 -m venv .venv && .venv/bin/gaji demo\ngaji bench embed; gaji bench bigdoc\n"
                   "gaji eval --data hotpotqa \\\n  --limit 5\n```\n```python\ngaji = 1\n```\n"
                   "```\ngaji serve (replicas)\ngaji eval ... --limit 3\ngaji methods\n```\n", encoding="utf-8")
    assert command_lines(doc) == [(3, ["ask", "q", "--index", "runs/x"]), (4, ["demo"]),
                                  (5, ["bench", "embed"]), (5, ["bench", "bigdoc"]),
                                  (6, ["eval", "--data", "hotpotqa", "--limit", "5"]), (15, ["methods"])]
