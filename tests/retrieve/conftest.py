"""The retrievers search what the index and chunk expansion build, so their tests use those packages' test helpers:
the small ko/en index with its hash embedder (tests/index/fakes_index.py), the expanded keyword index
(tests/expand/fakes_expand.py) and ConTReGen's scripted brain (tests/methods/contregen/contregen_fakes.py),
imported by name like in their own folders."""
from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for helpers in ("index", "expand", "methods/contregen"):
    path = str(TESTS / helpers)
    if path not in sys.path:
        sys.path.insert(0, path)


import pytest  # noqa: E402 - after the helper folders are on the path

from fakes_index import build_small  # noqa: E402


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    """The small ko/en index (BM25 and dense), built once per test module."""
    i = build_small(tmp_path_factory.mktemp("small") / "i")
    yield i
    i.close()
