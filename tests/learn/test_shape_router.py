"""Training the decomposer's shape router: labels from question types, fixed split, recorded scores."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gaji.errors import ConfigError
from gaji.eval.datasets import EvalItem
from gaji.learn.shape_router import HELD_OUT, REPORTED, TRAIN, labelled, train_router


def _set(name: str, n: int):
    """n questions alternating comparison / bridge (2Wiki-style labels), plus one unlabelled."""
    items = []
    for i in range(n):
        if i % 2:
            items.append(EvalItem(f"{name}{i}", f"Who was born first, person {i} or person {i + 1}?", type="comparison"))
        else:
            items.append(EvalItem(f"{name}{i}", f"Where was the director of film {i} born?",
                                  type="2hop" if name == "musique" else "bridge"))
    items.append(EvalItem("u", "Unlabelled?", type=""))
    return SimpleNamespace(items=items)


def _load(name: str):
    if name == "koblex":
        raise ConfigError("dataset 'koblex': not here")  # the Korean check is then skipped
    return _set(name, 400)


def _embed(texts):
    """Two informative dims (comparison cue, chain cue) and a constant one."""
    return np.array([[1.0 if " or " in t else 0.0, 1.0 if "director" in t else 0.0, 0.5] for t in texts])


def test_split_parts_are_disjoint_per_dataset():
    spans = {}
    for name, a, b in TRAIN + HELD_OUT + REPORTED:
        for other_a, other_b in spans.get(name, []):
            assert b <= other_a or a >= other_b, (name, a, b)
        spans.setdefault(name, []).append((a, b))


def test_labelled_maps_types_to_shapes_and_skips_unknown():
    rows = labelled([("hotpotqa", 0, 4)], _load)
    assert [s for _, s in rows] == ["chain", "compare", "chain", "compare"]
    assert labelled([("x", 400, 401)], _load) == []  # only the unlabelled question


def test_train_router_fits_and_records_split_and_scores():
    r = train_router(_embed, "fake", iters=500, load=_load)
    assert r.embedder == "fake" and r.view == "skeleton"
    p = r.p_compare(_embed(r.texts(["Who was born first, Ann or Bo?", "Where was the director of film Z born?"])))
    assert p[0] > 0.5 > p[1]
    assert r.meta["written"]["n"] == 16
    assert r.meta["held_out"]["accuracy"] == 1.0 and r.meta["held_out"]["compare_n"] > 0
    assert r.meta["split"]["train"][0] == "hotpotqa 51-80"
    assert "korean_check" not in r.meta  # koblex missing: skipped, not fatal
