"""Every retriever gaji ships is a module of gaji/retrieve/, registered by name, and named in the package's map."""
from pathlib import Path

import gaji.retrieve
from gaji.index import base as old_path
from gaji.registry import RETRIEVERS
from gaji.types import Retriever

SHIPPED = {"bm25", "dense", "hybrid", "bm25+kw", "hybrid+kw", "bm25+kwf", "dense+kwf", "hybrid+kwf", "contre"}


def test_every_registered_retriever_lives_in_gaji_retrieve():
    entries = {e.name: e.obj.__module__ for e in RETRIEVERS.entries()}
    assert SHIPPED <= set(entries)
    outside = {n: m for n, m in entries.items() if n in SHIPPED and not m.startswith("gaji.retrieve.")}
    assert not outside, f"registered outside gaji/retrieve/: {outside}"


def test_the_package_map_names_every_module_and_retriever():
    doc = gaji.retrieve.__doc__
    modules = sorted(p.name for p in Path(gaji.retrieve.__file__).parent.glob("*.py") if p.name != "__init__.py")
    assert [m for m in modules if m not in doc] == []
    assert [n for n in sorted(SHIPPED) if n not in doc] == []


def test_the_contract_is_one_class_under_its_old_name_too():
    assert old_path.Retriever is Retriever

    class Echo(Retriever):
        name = "echo"

        def search(self, query, k=5):
            return [query] * k

    assert Echo().search_many(["가", "b"], 2) == [["가", "가"], ["b", "b"]]
    assert Echo().describe() == {"name": "echo"}
