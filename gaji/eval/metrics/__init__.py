"""Evaluation metrics, one job per module:

- `answer`    EM / F1 (SQuAD-HotpotQA normalisation for English, documented Korean normalisation)
- `retrieval` recall@k and Top@k of gold passages
- `rouge`     ROUGE-L for long-form answers, Korean-aware tokenisation
- `cost`      tokens (ATC), LLM calls, wall time per question
"""
from gaji.eval.metrics.answer import answer_scores, normalize_en, normalize_ko
from gaji.eval.metrics.cost import atc, cost_metrics
from gaji.eval.metrics.retrieval import GoldRef, RetrievedDoc, retrieval_scores
from gaji.eval.metrics.rouge import rouge_l

__all__ = [
    "answer_scores",
    "normalize_en",
    "normalize_ko",
    "atc",
    "cost_metrics",
    "GoldRef",
    "RetrievedDoc",
    "retrieval_scores",
    "rouge_l",
]
