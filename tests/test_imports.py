"""The package's import graph: no cycles between modules, and the command line stays in gaji/cli.

Every module under gaji/ is parsed with `ast` (nothing is imported), and an edge A -> B is recorded for:

- every `import` / `from … import` anywhere in A: at the top, inside functions (lazy imports), in
  try/except or `if TYPE_CHECKING:` blocks. A lazy import that closes a loop is still a loop: the two
  modules cannot be understood, tested or moved apart.
- `importlib.import_module("…")` and `__import__("…")` with a literal name.
- registries that import by name: a module that calls `import_module` (or `__import__`) with a computed name
  imports every module whose dotted name it spells out as a string (the command list of gaji/cli/main.py,
  the plugin lists of gaji/registry.py). A `[python, "-m", "gaji.x"]` argument list starts another process
  and is not an import.
- package `__init__` files: importing `a.b.c` runs `a/__init__` and `a/b/__init__`, so A -> a.b.c also
  adds A -> a.b and A -> a, except for A's own enclosing packages (they are initialised before A runs, and a
  package's `__init__` re-exporting its submodules is the normal shape, not a loop).
- `from pkg import name` is an edge to the submodule `pkg.name` when that module exists, else to `pkg`.

One edge is left out: a plugin's import of the registry that lists it by name. The plugin imports the registry
only to register itself (`@METHODS.register`), the registry imports the plugin by name on its first lookup;
that pair is the explicit-registry design, not a loop between two jobs. Any other way back from a plugin to
its registry (a helper the plugin imports that looks something up in the registry, say) is still a cycle.

A module's import of itself is ignored. The failure message names every strongly connected group of modules
and one shortest cycle through it, each edge with the line that makes it.

The same graph is also drawn between packages (gaji.index, gaji.eval, …; a top-level module such as
gaji.registry is its own node), lazy imports included: two packages that import each other cannot be
understood or moved apart either, even when no two of their modules form a loop. A registry's imports by
name are left out there: the registry sits below its plugins (they import it to register), and it reaches
them only through the names it lists.

The lab (lab/gaji_lab, the distribution gaji-lab) depends on gaji and is never imported by it: any import of
gaji_lab from gaji, even a lazy one or a literal `import_module("gaji_lab…")`, fails the test.
"""
from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gaji"
CLI = "gaji.cli"  # only this package may build parsers or import itself
CLI_ONLY = ("argparse",)  # standard-library modules only the command line may import
LAB = "gaji_lab"  # the lab beside the product: gaji never imports it


@dataclass
class Edge:
    target: str
    line: int
    how: str  # "top" | "lazy" | "string"

    def describe(self, source: str) -> str:
        return f"{source} -> {self.target} (line {self.line}, {self.how})"


@dataclass
class Graph:
    modules: dict[str, Path]
    edges: dict[str, dict[str, Edge]] = field(default_factory=dict)  # source -> target -> first edge
    external: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # source -> [(top-level name, line)]
    registries: dict[str, set[str]] = field(default_factory=dict)  # module importing by computed name -> names


def module_names(root: Path, package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _resolve_from(source: str, node: ast.ImportFrom, modules: dict[str, Path]) -> str | None:
    if not node.level:
        return node.module
    base = source.split(".")
    if not _is_package(source, modules):
        base = base[:-1]  # `from .x` in a.b.m is a.b.x; in a.b/__init__ it is a.b.x too
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of `name` that is a module of the package (`a.b.func` -> `a.b`)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        cand = ".".join(parts[:i])
        if cand in modules:
            return cand
    return None


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _is_lazy(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return True
    return False


def _import_call_name(call: ast.Call) -> tuple[bool, str | None]:
    """(is an import-by-name call, the literal name or None when computed)."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if name not in ("import_module", "__import__") or not call.args:
        return False, None
    arg = call.args[0]
    return True, arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def _process_argv_strings(tree: ast.AST) -> set[int]:
    """ids of the string constants that follow "-m" in a list/tuple: `python -m NAME` runs another process."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            elts = node.elts
            for a, b in zip(elts, elts[1:]):
                if isinstance(a, ast.Constant) and a.value == "-m" and isinstance(b, ast.Constant):
                    out.add(id(b))
    return out


def build_graph(root: Path = ROOT, package: str = PACKAGE) -> Graph:
    modules = module_names(root, package)
    g = Graph(modules)
    for source, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        parents = _parents(tree)
        edges: dict[str, Edge] = {}
        external: list[tuple[str, int]] = []

        def add(name: str | None, line: int, how: str) -> None:
            if not name:
                return
            top = name.split(".")[0]
            if top != package:
                external.append((top, line))
                return
            target = _known(name, modules)
            if target is None:
                return
            own = set(_ancestors(source))
            for t in [*_ancestors(target), target]:
                if t != source and t not in own and t not in edges:
                    edges[t] = Edge(t, line, how)

        dynamic = False
        for node in ast.walk(tree):
            how = "lazy" if _is_lazy(node, parents) else "top"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name, node.lineno, how)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve_from(source, node, modules)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    add(sub if sub in modules else base, node.lineno, how)
            elif isinstance(node, ast.Call):
                is_import, literal = _import_call_name(node)
                if is_import and literal:
                    add(literal, node.lineno, "string")
                elif is_import:
                    dynamic = True
        if dynamic:  # a registry: every module it names may be imported
            skip = _process_argv_strings(tree)
            named = g.registries.setdefault(source, set())
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules
                        and id(node) not in skip):
                    add(node.value, node.lineno, "string")
                    named.add(node.value)
        g.edges[source] = edges
        g.external[source] = external
    # A plugin imports the registry that lists it only to register itself; the registry imports the plugin by
    # name on its first lookup. The two are one unit by design, so that registration edge is not followed;
    # any other way back from a plugin to its registry still closes a loop.
    for registry, plugins in g.registries.items():
        for plugin in plugins:
            g.edges[plugin].pop(registry, None)
    return g


