"""Stop policies of the chain (Algorithm 1, O_i = f(Q, H)): asked after every step.

    none        never stops early: the chain runs L steps (CoRAG greedy, the paper's baseline)
    classifier  the trained sufficiency classifier (gaji/methods/sufficiency.py; trained by the lab): stop when
                P([Sufficient] | Q, H) >= threshold; no LLM call, milliseconds on CPU
    evaluator   the ToQ query evaluator (gaji/methods/toq/evaluator.py) as a zero-shot judge of the
                chain so far: stop when it says the sub-answers answer the question (one LLM call)
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError
from gaji.methods.base import RunContext
from gaji.methods.describe import word
from gaji.types import Node, Stop

STOP_POLICIES = ("none", "classifier", "evaluator")


class StopPolicy:
    """A policy's verdict is a Stop: stop (or go on), who decided (`by`), the score (classifier:
    P(sufficient); evaluator: the overall score) and why, in the question's language."""

    name = "none"
    llm_calls = 0  # LLM calls one decision costs (for the call budget)

    def decide(self, ctx: RunContext, node: Node, question: str, history: list[tuple[str, str]]) -> Stop:
        return Stop(False, by=self.name)


class ClassifierStop(StopPolicy):
    name = "classifier"

    def __init__(self, model: Any, threshold: float = 0.5):
        self.model = model
        self.threshold = threshold

    def decide(self, ctx: RunContext, node: Node, question: str, history: list[tuple[str, str]]) -> Stop:
        t0 = time.perf_counter()
        p = float(self.model.prob_sufficient(question, history))
        ms = round((time.perf_counter() - t0) * 1000, 2)
        stop = p >= self.threshold
        why = f"P(sufficient) {p:.2f} {'≥' if stop else '<'} {self.threshold}"
        return Stop(stop, reason=why, by=self.name, score=round(p, 4), detail={"threshold": self.threshold, "ms": ms})


class EvaluatorStop(StopPolicy):
    name = "evaluator"
    llm_calls = 1

    def decide(self, ctx: RunContext, node: Node, question: str, history: list[tuple[str, str]]) -> Stop:
        from gaji.methods.prompts.chain import format_history
        from gaji.methods.toq.evaluator import QueryEvaluator

        scores = QueryEvaluator(ctx.llm).evaluate(node, question, format_history(history, ctx.lang), ctx.lang)
        node.scores.update(scores)
        stop = bool(scores["response_validity"])
        why = (word(ctx.lang, "the evaluator judged the chain sufficient", "평가기가 충분하다고 판단")
               if stop else word(ctx.lang, "the evaluator judged the chain not yet sufficient", "평가기가 아직 부족하다고 판단"))
        return Stop(stop, reason=why, by=self.name, score=scores["overall"],
                    detail={"answerability": scores["answerability"]})


_loaded: dict[str, Any] = {}
_lock = threading.Lock()


def load_classifier_cached(path: str) -> Any:
    """A trained classifier, loaded once per process (methods are built per question)."""
    from gaji.methods.sufficiency import load_classifier

    with _lock:
        if path not in _loaded:
            _loaded[path] = load_classifier(path)
        return _loaded[path]


def check_stop_policy(name: str, classifier: str = "") -> None:
    """Raise ConfigError for an unknown policy or a classifier policy without a trained classifier to load
    (cheap: a file check, so the chain's options can run it whenever they are made)."""
    if name not in STOP_POLICIES:
        raise ConfigError(f"chain: stop must be one of {', '.join(STOP_POLICIES)}, not {name!r}")
    if name == "classifier":
        if not classifier:
            raise ConfigError("chain: stop=classifier needs -o classifier=DIR (a model from `gaji classifier train`)")
        if not (Path(classifier) / "classifier.json").is_file():
            raise ConfigError(f"chain: -o classifier={classifier}: not a classifier directory (no classifier.json); "
                              "train one with `gaji classifier train`")


def make_stop_policy(name: str, classifier: str = "", threshold: float = 0.5) -> StopPolicy:
    """The policy the chain's (checked) options name."""
    if name == "evaluator":
        return EvaluatorStop()
    if name == "classifier":
        return ClassifierStop(load_classifier_cached(classifier), threshold)
    return StopPolicy()
