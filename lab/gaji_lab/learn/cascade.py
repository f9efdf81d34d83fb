"""Training `auto`'s safety model (gaji/methods/auto/safety.py) from recorded runs.

Data: runs of auto's first rung (OneR with `logprobs=true`, `gaji eval ... --method oner -o logprobs=true`), with
their traces: each question's signals are computed from its trace exactly as `auto` computes them live
(signals.node_signals), and its label is whether that answer was right (F1 >= 0.5). Recorded runs of the routes a
question can escalate to (the tree, the chain) on the same questions give the replay: what a threshold would have
scored and spent.

Model: logistic regression (numpy gradient descent, standardised signals, L2). Split: k-fold by question id
(fold = sha1(id) mod folds); every number in the report is held out: a question's P(right) comes from the model
fitted on the other folds. Thresholds, chosen on those held-out P(right) over all sets pooled:

    medium  the best F1 within `budget` mean tokens per question
    low     the best F1 escalating at most half as many questions as medium (and at most `low_share`)
    high    the best F1 escalating at least twice as many questions as medium

The shipped model is then fitted on every question, with the thresholds so chosen.
"""
from __future__ import annotations

import hashlib
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji.errors import ConfigError
from gaji.io import read_jsonl_tolerant
from gaji.methods.auto.features import question_features, shape_of
from gaji.methods.check import KINDS as CHECK_KINDS
from gaji.methods.safety import DEFAULT_ESCALATE, ESCALATIONS, FORMAT, SafetyModel
from gaji.methods.signals import SIGNALS, node_signals
from gaji.text.lang import detect_lang
from gaji.types import Trace

RIGHT = 0.5  # an answer with F1 at least this is right


@dataclass
class Example:
    set: str
    id: str
    question: str
    signals: dict[str, float]
    f1: float
    tokens: float
    shape: str  # "compare" | "intersection" | "other" (gaji.methods.auto.features.shape_of)
    escalated: dict[str, tuple[float, float]] = field(default_factory=dict)  # route -> (F1, tokens) recorded

    @property
    def right(self) -> bool:
        return self.f1 >= RIGHT

    @property
    def lang(self) -> str:
        return "ko" if self.signals.get("ko") else "en"


def _latest(path: Path) -> dict[str, dict]:
    """The last line of each question id (a resumed run may hold several)."""
    return {str(r["id"]): r for r in read_jsonl_tolerant(path) if "id" in r}