def cycles(g: Graph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted, the groups sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(g.modules):
        if v not in index:
            visit(v)
    return sorted(groups)


def shortest_cycle(g: Graph, group: list[str]) -> list[str]:
    """A shortest cycle through the group's first module, staying inside the group: [a, b, …, a]."""
    start, members = group[0], set(group)
    prev: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(g.edges[v]):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [*reversed(path), start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    raise AssertionError(f"{group} is not a cycle")


def explain(g: Graph, groups: list[list[str]]) -> str:
    lines = [f"{len(groups)} import cycle(s):"]
    for group in groups:
        path = shortest_cycle(g, group)
        lines.append(f"- {len(group)} modules: {', '.join(group)}")
        lines.append("  cycle: " + " -> ".join(path))
        lines += [f"    {g.edges[a][b].describe(a)}" for a, b in zip(path, path[1:])]
    return "\n".join(lines)


def cli_violations(g: Graph, cli: str = CLI) -> list[str]:
    """Modules outside the `cli` package that import argparse or it."""
    out = []
    for source in sorted(g.modules):
        if source == cli or source.startswith(cli + "."):
            continue
        for name, line in g.external.get(source, []):
            if name in CLI_ONLY:
                out.append(f"{source} (line {line}) imports {name}")
        for target, e in sorted(g.edges[source].items()):
            if target == cli or target.startswith(cli + "."):
                out.append(f"{source} (line {e.line}) imports {target}")
    return out


def package_of(name: str) -> str:
    """The first-level package `name` belongs to (gaji.index.store -> gaji.index); a top-level module is its
    own node (gaji.registry), and so is the root package."""
    return ".".join(name.split(".")[:2])


def package_graph(g: Graph, package: str = PACKAGE) -> Graph:
    """The import graph between first-level packages: an edge P -> Q for every module edge from P to Q, except
    a registry's imports by name (see the module docstring) and edges to the root package itself."""
    names = {package_of(m) for m in g.modules}
    pg = Graph({n: g.modules.get(n, Path(n)) for n in names}, edges={n: {} for n in names})
    for source, targets in g.edges.items():
        by_name = g.registries.get(source, set())
        a = package_of(source)
        for target, e in targets.items():
            if e.how == "string" and any(t == target or t.startswith(target + ".") for t in by_name):
                continue
            b = package_of(target)
            if a != b and b != package and b not in pg.edges[a]:
                pg.edges[a][b] = Edge(b, e.line, f"{e.how}, {source} -> {target}")
    return pg


def lab_imports(g: Graph, lab: str = LAB) -> list[str]:
    """Every place a module of the package imports the lab."""
    return [f"{source} (line {line}) imports {name}" for source in sorted(g.external)
            for name, line in g.external[source] if name == lab]


# -- the package --------------------------------------------------------------------------------------------
def test_the_product_never_imports_the_lab():
    bad = lab_imports(build_graph())
    assert not bad, "gaji must not import the lab (gaji_lab depends on gaji, not the other way):\n" + "\n".join(bad)


def test_no_package_cycles():
    pg = package_graph(build_graph())
    groups = cycles(pg)
    assert not groups, explain(pg, groups)


def test_no_import_cycles():
    g = build_graph()
    groups = cycles(g)
    assert not groups, explain(g, groups)


def test_only_the_command_line_builds_parsers_or_imports_it():
    bad = cli_violations(build_graph())
    assert not bad, "outside gaji/cli:\n" + "\n".join(bad)


# -- the walker itself, on small packages -------------------------------------------------------------------
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in {"pkg/__init__.py": "", **files}.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return tmp_path


def test_a_lazy_import_that_closes_a_loop_is_a_cycle(tmp_path):
    root = _package(tmp_path, {
        "pkg/a.py": "from pkg.b import f\n",
        "pkg/b.py": "def f():\n    from pkg import a\n    return a\n",
        "pkg/c.py": "import pkg.a\n",
    })
    g = build_graph(root, "pkg")
    assert cycles(g) == [["pkg.a", "pkg.b"]]
    assert g.edges["pkg.b"]["pkg.a"].how == "lazy"
    assert "pkg.a -> pkg.b -> pkg.a" in explain(g, cycles(g))


def test_relative_imports_and_package_inits_count(tmp_path):
    root = _package(tmp_path, {
        "pkg/x/__init__.py": "from .y import Y\n",  # x's __init__ runs whenever anything under x is imported
        "pkg/x/y.py": "from ..z import helper\nY = 1\n",
        "pkg/x/w.py": "W = 2\n",
        "pkg/z.py": "def helper():\n    from .x.w import W\n    return W\n",
    })
    g = build_graph(root, "pkg")
    assert set(g.edges["pkg.z"]) == {"pkg.x", "pkg.x.w"}
    assert cycles(g) == [["pkg.x", "pkg.x.y", "pkg.z"]]
    assert "pkg.x" not in g.edges["pkg.x.y"]  # its own package is not an edge


def test_a_registry_importing_by_name_counts(tmp_path):
    root = _package(tmp_path, {
        "pkg/registry.py": ("import importlib\nMODULES = ('pkg.plugin', 'pkg.other')\n"
                            "def register(obj):\n    return obj\n"
                            "def load():\n    for m in MODULES:\n        importlib.import_module(m)\n"),
        "pkg/plugin.py": "from pkg.registry import register\n",  # registration: part of the registry's design
        "pkg/other.py": "from pkg.registry import register\nfrom pkg import helper\n",
        "pkg/helper.py": "def f():\n    from pkg.registry import load\n    load()\n",  # a lookup: a real way back
        "pkg/runner.py": "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pkg.plugin'])\n"
                         "importlib = None\nimportlib.import_module(sys.argv[1])\n",
        "pkg/literal.py": "import importlib\nimportlib.import_module('pkg.plugin')\n",
    })
    g = build_graph(root, "pkg")
    assert g.registries == {"pkg.registry": {"pkg.plugin", "pkg.other"}, "pkg.runner": set()}
    assert g.edges["pkg.registry"]["pkg.plugin"].how == "string"
    assert g.edges["pkg.literal"]["pkg.plugin"].how == "string"
    assert "pkg.plugin" not in g.edges["pkg.runner"]  # `python -m` starts a process: not an import
    assert "pkg.registry" not in g.edges["pkg.plugin"]
    assert cycles(g) == [["pkg.helper", "pkg.other", "pkg.registry"]]


def test_argparse_and_the_cli_package_outside_it_are_reported(tmp_path):
    root = _package(tmp_path, {
        "pkg/cli/__init__.py": "",
        "pkg/cli/main.py": "import argparse\nfrom pkg import tool\n",
        "pkg/tool.py": "def run():\n    from pkg.cli.main import main\n",
        "pkg/other.py": "x = __import__('argparse')\n",
    })
    g = build_graph(root, "pkg")
    assert cli_violations(g, "pkg.cli") == ["pkg.other (line 1) imports argparse",
                                            "pkg.tool (line 2) imports pkg.cli",
                                            "pkg.tool (line 2) imports pkg.cli.main"]


def test_packages_that_import_each_other_are_a_cycle_even_without_a_module_loop(tmp_path):
    root = _package(tmp_path, {
        "pkg/a/__init__.py": "",
        "pkg/a/one.py": "from pkg.b.two import f\n",
        "pkg/a/three.py": "X = 3\n",
        "pkg/b/__init__.py": "",
        "pkg/b/two.py": "def f():\n    return 2\n",
        "pkg/b/four.py": "def g():\n    from pkg.a.three import X\n    return X\n",  # lazy, still counted
        "pkg/registry.py": "import importlib\nPLUGINS = ('pkg.c.plugin',)\n"
                           "def load():\n    for m in PLUGINS:\n        importlib.import_module(m)\n",
        "pkg/c/__init__.py": "",
        "pkg/c/plugin.py": "from pkg.registry import load\n",
    })
    g = build_graph(root, "pkg")
    assert cycles(g) == []  # no module loop
    pg = package_graph(g, "pkg")
    assert cycles(pg) == [["pkg.a", "pkg.b"]]
    assert "pkg.c" not in pg.edges["pkg.registry"]  # a registry's by-name list is not a dependency
    assert "pkg.a -> pkg.b -> pkg.a" in explain(pg, cycles(pg))


def test_an_import_of_the_lab_is_reported(tmp_path):
    root = _package(tmp_path, {
        "pkg/ok.py": "import json\n",
        "pkg/bad.py": "def f():\n    from gaji_lab.bench import runner\n    return runner\n",
        "pkg/named.py": "import importlib\nimportlib.import_module('gaji_lab.cli')\n",
    })
    assert lab_imports(build_graph(root, "pkg")) == ["pkg.bad (line 2) imports gaji_lab",
                                                     "pkg.named (line 2) imports gaji_lab"]
