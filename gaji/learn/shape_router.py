"""Training the decomposer's shape router (gaji/methods/toq/router.py): chain vs compare.

Labels come from the datasets' own question types (the shape map of `gaji bench decomposer`):
HotpotQA bridge / comparison, 2Wiki compositional, inference / comparison, bridge_comparison,
MuSiQue n-hop (all chains). The split is fixed and recorded in the router file:

  train     HotpotQA 51-80 and 141-342, 2Wiki 51-83, MuSiQue 51-80
  held out  HotpotQA 81-140 and MuSiQue 81-100 (the decomposer bench's questions)
  reported  HotpotQA 1-50, 2Wiki 1-50, MuSiQue 1-50 (what BENCHMARKS.md reports methods on): never
            trained on; their routing accuracy is measured and recorded too

No Korean set has shape labels; the router's Korean behaviour is recorded as the share of KoBLEX
questions 1-50 (legal, no comparisons among them) that it routes to "compare".
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from gaji.methods.toq.router import ShapeRouter

# (dataset, start, stop) as Python slices over the question file
TRAIN = (("hotpotqa", 50, 80), ("hotpotqa", 140, 342), ("2wikimultihopqa", 50, 83), ("musique", 50, 80))
HELD_OUT = (("hotpotqa", 80, 140), ("musique", 80, 100))
REPORTED = (("hotpotqa", 0, 50), ("2wikimultihopqa", 0, 50), ("musique", 0, 50))
KOREAN_CHECK = ("koblex", 0, 50)


def labelled(parts: Sequence[tuple[str, int, int]], load: Callable[[str], Any] | None = None) -> list[tuple[str, str]]:
    """(question, shape) for every question with a known shape in the given slices."""
    from gaji.bench.decomposer import expected_shape
    from gaji.eval.datasets import load_dataset

    load = load or load_dataset
    out = []
    for name, a, b in parts:
        for it in load(name).items[a:b]:
            shape = expected_shape(it.type)
            if shape:
                out.append((it.question, shape))
    return out


def accuracy(router: ShapeRouter, X: np.ndarray, shapes: Sequence[str]) -> dict[str, Any]:
    """Accuracy overall and per gold shape (recall), with counts."""
    pred = np.where(router.p_compare(X) >= router.threshold, "compare", "chain")
    gold = np.asarray(shapes)
    out: dict[str, Any] = {"n": len(gold), "accuracy": round(float((pred == gold).mean()), 4) if len(gold) else None}
    for s in ("chain", "compare"):
        m = gold == s
        out[f"{s}_n"] = int(m.sum())
        out[f"{s}_recall"] = round(float((pred[m] == s).mean()), 4) if m.any() else None
    return out


def train_router(embed: Callable[[list[str]], np.ndarray], embedder_id: str, l2: float = 1e-3, iters: int = 3000,
                 lr: float = 1.0, load: Callable[[str], Any] | None = None) -> ShapeRouter:
    """Fit on TRAIN (class-balanced logistic regression), score HELD_OUT and REPORTED, record all in meta."""
    from gaji.learn.classifier import class_weights, logreg_fit

    train = labelled(TRAIN, load)
    if not train or len({s for _, s in train}) < 2:
        raise ValueError("the training slices hold fewer than two shapes")
    X = embed([q for q, _ in train]).astype(np.float64)
    y = np.array([s == "compare" for _, s in train], dtype=np.float64)
    w, b = logreg_fit(X, y, l2=l2, iters=iters, lr=lr, weights=class_weights(y.astype(np.int64), "balanced"))
    router = ShapeRouter(w, b, embedder_id)
    meta: dict[str, Any] = {
        "split": {name: [f"{n} {a + 1}-{b_}" for n, a, b_ in parts]
                  for name, parts in (("train", TRAIN), ("held_out", HELD_OUT), ("reported", REPORTED))},
        "fit": {"l2": l2, "iters": iters, "lr": lr, "class_weights": "balanced"},
        "train": accuracy(router, X, [s for _, s in train]),
    }
    for name, parts in (("held_out", HELD_OUT), ("reported", REPORTED)):
        rows = labelled(parts, load)
        meta[name] = accuracy(router, embed([q for q, _ in rows]).astype(np.float64), [s for _, s in rows])
    from gaji.errors import GajiError
    from gaji.eval.datasets import load_dataset

    name, a, b_ = KOREAN_CHECK
    try:
        ko = [it.question for it in (load or load_dataset)(name).items[a:b_]]
    except GajiError:  # the Korean check is informative only; without the set it is skipped
        ko = []
    if ko:
        p = router.p_compare(embed(ko).astype(np.float64))
        meta["korean_check"] = {"set": f"{name} {a + 1}-{b_}", "n": len(ko),
                                "routed_compare": round(float((p >= router.threshold).mean()), 4)}
    router.meta = meta
    return router