def read_run(run: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """(results by id, traces by id) of a recorded run directory."""
    res, tr = run / "results.jsonl", run / "traces.jsonl"
    if not res.exists():
        raise ConfigError(f"{run}: no results.jsonl (a run directory from `gaji eval`)")
    return _latest(res), _latest(tr)  # traces.jsonl, or its .xz (gaji.io reads either)


def examples_of(set_name: str, first_rung: Path, escalations: dict[str, Path]) -> list[Example]:
    """One Example per question of `first_rung` that finished, with the escalation routes' recorded results."""
    results, traces = read_run(first_rung)
    esc = {route: read_run(p)[0] for route, p in escalations.items()}
    out = []
    for qid, r in results.items():
        if r.get("status") != "ok" or qid not in traces:
            continue
        trace = Trace.from_dict(traces[qid]["trace"])
        q = trace.question
        lang = trace.lang if trace.lang in ("ko", "en") else detect_lang(q)
        feats = question_features(q, p_compare=0.5)
        passages = [trace.passages[i] for i in trace.root.passage_ids if i in trace.passages]
        shape = shape_of(q, feats)
        sig = node_signals(trace.root, q, trace.answer, passages, lang, shape=shape)
        ex = Example(set_name, qid, q, sig, float(r["metrics"]["f1"]), float(r["metrics"]["tokens"]), shape)
        for route, rows in esc.items():
            if qid in rows and rows[qid].get("status") == "ok":
                m = rows[qid]["metrics"]
                ex.escalated[route] = (float(m["f1"]), float(m["tokens"]))
        out.append(ex)
    if not out:
        raise ConfigError(f"{first_rung}: no finished question with a trace")
    return out


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float, steps: int = 4000, lr: float = 0.1) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-regularised logistic regression on standardised X."""
    w, b = np.zeros(X.shape[1]), 0.0
    n = len(y)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        g = p - y
        w -= lr * (X.T @ g / n + l2 * w)
        b -= lr * float(g.mean())
    return w, b


def auc(p: np.ndarray, y: np.ndarray) -> float:
    """Area under the ROC curve (the chance that a right answer scores above a wrong one; ties count half)."""
    pos, neg = p[y == 1], p[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    wins = sum(float((pp > neg).sum()) + 0.5 * float((pp == neg).sum()) for pp in pos)
    return wins / (len(pos) * len(neg))


def fold_of(qid: str, folds: int) -> int:
    return int(hashlib.sha1(qid.encode("utf-8")).hexdigest(), 16) % folds


@dataclass
class Standard:
    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray) -> "Standard":
        s = X.std(axis=0)
        return cls(X.mean(axis=0), np.where(s > 1e-9, s, 1.0))

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return (X - self.mean) / self.scale


def held_out_p(exs: list[Example], signals: tuple[str, ...], l2: float, folds: int) -> np.ndarray:
    X = np.array([[e.signals[s] for s in signals] for e in exs])
    y = np.array([1.0 if e.right else 0.0 for e in exs])
    p = np.zeros(len(exs))
    fold = np.array([fold_of(f"{e.set}/{e.id}", folds) for e in exs])
    for k in range(folds):
        tr, te = fold != k, fold == k
        if not te.any():
            continue
        st = Standard.of(X[tr])
        w, b = fit_logistic(st(X[tr]), y[tr], l2)
        p[te] = 1.0 / (1.0 + np.exp(-(st(X[te]) @ w + b)))
    return p


def replay(exs: list[Example], p: np.ndarray, threshold: float, escalate: dict[str, str],
           start: dict[str, dict[str, str]] | None = None) -> dict[str, float]:
    """What the cascade would have scored and spent at `threshold`: an escalated question takes its route's recorded
    F1 and costs the cheap attempt's tokens plus the route's; a question without a recording of its route keeps
    the cheap answer and is counted as not escalated. A question whose language and shape `start` sends deeper
    takes that route's F1 and tokens alone (no cheap attempt), and counts as escalated."""
    return replay_at(exs, p, np.full(len(exs), threshold), escalate, start)


def replay_at(exs: list[Example], p: np.ndarray, thresholds: np.ndarray, escalate: dict[str, str],
              start: dict[str, dict[str, str]] | None = None) -> dict[str, float]:
    """`replay` with a threshold per question (each at its language's)."""
    f1 = tok = esc = 0.0
    for e, pe, t in zip(exs, p, thresholds):
        route = escalate.get(f"{e.lang}:{e.shape}") or escalate[e.shape]  # "ko:other": a language's own route
        first = (start or {}).get(e.lang, {}).get(e.shape)
        if first is not None and first in e.escalated:
            rf1, rtok = e.escalated[first]
            f1, tok, esc = f1 + rf1, tok + rtok, esc + 1
        elif pe < t and route in e.escalated:
            rf1, rtok = e.escalated[route]
            f1, tok, esc = f1 + rf1, tok + e.tokens + rtok, esc + 1
        else:
            f1, tok = f1 + e.f1, tok + e.tokens
    n = max(1, len(exs))
    return {"f1": round(100 * f1 / n, 1), "tokens": round(tok / n, 1), "escalated": round(esc / n, 3)}


def choose_thresholds(exs: list[Example], p: np.ndarray, escalate: dict[str, str], budget: float,
                      low_share: float, start: dict[str, dict[str, str]] | None = None) -> dict[str, float]:
    """medium: the best held-out F1 within `budget` tokens per question; low: the best escalating at most half as
    many questions as medium (and at most `low_share`); high: the best escalating at least twice as many (so the
    knob always spends more going up, whether or not that buys F1 on the dev data). Medium and high are replayed
    with the shapes `start` sends deeper; low starts every question with one retrieval."""
    grid = sorted({0.0, 1.0, *np.round(p, 4).tolist()})
    rows = [(t, replay(exs, p, t, escalate, start)) for t in grid]
    flat = [(t, replay(exs, p, t, escalate)) for t in grid] if start else rows

    def best(ok, among=rows) -> float:
        cands = [(r["f1"], -r["tokens"], t) for t, r in among if ok(r)]
        return max(cands)[2] if cands else 0.0

    medium = best(lambda r: r["tokens"] <= budget)
    share = dict(rows)[medium]["escalated"]  # medium's row of the grid, not replayed again
    low = best(lambda r: r["escalated"] <= min(low_share, share / 2), flat)
    high = best(lambda r: r["escalated"] >= min(1.0, max(2 * share, share + 0.05)))
    return {"low": min(low, medium), "medium": medium, "high": max(high, medium)}


