"""Scoring one question of an eval run: the result line (results.jsonl) and the trace line (traces.jsonl).

    answer     EM/F1 against every gold answer (ROUGE-L too for a long-form set)
    retrieval  recall@k of the gold documents among the retrieved ones, in first-seen order
    cost       the method's tokens, calls and time (its ATC)
    judges     --judge (LLM pass/fail of the top chunks) and --toq-eval (the ToQ query evaluator); their calls
               are kept on their own nodes, counted in eval_tokens/eval_calls and never in the method's cost

A question that crashed, or whose scoring crashed, is recorded with its error and answer metrics 0;
only a configuration problem stops the run.
"""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, Callable

from gaji.errors import ConfigError, GajiError
from gaji.eval.datasets import Dataset, EvalItem
from gaji.eval.metrics.answer import answer_scores
from gaji.eval.metrics.cost import call_cost, cost_metrics
from gaji.eval.metrics.retrieval import RetrievedDoc, dedupe_docs, retrieval_scores
from gaji.eval.metrics.rouge import rouge_l
from gaji.eval.record import now_iso
from gaji.llm.base import LLMBackend
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node, Passage, Trace


def retrieved(trace: Trace) -> tuple[list[RetrievedDoc], list[Passage]]:
    """Retrieved documents in first-seen order, and the first passage of each."""
    docs: list[RetrievedDoc] = []
    first: dict[str, Passage] = {}
    for pid in trace.retrieved_ids():
        p = trace.passages.get(pid)
        doc_id = (p.doc_id if p and p.doc_id else pid)
        docs.append(RetrievedDoc(doc_id, p.title if p else ""))
        if p is not None:
            first.setdefault(doc_id, p)
    docs = dedupe_docs(docs)
    return docs, [first[d.doc_id] for d in docs if d.doc_id in first]


@dataclass
class Scorer:
    """Every metric of one question of a run over `dataset`.

    `unindexed`: corpus ids left out of the index (gold references to them leave the recall denominators);
    `judge_k`: the chunks --judge judges (None: no judge); `judge_llm` gives the judges' backend when first needed."""

    dataset: Dataset
    _: KW_ONLY
    ks: tuple[int, ...]
    gold_match: str
    unindexed: set[str]
    judge_k: int | None
    toq_eval: bool
    judge_llm: Callable[[], LLMBackend]
    retries: int
    toq_factory: Callable | None = None

    def answered(self, item: EvalItem, trace: Trace) -> tuple[dict, dict]:
        """(result line, trace line) of a question the method answered (or failed on)."""
        try:
            return self.score(item, trace)
        except ConfigError:
            raise  # a configuration problem (e.g. --toq-eval without the evaluator) stops the run
        except Exception as e:  # noqa: BLE001 - a scoring crash is recorded with the trace, the run goes on
            rec = self.line(item, trace.answer, "error", f"scoring: {type(e).__name__}: {e}",
                            self.answer_metrics("", item), trace.summary())
            return rec, {"id": item.id, "trace": trace.to_dict(), "eval": []}

    def crashed(self, item: EvalItem, error: BaseException, wall_s: float) -> dict:
        """The result line of a question whose run raised."""
        metrics = self.answer_metrics("", item)
        metrics["wall_s"] = round(wall_s, 4)
        return self.line(item, "", "error", f"{type(error).__name__}: {error}", metrics, None)

    @staticmethod
    def line(item: EvalItem, prediction: str, status: str, error: str | None, metrics: dict,
             summary: dict | None, retrieved: list[str] | None = None) -> dict[str, Any]:
        """The result line of one question (results.jsonl): the only place its fields are put together."""
        return {
            "id": item.id,
            "question": item.question,
            "gold": item.answers,
            "gold_docs": [g.doc_id or g.title for g in item.gold],
            "lang": item.lang,
            "type": item.type,
            "prediction": prediction,
            "status": status,
            "error": error,
            "metrics": metrics,
            "summary": summary,
            "retrieved": retrieved or [],
            "finished_at": now_iso(),
        }

    def score(self, item: EvalItem, trace: Trace) -> tuple[dict, dict]:
        """Every metric of one answered question; (result line, trace line)."""
        metrics = self.answer_metrics(trace.answer, item)
        docs, passages = retrieved(trace)
        if trace.retriever or docs:
            gold = [g for g in item.gold if g.doc_id not in self.unindexed] if self.unindexed else item.gold
            r = retrieval_scores(docs, gold, self.ks, self.gold_match)
            if r is not None:
                metrics.update(r)
        metrics.update(cost_metrics(trace))
        eval_nodes = self._judged(item, trace, passages, metrics)
        if eval_nodes:
            ec = call_cost([c for n in eval_nodes for c in n.calls])
            metrics["eval_tokens"] = ec["tokens"]
            metrics["eval_calls"] = ec["calls"]
        rec = self.line(item, trace.answer, "ok" if trace.status == "ok" else "failed", trace.error, metrics,
                        trace.summary(), [d.doc_id for d in docs[: max(self.ks, default=10)]])
        trace_line = {"id": item.id, "trace": trace.to_dict(), "eval": [n.to_dict() for n in eval_nodes]}
        return rec, trace_line

    def _judged(self, item: EvalItem, trace: Trace, passages: list[Passage], metrics: dict) -> list[Node]:
        """The LLM judges' metrics (added to `metrics`) and the nodes holding their calls."""
        nodes: list[Node] = []
        lang = trace.lang or item.lang
        if self.judge_k is not None and passages:
            from gaji.eval.judge import RetrievalJudge

            res = RetrievalJudge(TrackedLLM(self.judge_llm(), retries=self.retries), k=self.judge_k).judge(
                item.question, passages, lang)
            metrics.update(res.metrics(tuple(sorted({1, self.judge_k}))))
            res.node.data["verdicts"] = res.verdicts
            nodes.append(res.node)
        if self.toq_eval:
            from gaji.eval.toq_eval import ToQScorer

            try:
                scores, node = ToQScorer(TrackedLLM(self.judge_llm(), retries=self.retries), self.toq_factory).score(
                    item.question, trace.answer, lang, passages)
                metrics.update(scores)
                nodes.append(node)
            except GajiError as e:
                if isinstance(e, ConfigError):
                    raise
                nodes.append(Node(kind="toq_eval", status="failed", error=str(e)))
        return nodes

    def answer_metrics(self, prediction: str, item: EvalItem) -> dict[str, float]:
        m: dict[str, float] = {}
        a = answer_scores(prediction, item.answers, item.lang)
        if a is not None:
            m.update(a.to_dict())
        if self.dataset.long_form:
            r = rouge_l(prediction, item.answers)
            if r is not None:
                m["rouge_l"] = r
        return m
