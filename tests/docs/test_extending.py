"""docs/extending.md's Python blocks run, in order, in one module namespace, in an empty folder: the method,
retriever and reader it walks a newcomer through are real. What the page registers is taken out again after."""
from __future__ import annotations

import re
import sys
import types
from pathlib import Path

from gaji.registry import METHODS, RETRIEVERS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "extending.md"


def test_the_extending_page_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert len(blocks) == 4
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GAJI_CONFIG", raising=False)
    registries = (METHODS, RETRIEVERS)
    for r in registries:
        r.names()  # load the shipped entries first, so only the page's are new
    before = {r.kind: set(r._entries) for r in registries}
    page = types.ModuleType("extending_page")  # the reader's Format names the module that reads: this one
    monkeypatch.setitem(sys.modules, page.__name__, page)
    try:
        for i, code in enumerate(blocks, 1):
            exec(compile(code, f"{PAGE.name} block {i}", "exec"), page.__dict__)
        assert {"first-passages", "bm25+title"} <= set(METHODS.names()) | set(RETRIEVERS.names())
    finally:
        for r in registries:
            for name in set(r._entries) - before[r.kind]:
                del r._entries[name]
