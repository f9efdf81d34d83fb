"""Scoring a finished (or interrupted) run's answers afterwards with the ToQ query evaluator.

`gaji eval score DIR --toq-eval` reads the run's latest result and trace per question, asks the
evaluator (paper 000, Prompt B.4) about each answer with the passages the method retrieved, and
adds `toq_scoh`, `toq_ans`, `toq_oass`, `toq_rval` to the question's metrics. This is how the
paper's Table 2 compares methods: the same judge over every method's final answers, so runs made
without `--toq-eval` need not be redone.

Resumable: an updated result line is appended to results.jsonl (the last line per id wins) and the
evaluator's calls go to evaluations.jsonl, so a second run skips questions already scored. The
judge's tokens are counted in `eval_tokens`/`eval_calls`, never in the method's ATC.
"""
from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gaji.errors import ConfigError, GajiError
from gaji.eval.metrics.cost import call_cost
from gaji.eval.scoring import retrieved
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant, summarize
from gaji.io import append_jsonl, atomic_write_json
from gaji.types import Node, Trace

TOQ_KEYS = ("toq_scoh", "toq_ans", "toq_oass", "toq_rval")


@dataclass
class RescoreResult:
    scored: int = 0
    skipped: int = 0  # already scored
    failed: list[tuple[str, str]] = field(default_factory=list)  # (question id, error)
    summary: dict = field(default_factory=dict)


class ToQRescore:
    """Adds ToQ evaluator scores to every answered question of one run directory."""

    def __init__(self, run_dir: str | Path, judge: Any, judge_llm: str, *, concurrency: int | None = None,
                 retries: int = 2, factory: Callable | None = None, progress: Callable[[int, int], None] | None = None,
                 passages: int = 5):
        self.dir = Path(run_dir)
        if not (self.dir / "results.jsonl").exists():
            raise ConfigError(f"{self.dir}: not a run directory (no results.jsonl); give a `gaji eval`/`gaji bench run` --out")
        self.judge = judge
        self.judge_llm = judge_llm
        self.concurrency = concurrency or max(1, int(getattr(judge, "parallel_slots", 1) or 1))
        self.retries = retries
        self.factory = factory
        self.progress = progress
        self.passages = max(0, int(passages))  # sources shown to the judge (0: question and answer only, as in the tree)
        self._lock = threading.Lock()

    def _load(self) -> tuple[dict[str, dict], dict[str, dict], dict]:
        results = latest_by_id(read_jsonl_tolerant(self.dir / "results.jsonl"))
        traces = latest_by_id(read_jsonl_tolerant(self.dir / "traces.jsonl"))
        info_path = self.dir / "run.json"
        info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.exists() else {}
        return results, traces, info

    def _score_one(self, rec: dict, trace_line: dict) -> tuple[dict, Node]:
        from gaji.eval.toq_eval import ToQScorer
        from gaji.llm.tracked import TrackedLLM

        trace = Trace.from_dict(trace_line["trace"])
        scorer = ToQScorer(TrackedLLM(self.judge, retries=self.retries), self.factory, max_passages=self.passages)
        scores, node = scorer.score(
            rec.get("question") or trace.question, trace.answer, trace.lang or rec.get("lang") or "en",
            retrieved(trace)[1])  # the first passage of each retrieved document, as the eval run scores
        ec = call_cost(node.calls)
        metrics = dict(rec.get("metrics") or {})
        metrics.update(scores)
        metrics["eval_tokens"] = metrics.get("eval_tokens", 0) + ec["tokens"]
        metrics["eval_calls"] = metrics.get("eval_calls", 0) + ec["calls"]
        return {**rec, "metrics": metrics}, node

    def run(self, limit: int | None = None) -> RescoreResult:
        results, traces, info = self._load()
        res = RescoreResult()
        todo: list[tuple[dict, dict]] = []
        for qid, rec in results.items():
            if all(k in (rec.get("metrics") or {}) for k in TOQ_KEYS):
                res.skipped += 1
            elif rec.get("status") == "error" or qid not in traces:
                res.failed.append((qid, "no answer to score (the question crashed or has no trace line)"))
            else:
                todo.append((rec, traces[qid]))
        before = (info.get("toq_eval_posthoc") or {}).get("passages")
        if res.skipped and before is not None and before != self.passages:
            raise ConfigError(f"{self.dir}: {res.skipped} answers were scored with --passages {before}; "
                              f"continue with --passages {before} so that every score is comparable")
        if limit is not None:
            todo = todo[: max(0, limit)]
        total = len(todo)

        def one(pair: tuple[dict, dict]) -> None:
            rec, tl = pair
            try:
                new, node = self._score_one(rec, tl)
            except ConfigError:
                raise
            except GajiError as e:  # the judge failed after its retries: reported, the run goes on
                with self._lock:
                    res.failed.append((rec["id"], str(e)))
                    append_jsonl(self.dir / "evaluations.jsonl",
                                 {"id": rec["id"], "eval": [Node(kind="toq_eval", status="failed", error=str(e)).to_dict()]})
                return
            with self._lock:
                append_jsonl(self.dir / "evaluations.jsonl", {"id": rec["id"], "eval": [node.to_dict()]})
                append_jsonl(self.dir / "results.jsonl", new)
                res.scored += 1
                if self.progress:
                    self.progress(res.scored + len(res.failed), total)

        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="gaji-score") as ex:
            for f in [ex.submit(one, p) for p in todo]:
                f.result()
        res.summary = self._write_summary(info)
        return res

    def _write_summary(self, info: dict) -> dict:
        """summary.json recomputed from the latest lines, keeping the run's own bookkeeping fields."""
        results = latest_by_id(read_jsonl_tolerant(self.dir / "results.jsonl"))
        old_path = self.dir / "summary.json"
        old = json.loads(old_path.read_text(encoding="utf-8")) if old_path.exists() else {}
        fresh = summarize(list(results.values()))
        summary = {**old, **fresh}
        summary["toq_eval_posthoc"] = {
            "judge_llm": self.judge_llm,
            "judge_model": getattr(self.judge, "name", self.judge_llm),
            "self_judging": getattr(self.judge, "name", None) == info.get("model"),
            "passages": self.passages,
        }
        atomic_write_json(old_path, summary)
        if info:
            info["toq_eval_posthoc"] = summary["toq_eval_posthoc"]
            atomic_write_json(self.dir / "run.json", info)
        return summary
