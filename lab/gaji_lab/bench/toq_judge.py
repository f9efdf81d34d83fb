"""`gaji bench toq-judge`: how often ToQ's per-document relevance judge (the answer integrator, Prompt B.1) called a
gold paragraph relevant, counted over the recorded trees of `--method toq` runs, and what share of the run's tokens
its calls took. No model call: it reads results.jsonl (gold paragraph ids) and traces.jsonl (each node's judgements).

A paragraph is gold when its id is one of the question's gold_docs. A judge that says "irrelevant" to everything
has a gold recall of 0; one that says "relevant" to everything, a false-positive rate of 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gaji.errors import InputError
from gaji.io import iter_jsonl, log_exists
from gaji.types import Trace, Usage


@dataclass(frozen=True)
class JudgeCount:
    run: str
    nodes: int  # nodes whose documents were judged
    gold_relevant: int  # gold paragraphs judged relevant
    gold: int  # gold paragraphs judged
    other_relevant: int  # other paragraphs judged relevant
    other: int  # other paragraphs judged
    judge_tokens: int  # tokens of the "integrate" calls
    tokens: int  # all tokens of the run's trees

    def row(self) -> str:
        def pct(a: int, b: int) -> str:
            return f"{a}/{b} ({100 * a / b:.0f} %)" if b else "-"
        return (f"| {self.run} | {self.nodes} | {pct(self.gold_relevant, self.gold)} | "
                f"{pct(self.other_relevant, self.other)} | {pct(self.judge_tokens, self.tokens)} |")


HEADER = ("| run | judged nodes | gold judged relevant | others judged relevant | judge tokens / all |\n"
          "|---|---:|---:|---:|---:|")


def count(run_dir: str | Path) -> JudgeCount:
    run = Path(run_dir)
    results, traces = run / "results.jsonl", run / "traces.jsonl"
    for p in (results, traces):
        if not log_exists(p):
            raise InputError("not a run directory with results and traces", path=str(p))
    gold = {str(r.get("id")): set(r.get("gold_docs") or []) for _, r in iter_jsonl(results)}
    n = gr = g = orl = o = jt = tot = 0
    for line, rec in iter_jsonl(traces):
        raw = rec.get("trace")
        try:
            trace = Trace.from_dict(raw)  # type: ignore[arg-type]
        except (TypeError, KeyError, AttributeError):
            raise InputError(f"line {line} holds no trace", path=str(traces)) from None
        golds = gold.get(str(rec.get("id")), set())
        tot += int((raw.get("usage") or {}).get("total_tokens", 0))  # the total the run recorded
        jt += trace.usage_by_purpose().get("integrate", Usage()).total_tokens
        for node in trace.root.walk():
            rel = node.relevance
            n += bool(rel)
            for pid, j in rel.items():
                is_rel = bool((j or {}).get("relevant"))
                if pid in golds:
                    g, gr = g + 1, gr + is_rel
                else:
                    o, orl = o + 1, orl + is_rel
    return JudgeCount(run.name, n, gr, g, orl, o, jt, tot)


def report(run_dirs: list[str]) -> str:
    return "\n".join([HEADER] + [count(d).row() for d in run_dirs]) + "\n"
