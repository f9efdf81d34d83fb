"""Is the cheap answer safe to stand? A logistic model over the answer's signals (signals.py) gives P(right); the
user's effort sets the threshold below which the question escalates.

The file (`auto/data/cascade.json`, written by the lab's `gaji classifier train-cascade`) holds the signals' names,
their standardisation, the weights, one threshold per effort, the route each question shape escalates to, the
shapes that start on a deeper route in a language (`start`), and the training data, split and held-out numbers it
was chosen on.

    model = shared_safety()
    p = model.p_right(signals)                # 0..1
    model.stands(p, "medium")                 # p >= the medium threshold
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError
from gaji.methods.signals import SIGNALS

DEFAULT_PATH = Path(__file__).parent / "auto" / "data" / "cascade.json"
FORMAT = "gaji-auto-cascade/1"
EFFORTS: tuple[str, ...] = ("low", "medium", "high")
# how the question is built (gaji.methods.auto.features.shape_of): two things compared, two constraints on one
# thing, or anything else (a bridge, a single hop)
SHAPES: tuple[str, ...] = ("compare", "intersection", "other")
# where a question can go beyond one retrieval: the step chain (recipe chain-steps), the search chain (chain-ircot),
# the question tree (tree)
ESCALATIONS: tuple[str, ...] = ("steps", "chain", "tree")
# comparisons and intersections split into branches (the tree), bridges follow their hops (the chain)
DEFAULT_ESCALATE = {"compare": "tree", "intersection": "tree", "other": "chain"}
# signals that are 1 or 0 (a fact about the answer or the question, not a measure)
FLAGS = frozenset({"no_logprobs", "unknown", "wrong_shape", "reasked", "kind_mismatch", "compare", "intersection", "ko"})
EFFORT_WORDS = {"low": ("low", "낮음"), "medium": ("medium", "보통"), "high": ("high", "높음")}


@dataclass
class SafetyModel:
    signals: tuple[str, ...]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    thresholds: dict[str, float]  # effort -> the P(right) at or above which the cheap answer stands
    escalate: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ESCALATE))  # shape -> route
    meta: dict[str, Any] = field(default_factory=dict)  # training data, split, held-out numbers
    # per language ("ko", "en"): thresholds chosen on that language's dev questions (Korean answers cost and score
    # differently); a language not here uses `thresholds`
    thresholds_by_lang: dict[str, dict[str, float]] = field(default_factory=dict)
    # per language, the shapes that skip the one retrieval and start on a deeper route at effort medium and high
    # (e.g. {"en": {"compare": "steps"}}, for data where that route beats one retrieval on nearly every such
    # question; the shipped model has none). Effort low always starts with one retrieval
    start: dict[str, dict[str, str]] = field(default_factory=dict)
    # per language, shapes that escalate elsewhere than `escalate` says ({"ko": {"other": "steps"}}: a Korean search
    # chain costs about 20,000 tokens, the step chain a quarter of that)
    escalate_by_lang: dict[str, dict[str, str]] = field(default_factory=dict)

    def escalation(self, shape: str, lang: str) -> str:
        """The route an unsafe answer to a question of `shape` in `lang` escalates to."""
        return self.escalate_by_lang.get(lang, {}).get(shape) or self.escalate[shape]

    def start_route(self, shape: str, lang: str, effort: str) -> str | None:
        """The route a question of `shape` in `lang` starts on, or None: one retrieval first."""
        if effort == "low":
            return None
        return self.start.get(lang, {}).get(shape)

    def p_right(self, signals: dict[str, float]) -> float:
        z = self.bias
        for name, m, s, w in zip(self.signals, self.mean, self.scale, self.weights):
            z += w * (float(signals.get(name, 0.0)) - m) / (s or 1.0)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def threshold(self, effort: str, lang: str = "") -> float:
        if effort not in self.thresholds:
            raise ConfigError(f"effort must be one of {', '.join(EFFORTS)}, not {effort!r}")
        return self.thresholds_by_lang.get(lang, self.thresholds)[effort]

    def stands(self, p: float, effort: str, lang: str = "") -> bool:
        return p >= self.threshold(effort, lang)

    def reasons(self, signals: dict[str, float], n: int = 3) -> list[tuple[str, float]]:
        """The signals that moved P(right) most, as (name, push on the log-odds), largest push first. A yes/no
        signal is named only when it holds ("comparison" for a comparison, not for every other question)."""
        push = [(name, w * (float(signals.get(name, 0.0)) - m) / (s or 1.0))
                for name, m, s, w in zip(self.signals, self.mean, self.scale, self.weights)
                if name not in FLAGS or signals.get(name)]
        return sorted((x for x in push if abs(x[1]) >= 0.05), key=lambda x: -abs(x[1]))[:n]

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "signals": list(self.signals),
                "mean": [round(v, 6) for v in self.mean], "scale": [round(v, 6) for v in self.scale],
                "weights": [round(v, 6) for v in self.weights], "bias": round(self.bias, 6),
                "thresholds": {k: round(v, 4) for k, v in self.thresholds.items()},
                "thresholds_by_lang": {lang: {k: round(v, 4) for k, v in t.items()}
                                       for lang, t in self.thresholds_by_lang.items()},
                "escalate": self.escalate, **({"escalate_by_lang": self.escalate_by_lang} if self.escalate_by_lang else {}),
                **({"start": self.start} if self.start else {}), **self.meta}

    def save(self, path: str | Path) -> None:
        from gaji.io import atomic_write_json

        atomic_write_json(Path(path), self.to_dict())

    @classmethod
    def load(cls, path: str | Path | None = None) -> "SafetyModel":
        from gaji.io import read_model_file

        p = Path(path) if path else DEFAULT_PATH
        obj = read_model_file(p, "auto cascade safety model", FORMAT, "gaji classifier train-cascade")
        try:
            signals = tuple(obj["signals"])
            mean, scale = [float(v) for v in obj["mean"]], [float(v) for v in obj["scale"]]
            weights, bias = [float(v) for v in obj["weights"]], float(obj["bias"])
            thresholds = {str(k): float(v) for k, v in obj["thresholds"].items()}
            escalate = {str(k): str(v) for k, v in (obj.get("escalate") or {}).items()}
            by_lang = {str(lang): {str(k): float(v) for k, v in t.items()}
                       for lang, t in (obj.get("thresholds_by_lang") or {}).items()}
            start = {str(lang): {str(k): str(v) for k, v in t.items()} for lang, t in (obj.get("start") or {}).items()}
            esc_lang = {str(lang): {str(k): str(v) for k, v in t.items()}
                        for lang, t in (obj.get("escalate_by_lang") or {}).items()}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ConfigError(f"{p}: missing or malformed field {e}") from None
        unknown = [s for s in signals if s not in SIGNALS]
        if unknown:
            raise ConfigError(f"{p}: field 'signals' has unknown signal(s) {unknown}; known: {', '.join(SIGNALS)}")
        if not (len(mean) == len(scale) == len(weights) == len(signals)):
            raise ConfigError(f"{p}: fields 'mean', 'scale', 'weights' must each have {len(signals)} values")
        missing = [e for e in EFFORTS if e not in thresholds]
        if missing:
            raise ConfigError(f"{p}: field 'thresholds' has no value for effort(s) {missing}")
        for lang, t in by_lang.items():
            if [e for e in EFFORTS if e not in t]:
                raise ConfigError(f"{p}: field 'thresholds_by_lang.{lang}' needs a value for each of "
                                  f"{', '.join(EFFORTS)}")
        bad = {k: v for k, v in escalate.items() if k not in SHAPES or v not in ESCALATIONS}
        if bad:
            raise ConfigError(f"{p}: field 'escalate' maps shapes {', '.join(SHAPES)} to one of "
                              f"{', '.join(ESCALATIONS)}, not {bad}")
        for name, by_lang_routes in (("start", start), ("escalate_by_lang", esc_lang)):
            bad = {f"{lang}.{k}": v for lang, t in by_lang_routes.items() for k, v in t.items()
                   if k not in SHAPES or v not in ESCALATIONS}
            if bad:
                raise ConfigError(f"{p}: field '{name}' maps a language's shapes {', '.join(SHAPES)} to one of "
                                  f"{', '.join(ESCALATIONS)}, not {bad}")
        meta = {k: v for k, v in obj.items() if k not in ("format", "signals", "mean", "scale", "weights", "bias",
                                                          "thresholds", "thresholds_by_lang", "escalate", "start",
                                                          "escalate_by_lang")}
        return cls(signals, mean, scale, weights, bias, thresholds, {**DEFAULT_ESCALATE, **escalate}, meta, by_lang,
                   start, esc_lang)


@functools.lru_cache(maxsize=8)
def shared_safety(path: str = "") -> SafetyModel:
    """The safety model in `path` ("" = the shipped one), read once per process."""
    return SafetyModel.load(path or None)
