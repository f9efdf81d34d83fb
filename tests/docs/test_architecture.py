"""docs/architecture.md and DEVELOPERS.md against the code: every path they name (gaji/…, lab/…, tests/…, docs/…,
benchmarks/…) exists, and every dotted name (gaji.x.y, gaji_lab.x, gaji.registry.COMPOSITIONS) is a module or an
attribute of one (the entry-point group `gaji.commands` is a name, not a module). Files named without a folder
("store.py" in a list under gaji/index/) are not checked."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / "architecture.md", ROOT / "DEVELOPERS.md"]
PATH = re.compile(r"(?<![\w./-])((?:gaji|lab|tests|docs|benchmarks)/[\w./*-]*[\w*/])")
DOTTED = re.compile(r"(?<![\w./-])((?:gaji|gaji_lab)(?:\.[A-Za-z_]\w*)+)")
SOURCES = {"gaji": ROOT / "gaji", "gaji_lab": ROOT / "lab" / "gaji_lab"}


def named_paths(text: str) -> set[str]:
    return {m.rstrip(".") for m in PATH.findall(text)}


def named_modules(text: str) -> set[str]:
    return {m.rstrip(".") for m in DOTTED.findall(text)}


def _module_file(parts: list[str]) -> Path | None:
    base = SOURCES[parts[0]].joinpath(*parts[1:])
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _defines(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


def resolves(dotted: str) -> bool:
    """gaji.a.b is a module, or gaji.a.B / gaji.a.C.meth names something module gaji.a defines."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        f = _module_file(parts[:i])
        if f is not None:
            rest = parts[i:]
            return not rest or _defines(f, rest[0])
    return False


def path_exists(rel: str) -> bool:
    if "*" in rel:
        return any(ROOT.glob(rel))
    return (ROOT / rel).exists()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_named_path_exists(page):
    text = page.read_text(encoding="utf-8")
    missing = sorted(p for p in named_paths(text) if not path_exists(p))
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_named_module_exists(page):
    text = page.read_text(encoding="utf-8")
    from gaji.cli.main import ENTRY_POINTS

    missing = sorted(m for m in named_modules(text) - {ENTRY_POINTS} if not resolves(m))
    assert not missing, f"{page.name} names modules or attributes that do not exist: {missing}"


def test_the_checker_itself():
    text = "see gaji/index/build.py, gaji/cli/bench_*.py and gaji.registry.COMPOSITIONS; not foo/gaji/x.py."
    assert named_paths(text) == {"gaji/index/build.py", "gaji/cli/bench_*.py"}
    assert named_modules(text) == {"gaji.registry.COMPOSITIONS"}
    assert resolves("gaji.registry.COMPOSITIONS") and resolves("gaji.index") and resolves("gaji_lab.bench.runner")
    assert not resolves("gaji.registry.NOPE") and not resolves("gaji.nowhere")
    assert path_exists("lab/gaji_lab/bench/runner.py") and not path_exists("gaji/bench/runner.py")
