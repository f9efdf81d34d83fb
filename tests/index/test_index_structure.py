"""The shape of gaji/index and gaji/stores, measured from the source with `ast`: small functions, a small
store module, no imports upward into gaji.expand, stores knowing only the index's layout, no import cycles."""
from __future__ import annotations

import ast
from pathlib import Path

import gaji

ROOT = Path(gaji.__file__).parent
MAX_FUNCTION_LINES = 60
MAX_STORE_LINES = 250


def _modules(pkg: str) -> dict[str, Path]:
    """Module name -> file for every module of the package `pkg` (e.g. "gaji.index")."""
    folder = ROOT.joinpath(*pkg.split(".")[1:])
    out = {}
    for p in sorted(folder.rglob("*.py")):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(module: str, path: Path) -> set[str]:
    """Every gaji module `module` imports, at module level or inside functions (lazy imports count);
    imports under `if TYPE_CHECKING:` never run and do not."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import module`
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m == "gaji" or m.startswith("gaji.")}


def _graph() -> dict[str, set[str]]:
    """The import graph of the whole gaji package (edges to existing modules only)."""
    mods = _modules("gaji")
    return {m: {i for i in _imports(m, p) if i in mods and i != m} for m, p in mods.items()}


def _cycle_through(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A cycle of imports from `start` back to it, if any (depth-first search)."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return None


def test_no_function_in_the_index_package_is_long():
    long = []
    for module, path in _modules("gaji.index").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{module}.{node.name}: {n} lines")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_store_module_stays_small():
    store = ROOT / "index" / "store.py"
    assert len(store.read_text(encoding="utf-8").splitlines()) < MAX_STORE_LINES


def test_the_index_does_not_import_expand():
    graph = _graph()
    upward = {m: sorted(i for i in graph[m] if i.startswith("gaji.expand")) for m in _modules("gaji.index")}
    assert not {m: i for m, i in upward.items() if i}


def test_stores_know_only_the_index_layout():
    graph = _graph()
    used = {m: sorted(i for i in graph[m] if i.startswith("gaji.index")) for m in _modules("gaji.stores")}
    assert not {m: i for m, i in used.items() if set(i) - {"gaji.index", "gaji.index.layout"}}


def test_no_import_cycle_through_index_or_stores():
    graph = _graph()
    cycles = {}
    for m in [*_modules("gaji.index"), *_modules("gaji.stores")]:
        c = _cycle_through(graph, m)
        if c:
            cycles[m] = " -> ".join(c)
    assert not cycles


def test_the_graph_sees_lazy_and_relative_imports():
    """The checks above can fail: the scanner finds a function-level import and resolves relative ones."""
    graph = _graph()
    assert "gaji.index.lexical" in graph["gaji.index.steps"]  # imported inside a function
    assert "gaji.index.store" in graph["gaji.index.build"]  # `from .store import ...`
    assert _cycle_through({"a": {"b"}, "b": {"c"}, "c": {"a"}}, "a") == ["a", "b", "c", "a"]