def train_cascade(sets: dict[str, tuple[Path, dict[str, Path]]], escalate: dict[str, str], *, l2: float = 0.3,
                  folds: int = 5, budget: float = 3000.0, low_share: float = 0.1,
                  signals: tuple[str, ...] = SIGNALS,
                  start: dict[str, dict[str, str]] | None = None) -> tuple[SafetyModel, dict[str, Any]]:
    """The safety model and its report from `sets`: name -> (first-rung run, {route: escalation run}). `start`:
    per language, the shapes that skip the one retrieval and start on a deeper route (effort medium and high)."""
    start = start or {}
    escalate = {**DEFAULT_ESCALATE, **escalate}
    exs: list[Example] = []
    for name, (first, esc) in sets.items():
        exs.extend(examples_of(name, first, esc))
    signals = tuple(s for s in signals if len({e.signals[s] for e in exs}) > 1)  # a constant signal says nothing
    p = held_out_p(exs, signals, l2, folds)
    y = np.array([1 if e.right else 0 for e in exs])
    thresholds = choose_thresholds(exs, p, escalate, budget, low_share, start)
    # per language: the same rules on that language's questions, with medium's budget scaled to what one retrieval
    # costs there (`budget` is for English; a Korean prompt costs about 2.5 times as many tokens)
    en_cost = float(np.mean([e.tokens for e in exs if e.lang == "en"] or [1.0]))
    by_lang: dict[str, dict[str, float]] = {}
    for lang in ("en", "ko"):
        idx = [i for i, e in enumerate(exs) if e.lang == lang]
        if len(idx) >= 10:
            sub = [exs[i] for i in idx]
            scale = float(np.mean([e.tokens for e in sub])) / en_cost
            by_lang[lang] = choose_thresholds(sub, p[idx], escalate, budget * scale, low_share, start)
    X = np.array([[e.signals[s] for s in signals] for e in exs])
    st = Standard.of(X)
    w, b = fit_logistic(st(X), y.astype(float), l2)
    report: dict[str, Any] = {"questions": {s: sum(1 for e in exs if e.set == s) for s in sets},
                              "right_share": round(float(y.mean()), 3), "auc_held_out": round(auc(p, y), 3),
                              "by_set": {}}
    for s in sets:
        idx = [i for i, e in enumerate(exs) if e.set == s]
        sub, ps = [exs[i] for i in idx], p[idx]
        row: dict[str, Any] = {"auc": round(auc(ps, y[idx]), 3), "first_rung": replay(sub, ps, 0.0, escalate)}
        for effort in thresholds:
            # each question at its language's threshold
            ts = np.array([by_lang.get(e.lang, thresholds)[effort] for e in sub])
            row[effort] = replay_at(sub, ps, ts, escalate, None if effort == "low" else start)
        for route in sorted({r for e in sub for r in e.escalated}):
            row[f"all_{route}"] = replay(sub, np.zeros(len(sub)), 1.01, {k: route for k in escalate})
        oracle_f1 = [max([e.f1] + [v[0] for v in e.escalated.values()]) for e in sub]
        row["oracle_f1"] = round(100 * float(np.mean(oracle_f1)), 1)
        report["by_set"][s] = row
    meta = {"trained_on": report["questions"],
            "split": {"kind": "k-fold by question id", "folds": folds, "fold": "sha1(set/id) mod folds"},
            "fit": {"model": "logistic regression (numpy gradient descent)", "l2": l2, "label": f"F1 >= {RIGHT}"},
            "threshold_rule": {"medium": f"best held-out F1 within {budget:,.0f} tokens per question",
                               "low": f"best held-out F1 escalating at most half of medium's share (and at most "
                                      f"{low_share:.0%})",
                               "high": "best held-out F1 escalating at least twice medium's share"},
            "held_out": report}
    meta["threshold_rule"]["per_language"] = ("the same rules on each language's questions; medium's budget scaled "
                                              "by what one retrieval costs in that language against English")
    if start:
        meta["threshold_rule"]["start"] = ("effort medium and high start these languages' shapes on the named "
                                           "route; low starts every question with one retrieval")
    plain = {k: v for k, v in escalate.items() if ":" not in k}
    esc_lang: dict[str, dict[str, str]] = {}
    for k, v in escalate.items():
        if ":" in k:
            lang, shape = k.split(":", 1)
            esc_lang.setdefault(lang, {})[shape] = v
    model = SafetyModel(signals, [float(v) for v in st.mean], [float(v) for v in st.scale],
                        [float(v) for v in w], float(b), thresholds, plain, meta, by_lang, dict(start), esc_lang)
    return model, report


