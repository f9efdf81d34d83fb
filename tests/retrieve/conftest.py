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
