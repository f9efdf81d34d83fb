"""Training the decomposer's shape router: labels from question types, fixed split, recorded scores."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gaji.errors import ConfigError, InputError
from gaji.eval.datasets import EvalItem
import pytest

from gaji_lab.learn.shape_router import (HELD_OUT, KO_TRAIN_FILE, REPORTED, TRAIN, WRITTEN, WRITTEN_KO_TEST, choose_l2,
                                     labelled, train_router, written_train)


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
    r = train_router(_embed, "fake", l2=1e-3, iters=500, load=_load, written_file=None)
    assert r.embedder == "fake" and r.view == "skeleton"
    p = r.p_compare(_embed(r.texts(["Who was born first, Ann or Bo?", "Where was the director of film Z born?"])))
    assert p[0] > 0.5 > p[1]
    assert r.meta["written"]["n"] == 16
    assert r.meta["held_out"]["accuracy"] == 1.0 and r.meta["held_out"]["compare_n"] > 0
    assert r.meta["split"]["train"][0] == "hotpotqa 51-80"
    assert "korean_check" not in r.meta  # koblex missing: skipped, not fatal
    assert "train_written" not in r.meta and r.meta["written_ko_test"]["n"] == 16
    assert "l2_cv_balanced_accuracy" not in r.meta["fit"]  # l2 given: no cross-validation


def _load_with_koblex(name: str):
    if name == "koblex":  # legal scenarios naming two parties: chains that look like comparisons
        return SimpleNamespace(items=[EvalItem(f"k{i}", f"갑과 을은 계약 {i}을 맺었다. 어떤 법이 적용되나요?")
                                      for i in range(113)])
    return _set(name, 400)


def test_train_router_adds_written_korean_data_and_koblex_chains(tmp_path):
    f = tmp_path / "ko.jsonl"
    f.write_text('{"question": "갑과 을 중 누가 먼저?", "shape": "compare"}\n\n'
                 '{"question": "병의 감독은 어디서 태어났나?", "shape": "chain"}\n', encoding="utf-8")
    r = train_router(_embed, "fake", iters=300, load=_load_with_koblex, written_file=f)
    assert r.meta["split"]["train"][-2:] == ["ko.jsonl (written, Korean)", "koblex 51-113 (as chains)"]
    assert r.meta["train_written"]["n"] == 2 + 63 and r.meta["train_written"]["chain_n"] == 64
    assert r.meta["korean_check"] == {"set": "koblex 1-50", "n": 50, "routed_compare": 0.0}
    fit = r.meta["fit"]  # l2 chosen by cross-validation on the training rows, every candidate recorded
    assert fit["cv_folds"] == 5 and f"{fit['l2']:g}" in fit["l2_cv_balanced_accuracy"]


def test_choose_l2_scores_every_candidate_and_breaks_ties_towards_the_stronger_one():
    rng = np.random.default_rng(1)
    y = (np.arange(200) % 2).astype(float)
    X = np.c_[y * 2.0 - 1 + rng.normal(0, 0.3, 200), rng.normal(0, 1, (200, 3))]
    best, scores = choose_l2(X, y, grid=(1e-3, 1e-1), iters=300)
    assert set(scores) == {"0.001", "0.1"} and scores["0.001"] == scores["0.1"] == 1.0 and best == 1e-1
    noisy = np.r_[y[:100], 1 - y[100:]]  # half the labels flipped: no candidate beats chance by much
    _, scores = choose_l2(X, noisy, grid=(1e-3,), iters=300)
    assert scores["0.001"] < 0.7


def test_written_train_reads_the_shipped_file_and_names_bad_lines(tmp_path):
    rows = written_train()
    assert KO_TRAIN_FILE.is_file() and len(rows) == 80
    assert {s for _, s in rows} == {"chain", "compare"} and sum(s == "compare" for _, s in rows) == 40
    tests = {q for q, _ in WRITTEN + WRITTEN_KO_TEST}
    assert not tests & {q for q, _ in rows}  # no test question is trained on
    bad = tmp_path / "bad.jsonl"
    for text, msg in (('{"question": "q", "shape": "single"}', r"bad.jsonl:1: field 'shape'"),
                      ('{"shape": "chain"}', r"bad.jsonl:1: field 'question'"),
                      ('\n{"question": "q", "shape": "chain"}\n{oops', r"bad.jsonl:3: not valid JSON")):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=msg):
            written_train(bad)
    with pytest.raises(InputError, match="missing.jsonl: file not found"):
        written_train(tmp_path / "missing.jsonl")