def parse_sets(specs: list[str]) -> dict[str, tuple[Path, dict[str, Path]]]:
    """["hotpotqa=RUN,tree=RUN2,chain=RUN3", ...] -> {"hotpotqa": (RUN, {"tree": RUN2, "chain": RUN3})}."""
    out: dict[str, tuple[Path, dict[str, Path]]] = {}
    for spec in specs:
        parts = [x.strip() for x in spec.split(",") if x.strip()]
        if not parts or "=" not in parts[0]:
            raise ConfigError(f"--set {spec!r}: expected NAME=FIRST_RUN[,ROUTE=RUN...]")
        name, first = parts[0].split("=", 1)
        esc = {}
        for x in parts[1:]:
            route, _, run = x.partition("=")
            if route not in ESCALATIONS or not run:
                raise ConfigError(f"--set {spec!r}: {x!r} must be ROUTE=RUN with ROUTE one of {', '.join(ESCALATIONS)}")
            esc[route] = Path(run)
        out[name] = (Path(first), esc)
    return out


def report_markdown(model: SafetyModel, report: dict[str, Any], command: str) -> str:
    lines = ["# auto's safety model (written by `gaji classifier train-cascade`)", "", f"    {command}", "",
             f"Questions: {json.dumps(report['questions'])}; right (F1 >= {RIGHT}) {report['right_share']:.0%}; "
             f"held-out AUC {report['auc_held_out']}.", "",
             f"Signals: {', '.join(model.signals)}. Thresholds: " +
             ", ".join(f"{k} {v:.3f}" for k, v in model.thresholds.items()) +
             "".join(f"; {lang}: " + ", ".join(f"{k} {v:.3f}" for k, v in t.items())
                     for lang, t in model.thresholds_by_lang.items()) +
             f". Escalation: {json.dumps(model.escalate)}" +
             (f", by language {json.dumps(model.escalate_by_lang)}" if model.escalate_by_lang else "") + "." +
             (f" Started deeper at effort medium and high: {json.dumps(model.start)}." if model.start else ""), "",
             "Held-out replay (P(right) from models that never saw the question; an escalated question takes its "
             "route's recorded F1 and tokens):", "",
             "| set | AUC | first rung F1 / tokens | low | medium | high | every question escalated | oracle F1 |",
             "|---|---:|---|---|---|---|---|---:|"]
    for s, row in report["by_set"].items():
        def cell(r: dict) -> str:
            return f"{r['f1']} / {r['tokens']:,.0f} ({r['escalated']:.0%} up)"
        alls = "; ".join(f"{k[4:]} {cell(v)}" for k, v in row.items() if k.startswith("all_"))
        lines.append(f"| {s} | {row['auc']} | {cell(row['first_rung'])} | {cell(row['low'])} | {cell(row['medium'])} "
                     f"| {cell(row['high'])} | {alls} | {row['oracle_f1']} |")
    return "\n".join(lines) + "\n"


__all__ = ["FORMAT", "Example", "examples_of", "train_cascade", "parse_sets", "report_markdown", "auc"]


