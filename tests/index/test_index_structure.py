"""The shape of gaji/index and gaji/stores, measured from the source with `ast`: small functions, a small
store module, no import upward into gaji.expand, and stores that know nothing of the index but its layout.
(Import cycles anywhere in the package: tests/test_imports.py, whose import graph these checks use.)"""
from __future__ import annotations

import ast

from test_imports import build_graph

MAX_FUNCTION_LINES = 60
MAX_STORE_LINES = 250


def _package(name: str) -> list[str]:
    return [m for m in build_graph().modules if m == name or m.startswith(name + ".")]


def _imports_into(graph, sources: list[str], prefix: str) -> dict[str, list[str]]:
    out = {}
    for m in sources:
        hit = sorted(t for t in graph.edges[m] if t == prefix or t.startswith(prefix + "."))
        if hit:
            out[m] = hit
    return out


def test_no_function_in_the_index_package_is_long():
    long = []
    for module, path in build_graph().modules.items():
        if not module.startswith("gaji.index"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{module}.{node.name}: {n} lines")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_store_module_stays_small():
    store = build_graph().modules["gaji.index.store"]
    assert len(store.read_text(encoding="utf-8").splitlines()) < MAX_STORE_LINES


def test_the_index_does_not_import_expand():
    g = build_graph()
    assert not _imports_into(g, _package("gaji.index"), "gaji.expand")


def test_stores_know_only_the_index_layout():
    g = build_graph()
    used = _imports_into(g, _package("gaji.stores"), "gaji.index")
    assert not {m: t for m, t in used.items() if set(t) - {"gaji.index", "gaji.index.layout"}}


def test_the_checks_see_the_real_package():
    """They can fail: the graph holds the index's modules and their lazy imports."""
    g = build_graph()
    assert "gaji.index.lexical" in g.edges["gaji.index.steps"]  # imported inside a function
    assert _imports_into(g, ["gaji.index.build"], "gaji.stores") == {"gaji.index.build": ["gaji.stores",
                                                                                         "gaji.stores.sync"]}
