"""Stop policies of the chain (Algorithm 1, O_i = f(Q, H)): asked after every step.

    none        never stops early: the chain runs L steps (CoRAG greedy, the paper's baseline)
    classifier  the trained sufficiency classifier (gaji/learn/classifier.py): stop when
                P([Sufficient] | Q, H) >= threshold; no LLM call, milliseconds on CPU
    evaluator   the ToQ query evaluator (gaji/methods/toq/evaluator.py) as a zero-shot judge of the
                chain so far: stop when it says the sub-answers answer the question (one LLM call)
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError
from gaji.methods.base import RunContext
from gaji.types import Node

STOP_POLICIES = ("none", "classifier", "evaluator")


@dataclass
class StopDecision:
    stop: bool
    policy: str
    score: float | None = None  # classifier: P(sufficient); evaluator: overall score
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"stop": self.stop, "policy": self.policy, "score": self.score, **self.info}


class StopPolicy:
    name = "none"
    llm_calls = 0  # LLM calls one decision costs (for the call budget)

    def decide(self, ctx: RunContext, node: Node, question: str, history: list[tuple[str, str]]) -> StopDecision:
        return StopDecision(False, self.name)


class ClassifierStop(StopPolicy):
    name = "classifier"

    def __init__(self, model: Any, threshold: float = 0.5):
        self.model = model
        self.threshold = threshold

    def decide(self, ctx: RunContext, node: Node, question: str, history: list[tuple[str, str]]) -> StopDecision:
        t0 = time.perf_counter()
        p = float(self.model.prob_sufficient(question, history))
        ms = round((time.perf_counter() - t0) * 1000, 2)
        return StopDecision(p >= self.threshold, self.name, round(p, 4), {"threshold": self.threshold, "ms": ms})


class EvaluatorStop(StopPolicy):
    name = "evaluator"
    llm_calls = 1

    def decide(self, ctx: RunContext, node: Node, question: str, history: list[tuple[str, str]]) -> StopDecision:
        from gaji.methods.chain import format_history
        from gaji.methods.toq.evaluator import QueryEvaluator

        scores = QueryEvaluator(ctx.llm).evaluate(node, question, format_history(history, ctx.lang), ctx.lang)
        node.scores.update(scores)
        return StopDecision(bool(scores["response_validity"]), self.name, scores["overall"],
                            {"answerability": scores["answerability"]})


_loaded: dict[str, Any] = {}
_lock = threading.Lock()


def load_classifier_cached(path: str) -> Any:
    """A trained classifier, loaded once per process (methods are built per question)."""
    from gaji.learn.classifier import load_classifier

    with _lock:
        if path not in _loaded:
            _loaded[path] = load_classifier(path)
        return _loaded[path]


def check_stop_policy(name: str, classifier: str = "", model: Any = None) -> None:
    """Raise ConfigError for an unknown policy or a classifier policy without a trained classifier to load
    (cheap: a file check, so the chain can run it whenever it is made)."""
    if name not in STOP_POLICIES:
        raise ConfigError(f"chain: stop must be one of {', '.join(STOP_POLICIES)}, not {name!r}")
    if name == "classifier" and model is None:
        if not classifier:
            raise ConfigError("chain: stop=classifier needs -o classifier=DIR (a model from `gaji classifier train`)")
        if not (Path(classifier) / "classifier.json").is_file():
            raise ConfigError(f"chain: -o classifier={classifier}: not a classifier directory (no classifier.json); "
                              "train one with `gaji classifier train`")


def make_stop_policy(name: str, classifier: str = "", threshold: float = 0.5, model: Any = None) -> StopPolicy:
    check_stop_policy(name, classifier, model)
    if name == "evaluator":
        return EvaluatorStop()
    if name == "classifier":
        return ClassifierStop(model if model is not None else load_classifier_cached(classifier), threshold)
    return StopPolicy()