def live_report(run: Path) -> dict[str, Any]:
    """What a recorded run of `auto` did: F1, tokens, calls and wall time per question (p50), how many questions
    escalated and where, how many choices code compared, decided and changed the answer of, how many Korean bridges
    it split, and -- from the same run -- what its own one-retrieval answers would have scored (`cascade.first_answer`,
    else the final answer of a question that stood), overall and per question type."""
    from gaji.eval.metrics.answer import answer_scores

    results, traces = read_run(run)
    rows = []
    for qid, r in results.items():
        if r.get("status") != "ok" or qid not in traces:
            continue
        root = traces[qid]["trace"]["root"]
        c = (root.get("data") or {}).get("cascade") or {}
        first = c.get("first_answer", r.get("prediction", "")) if c else r.get("prediction", "")
        s = answer_scores(first or "", r.get("gold") or [], r.get("lang", ""))
        m = r["metrics"]
        rows.append({"type": r.get("type") or "-", "f1": float(m["f1"]), "first_f1": s.f1 if s else 0.0,
                     "tokens": float(m["tokens"]), "calls": float(m["calls"]), "wall_s": float(m.get("wall_s", 0.0)),
                     "escalated": c.get("decision") == "escalate", "to": c.get("to"),
                     "kept_cheap": bool(c.get("kept_cheap")),
                     # the choice decided by code (gaji/methods/compare.py): tried, gave a verdict, replaced the answer
                     "compared": "computed" in c, "decided": (c.get("computed") or {}).get("answer") is not None,
                     # of those, a yes/no or which-one question checked item by item (gaji/methods/check.py)
                     "checked": (c.get("computed") or {}).get("kind") in CHECK_KINDS,
                     "replaced": c.get("decision") == "computed",
                     # the bridge split (gaji/methods/bridge.py): asked of the chain prompt (English), split and
                     # followed, and its second hop took the answer
                     "split_asked": any((n.get("data") or {}).get("bridge_hop") == "split"
                                        for n in root.get("children") or []),
                     "split": "bridge" in c, "bridged": c.get("decision") == "bridged",
                     # the intersection asked by its second condition (gaji/methods/intersection.py)
                     "narrowed": c.get("decision") == "narrowed",
                     # a question that wants a paragraph, answered with one (gaji/methods/auto/explain.py)
                     "paragraph": c.get("decision") == "long"})
    if not rows:
        raise ConfigError(f"{run}: no finished question with a trace")

    def summary(rs: list[dict]) -> dict[str, Any]:
        n = len(rs)
        walls = [r["wall_s"] for r in rs]
        return {"questions": n, "f1": round(100 * sum(r["f1"] for r in rs) / n, 1),
                "first_rung_f1": round(100 * sum(r["first_f1"] for r in rs) / n, 1),
                "tokens": round(sum(r["tokens"] for r in rs) / n), "calls": round(sum(r["calls"] for r in rs) / n, 2),
                "one_call_share": round(sum(1 for r in rs if r["calls"] <= 1) / n, 3),
                "escalated": sum(1 for r in rs if r["escalated"]),
                "to": {t: sum(1 for r in rs if r["to"] == t) for t in ESCALATIONS},
                "kept_cheap": sum(1 for r in rs if r["kept_cheap"]),
                "compared": sum(1 for r in rs if r["compared"]), "decided": sum(1 for r in rs if r["decided"]),
                "checked": sum(1 for r in rs if r["checked"]),
                "replaced": sum(1 for r in rs if r["replaced"]),
                "split_asked": sum(1 for r in rs if r["split_asked"]),
                "split": sum(1 for r in rs if r["split"]), "bridged": sum(1 for r in rs if r["bridged"]),
                "narrowed": sum(1 for r in rs if r["narrowed"]),
                "paragraph": sum(1 for r in rs if r["paragraph"]),
                # went past the one retrieval: escalated, or a code rung looked more up
                "past_one": sum(1 for r in rs if r["escalated"] or r["compared"] or r["split"]),
                "wall_s_p50": round(statistics.median(walls), 1)}

    types = sorted({r["type"] for r in rows})
    return {"all": summary(rows), "by_type": {t: summary([r for r in rows if r["type"] == t]) for t in types}}
