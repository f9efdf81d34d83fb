"""`gaji index search`: its -k is bounded like every other k (gaji.coerce.MAX_K), a usage error, not a traceback."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from gaji.cli.main import main

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    out = tmp_path_factory.mktemp("idx") / "demo"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")
    return str(out)


@pytest.mark.parametrize("k", ["1000000000", "101", "0", "-5"])
def test_search_with_k_out_of_range_is_exit_2_naming_the_range(index, capsys, k):
    assert main(["index", "search", index, "훈민정음", "--retriever", "bm25", "-k", k]) == 2
    captured = capsys.readouterr()
    assert f"error: -k must be between 1 and 100, not {k}" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_search_with_k_at_the_bound_answers(index, capsys):
    assert main(["index", "search", index, "훈민정음", "--retriever", "bm25", "-k", "100", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert 0 < len(rows) <= 100
