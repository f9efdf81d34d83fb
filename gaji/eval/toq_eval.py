"""ToQ query-evaluator scores as evaluation metrics (paper 000, Table 2: S.Coh, Ans., O.Ass, R.Val).

The scoring itself is the ToQ method's `QueryEvaluator` (gaji/methods/toq/evaluator.py); here it is
run once per question on the final answer, with the judge model, on a fresh Node so its calls are
not counted in the method's ATC.

    toq_scoh  semantic coherence, 1-10
    toq_ans   answerability, 0-100 (%)
    toq_oass  overall assessment, 1-10 (mean of coherence and answerability on a 1-10 scale)
    toq_rval  response validity, 1 or 0 (the summary reports it as a percentage)
"""
from __future__ import annotations

from typing import Any, Callable

from gaji.llm.tracked import TrackedLLM
from gaji.types import Node, Passage


def _default_factory(llm: TrackedLLM) -> Any:
    from gaji.methods.toq.evaluator import QueryEvaluator

    return QueryEvaluator(llm)


class ToQScorer:
    def __init__(self, llm: TrackedLLM, factory: Callable[[TrackedLLM], Any] | None = None, max_passages: int = 5):
        self.evaluator = (factory or _default_factory)(llm)
        self.max_passages = max_passages

    def score(self, question: str, answer: str, lang: str, passages: list[Passage]) -> tuple[dict[str, float], Node]:
        """Metrics and the Node holding the evaluator's LLM calls."""
        node = Node(kind="toq_eval", question=question, answer=answer)
        shown = passages[: self.max_passages] if self.max_passages > 0 else []
        r = self.evaluator.evaluate(node, question, answer, lang, shown or None)
        coh = float(r.get("semantic_coherence", 0) or 0)
        ans = float(r.get("answerability", 0) or 0)
        overall = r.get("overall", r.get("overall_assessment"))
        oass = float(overall) if overall is not None else (coh + max(1.0, ans / 10.0)) / 2
        return {
            "toq_scoh": coh,
            "toq_ans": ans,
            "toq_oass": oass,
            "toq_rval": 1.0 if r.get("response_validity") else 0.0,
        }, node
