"""Training the decomposer's shape router (gaji/methods/toq/router.py): chain vs compare.

Labels come from the datasets' own question types (the shape map of `gaji bench decomposer`):
HotpotQA bridge / comparison, 2Wiki compositional, inference / comparison, bridge_comparison,
MuSiQue n-hop (all chains). The split is fixed and recorded in the router file:

  train     HotpotQA 51-80 and 141-342, 2Wiki 51-83, MuSiQue 51-80
  held out  HotpotQA 81-140 and MuSiQue 81-100 (the decomposer bench's questions)
  reported  HotpotQA 1-50, 2Wiki 1-50, MuSiQue 1-50 (what BENCHMARKS.md reports methods on): never
            trained on; their routing accuracy is measured and recorded too

  written   WRITTEN below: questions we wrote in both languages, in no dataset's style (the first
            router, on whole-question embeddings, routed most of their comparisons to "chain")

No Korean set has shape labels; besides WRITTEN, the router's Korean behaviour is recorded as the
share of KoBLEX questions 1-50 (legal, no comparisons among them) that it routes to "compare".
"""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from gaji.errors import GajiError
from gaji.eval.datasets import load_dataset
from gaji.methods.toq.router import ShapeRouter, view_texts

# the datasets' question-type labels -> the shape a decomposition should have (MuSiQue's "2hop"... are chains)
SHAPES = {"bridge": "chain", "compositional": "chain", "inference": "chain",
          "comparison": "compare", "bridge_comparison": "compare"}


def expected_shape(qtype: str) -> str | None:
    """'chain' or 'compare' from a dataset's question-type label; None when the label says nothing."""
    t = (qtype or "").strip().lower()
    if t in SHAPES:
        return SHAPES[t]
    if re.fullmatch(r"\dhop\d*", t):  # MuSiQue: every question is a chain of 2-4 hops
        return "chain"
    return None


# (dataset, start, stop) as Python slices over the question file
TRAIN = (("hotpotqa", 50, 80), ("hotpotqa", 140, 342), ("2wikimultihopqa", 50, 83), ("musique", 50, 80))
HELD_OUT = (("hotpotqa", 80, 140), ("musique", 80, 100))
REPORTED = (("hotpotqa", 0, 50), ("2wikimultihopqa", 0, 50), ("musique", 0, 50))
KOREAN_CHECK = ("koblex", 0, 50)
WRITTEN: tuple[tuple[str, str], ...] = (
    ("Who was born first, Park Chan-wook or Bong Joon-ho?", "compare"),
    ("Are Nintendo and Sony both Japanese companies?", "compare"),
    ("Which film came out earlier, Oldboy or The Host?", "compare"),
    ("Were Oldboy and The Host directed by the same person?", "compare"),
    ("In which city was the director of the film Parasite born?", "chain"),
    ("What instrument does the lead singer of Coldplay play?", "chain"),
    ("The author of Dune was born in which state?", "chain"),
    ("How old was the founder of Samsung when the company was founded?", "chain"),
    ("박찬욱과 봉준호 중 누가 먼저 태어났나요?", "compare"),
    ("닌텐도와 소니는 둘 다 일본 회사인가요?", "compare"),
    ("영화 『올드보이』와 『괴물』 중 어느 것이 먼저 개봉했나요?", "compare"),
    ("갤럭시 S24와 아이폰 15 중 배터리 용량이 더 큰 것은?", "compare"),
    ("영화 『기생충』 감독이 태어난 도시는 어디인가요?", "chain"),
    ("콜드플레이 리드 보컬이 연주하는 악기는 무엇인가요?", "chain"),
    ("소설 『토지』의 작가가 태어난 지역은 어디인가요?", "chain"),
    ("삼성을 창업한 사람은 회사를 세울 때 몇 살이었나요?", "chain"),
)


def labelled(parts: Sequence[tuple[str, int, int]], load: Callable[[str], Any] | None = None) -> list[tuple[str, str]]:
    """(question, shape) for every question with a known shape in the given slices."""
    load = load or load_dataset
    out = []
    for name, a, b in parts:
        for it in load(name).items[a:b]:
            shape = expected_shape(it.type)
            if shape:
                out.append((it.question, shape))
    return out


def accuracy(router: ShapeRouter, X: np.ndarray, shapes: Sequence[str]) -> dict[str, Any]:
    """Accuracy overall and per gold shape (recall), with counts; X = embeddings of the router's view."""
    pred = np.where(router.p_compare(X) >= router.threshold, "compare", "chain")
    gold = np.asarray(shapes)
    out: dict[str, Any] = {"n": len(gold), "accuracy": round(float((pred == gold).mean()), 4) if len(gold) else None}
    for s in ("chain", "compare"):
        m = gold == s
        out[f"{s}_n"] = int(m.sum())
        out[f"{s}_recall"] = round(float((pred[m] == s).mean()), 4) if m.any() else None
    return out


def train_router(embed: Callable[[list[str]], np.ndarray], embedder_id: str, l2: float = 1e-3, iters: int = 3000,
                 lr: float = 1.0, load: Callable[[str], Any] | None = None, view: str = "skeleton") -> ShapeRouter:
    """Fit on TRAIN (class-balanced logistic regression), score HELD_OUT and REPORTED, record all in meta."""
    from gaji.learn.classifier import class_weights, logreg_fit

    train = labelled(TRAIN, load)
    if not train or len({s for _, s in train}) < 2:
        raise ValueError("the training slices hold fewer than two shapes")

    def vectors(questions: list[str]) -> np.ndarray:
        return embed(view_texts(view, questions)).astype(np.float64)

    X = vectors([q for q, _ in train])
    y = np.array([s == "compare" for _, s in train], dtype=np.float64)
    w, b = logreg_fit(X, y, l2=l2, iters=iters, lr=lr, weights=class_weights(y.astype(np.int64), "balanced"))
    router = ShapeRouter(w, b, embedder_id, view=view)
    meta: dict[str, Any] = {
        "split": {name: [f"{n} {a + 1}-{b_}" for n, a, b_ in parts]
                  for name, parts in (("train", TRAIN), ("held_out", HELD_OUT), ("reported", REPORTED))},
        "fit": {"l2": l2, "iters": iters, "lr": lr, "class_weights": "balanced"},
        "train": accuracy(router, X, [s for _, s in train]),
    }
    for name, parts in (("held_out", HELD_OUT), ("reported", REPORTED)):
        rows = labelled(parts, load)
        meta[name] = accuracy(router, vectors([q for q, _ in rows]), [s for _, s in rows])
    meta["written"] = accuracy(router, vectors([q for q, _ in WRITTEN]), [s for _, s in WRITTEN])
    name, a, b_ = KOREAN_CHECK
    try:
        ko = [it.question for it in (load or load_dataset)(name).items[a:b_]]
    except GajiError:  # the Korean check is informative only; without the set it is skipped
        ko = []
    if ko:
        p = router.p_compare(vectors(ko))
        meta["korean_check"] = {"set": f"{name} {a + 1}-{b_}", "n": len(ko),
                                "routed_compare": round(float((p >= router.threshold).mean()), 4)}
    router.meta = meta
    return router
