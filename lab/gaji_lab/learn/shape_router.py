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

No Korean set has shape labels, and the datasets' questions are all English, so Korean comparisons
were unseen in training (2 of WRITTEN's 4 Korean comparisons went to "chain"). Korean therefore
has written data of its own (written by us; no entity of WRITTEN's Korean questions reused):

  train     KO_TRAIN_FILE (data/shape_router_ko.jsonl): 40 Korean comparisons, 40 Korean chains
  test      WRITTEN's 8 Korean questions and WRITTEN_KO_TEST (16 more, written after the training
            file and never trained on)

KoBLEX's legal scenarios ("갑과 을은 … 계약을 체결하였다. …") name parties the way comparisons name
items, and the written data alone sent 16 % of KoBLEX 1-50 to "compare". Its questions ask what the
law says about a scenario, never the same fact about each named item, so KOREAN_CHAINS (KoBLEX
51-113) trains as "chain", and the share of KoBLEX 1-50 routed to "compare" is the Korean check.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from gaji.errors import GajiError, InputError
from gaji.eval.sets import load_dataset
from gaji.io import iter_jsonl
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
KOREAN_CHAINS = ("koblex", 50, 113)  # every question a chain (see above); trained on with the written file
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


# written after KO_TRAIN_FILE, never trained on: other phrasings ("랑", "하고", "보다", three items)
WRITTEN_KO_TEST: tuple[tuple[str, str], ...] = (
    ("유재석과 강호동 중 방송 데뷔가 더 빠른 사람은 누구인가요?", "compare"),
    ("수원이랑 용인 중에 인구가 더 많은 곳은?", "compare"),
    ("『미생』하고 『이태원 클라쓰』는 둘 다 웹툰이 원작인가요?", "compare"),
    ("롯데월드타워는 잠실종합운동장보다 먼저 완공되었나요?", "compare"),
    ("설악산, 오대산, 치악산 가운데 가장 높은 산은 어디인가요?", "compare"),
    ("두 소설 『난장이가 쏘아올린 작은 공』과 『광장』의 작가는 같은 대학을 나왔나요?", "compare"),
    ("형법과 형사소송법 중 조문 수가 더 많은 법은?", "compare"),
    ("셀트리온과 삼성바이오로직스의 본사는 같은 도시에 있나요?", "compare"),
    ("유재석이 진행한 첫 예능 프로그램의 방송사는 어디인가요?", "chain"),
    ("수원 화성을 설계한 학자가 유배된 곳은 어디인가요?", "chain"),
    ("웹툰 『미생』을 그린 작가의 다른 대표작은 무엇인가요?", "chain"),
    ("롯데그룹을 창업한 사람이 처음 회사를 세운 나라는 어디인가요?", "chain"),
    ("설악산이 있는 국립공원을 관리하는 기관의 본부는 어디에 있나요?", "chain"),
    ("『광장』을 쓴 작가가 태어난 도시는 지금 어느 나라에 있나요?", "chain"),
    ("전세 계약이 끝났는데 집주인이 보증금을 돌려주지 않으면 임차인이 신청할 수 있는 제도는 무엇인가요?", "chain"),
    ("셀트리온을 세운 사람이 전에 일했던 회사는 어디인가요?", "chain"),
)

KO_TRAIN_FILE = Path(__file__).parent / "data" / "shape_router_ko.jsonl"


def written_train(path: Path | str = KO_TRAIN_FILE) -> list[tuple[str, str]]:
    """(question, shape) pairs from a JSONL file of {"question", "shape"}; InputError naming file and line."""
    out: list[tuple[str, str]] = []
    for n, row in iter_jsonl(path):
        if not str(row.get("question") or "").strip():
            raise InputError("field 'question' is missing or empty", str(path), n)
        if row.get("shape") not in ("chain", "compare"):
            raise InputError(f"field 'shape' must be 'chain' or 'compare', not {row.get('shape')!r}", str(path), n)
        out.append((str(row["question"]).strip(), row["shape"]))
    return out


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


L2_GRID = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4)


def choose_l2(X: np.ndarray, y: np.ndarray, grid: Sequence[float] = L2_GRID, folds: int = 5, iters: int = 3000,
              lr: float = 1.0, seed: int = 0) -> tuple[float, dict[str, float]]:
    """The L2 strength with the best mean balanced accuracy over `folds`-fold cross-validation on the
    training rows only (ties: the stronger regulariser), and the score of every candidate."""
    from gaji_lab.learn.classifier import class_weights, logreg_fit

    fold = np.random.default_rng(seed).permutation(len(y)) % folds
    scores: dict[str, float] = {}
    for l2 in grid:
        accs = []
        for f in range(folds):
            tr, te = fold != f, fold == f
            w, b = logreg_fit(X[tr], y[tr], l2=l2, iters=iters, lr=lr,
                              weights=class_weights(y[tr].astype(np.int64), "balanced"))
            pred = (X[te] @ w + b) >= 0
            recalls = [float((pred[y[te] == c] == c).mean()) for c in (0, 1) if (y[te] == c).any()]
            accs.append(sum(recalls) / len(recalls))
        scores[f"{l2:g}"] = round(float(np.mean(accs)), 4)
    best = max(grid, key=lambda v: (scores[f"{v:g}"], v))
    return best, scores


def train_router(embed: Callable[[list[str]], np.ndarray], embedder_id: str, l2: float | None = None,
                 iters: int = 3000,
                 lr: float = 1.0, load: Callable[[str], Any] | None = None, view: str = "skeleton",
                 written_file: Path | str | None = KO_TRAIN_FILE) -> ShapeRouter:
    """Fit on TRAIN plus `written_file` (class-balanced logistic regression; l2=None: chosen by
    cross-validation on the training rows; written_file=None: datasets only), score
    HELD_OUT, REPORTED, WRITTEN and WRITTEN_KO_TEST, record all in meta."""
    from gaji_lab.learn.classifier import class_weights, logreg_fit

    extra = written_train(written_file) if written_file is not None else []
    if extra:
        name, a, b_ = KOREAN_CHAINS
        extra += [(it.question, "chain") for it in (load or load_dataset)(name).items[a:b_]]
    train = labelled(TRAIN, load) + extra
    if not train or len({s for _, s in train}) < 2:
        raise ValueError("the training slices hold fewer than two shapes")

    def vectors(questions: list[str]) -> np.ndarray:
        return embed(view_texts(view, questions)).astype(np.float64)

    X = vectors([q for q, _ in train])
    y = np.array([s == "compare" for _, s in train], dtype=np.float64)
    cv: dict[str, float] | None = None
    if l2 is None:  # chosen on the training rows only: no test set is looked at
        l2, cv = choose_l2(X, y, iters=iters, lr=lr)
    w, b = logreg_fit(X, y, l2=l2, iters=iters, lr=lr, weights=class_weights(y.astype(np.int64), "balanced"))
    router = ShapeRouter(w, b, embedder_id, view=view)
    split: dict[str, Any] = {name: [f"{n} {a + 1}-{b_}" for n, a, b_ in parts]
                             for name, parts in (("train", TRAIN), ("held_out", HELD_OUT), ("reported", REPORTED))}
    if extra:
        name, a, b_ = KOREAN_CHAINS
        split["train"] += [f"{Path(written_file).name} (written, Korean)", f"{name} {a + 1}-{b_} (as chains)"]
    meta: dict[str, Any] = {
        "split": split,
        "fit": {"l2": l2, "iters": iters, "lr": lr, "class_weights": "balanced",
                **({"l2_cv_balanced_accuracy": cv, "cv_folds": 5} if cv else {})},
        "train": accuracy(router, X, [s for _, s in train]),
    }
    for name, parts in (("held_out", HELD_OUT), ("reported", REPORTED)):
        rows = labelled(parts, load)
        meta[name] = accuracy(router, vectors([q for q, _ in rows]), [s for _, s in rows])
    for name, rows in (("written", WRITTEN), ("written_ko_test", WRITTEN_KO_TEST)):
        meta[name] = accuracy(router, vectors([q for q, _ in rows]), [s for _, s in rows])
    if extra:
        meta["train_written"] = accuracy(router, vectors([q for q, _ in extra]), [s for _, s in extra])
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
