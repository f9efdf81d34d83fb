"""Aggregating per-question result lines into a run summary, and showing metrics consistently
(names, order, units) in the eval table, `gaji eval compare` and BENCHMARKS.md.

Quality metrics in [0, 1] are stored as fractions and shown as percentages. The mean of a metric
is over the questions that have it (a question without gold answers has no EM/F1; a method that
retrieves nothing has no recall), and `n` says how many that was.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable

from gaji.io import read_jsonl_tolerant  # noqa: F401 - the run readers import it from here

# (regex on metric name, label template, kind); kind: pct (×100), int, f2 (2 decimals), f1 (1 decimal)
_SPECS: list[tuple[str, str, str]] = [
    (r"em", "EM", "pct"),
    (r"f1", "F1", "pct"),
    (r"rouge_l", "ROUGE-L", "pct"),
    (r"recall@(\d+)", "R@{0}", "pct"),
    (r"top@(\d+)", "Top@{0}", "pct"),
    (r"judge_top@(\d+)", "judge Top@{0}", "pct"),
    (r"judge_pass_rate", "judge pass", "pct"),
    (r"toq_scoh", "S.Coh", "f2"),
    (r"toq_ans", "Ans.", "f1"),
    (r"toq_oass", "O.Ass", "f2"),
    (r"toq_rval", "R.Val %", "pct"),
    (r"tokens", "ATC", "int"),
    (r"tokens:(.+)", "tok/q {0}", "int"),
    (r"prompt_tokens", "prompt tok/q", "int"),
    (r"completion_tokens", "completion tok/q", "int"),
    (r"calls", "LLM calls/q", "f2"),
    (r"failed_calls", "failed calls/q", "f2"),
    (r"cache_hits", "cache hits/q", "f2"),
    (r"wall_s", "wall s/q", "f2"),
    (r"eval_tokens", "eval tok/q", "int"),
    (r"eval_calls", "eval calls/q", "f2"),
]
QUALITY_KINDS = ("pct",)
HEADLINE = ("em", "f1", "rouge_l", "recall@5", "top@5", "judge_top@1", "toq_rval", "tokens", "calls", "wall_s")


def _spec(name: str) -> tuple[int, str, str, int]:
    for i, (pat, label, kind) in enumerate(_SPECS):
        m = re.fullmatch(pat, name)
        if m:
            k = int(m.group(1)) if m.groups() and m.group(1).isdigit() else 0
            return i, label.format(*m.groups()), kind, k
    return len(_SPECS), name, "f2", 0


def metric_label(name: str) -> str:
    return _spec(name)[1]


def is_quality(name: str) -> bool:
    """Quality metrics (higher is better, in [0, 1] or a score): not cost or time."""
    return _spec(name)[2] in QUALITY_KINDS or name.startswith("toq_")


def ordered(names: Iterable[str]) -> list[str]:
    return sorted(set(names), key=lambda n: (_spec(n)[0], _spec(n)[3], n))


def display_scale(name: str) -> float:
    """100 for metrics shown as percentages, else 1."""
    return 100.0 if _spec(name)[2] == "pct" else 1.0


def format_value(name: str, value: float | None) -> str:
    if value is None:
        return "–"
    kind = _spec(name)[2]
    if kind == "pct":
        return f"{100 * value:.1f}"
    if kind == "int":
        return f"{value:,.0f}"
    if kind == "f1":
        return f"{value:.1f}"
    return f"{value:.2f}"


def summarize(records: list[dict]) -> dict[str, Any]:
    """{"questions", "errors", "failed", "metrics": {name: {"mean", "n"}}, "atc"}."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for r in records:
        for k, v in (r.get("metrics") or {}).items():
            if isinstance(v, bool):
                v = float(v)
            if isinstance(v, (int, float)):
                sums[k] = sums.get(k, 0.0) + float(v)
                counts[k] = counts.get(k, 0) + 1
    metrics = {k: {"mean": sums[k] / counts[k], "n": counts[k]} for k in ordered(sums)}
    return {
        "questions": len(records),
        "errors": sum(1 for r in records if r.get("status") == "error"),
        "failed": sum(1 for r in records if r.get("status") == "failed"),
        "metrics": metrics,
        "atc": metrics.get("tokens", {}).get("mean", 0.0),
    }


def means(summary: dict) -> dict[str, float]:
    return {k: v["mean"] for k, v in (summary.get("metrics") or {}).items()}


# -- run directories ---------------------------------------------------------
# read_jsonl_tolerant lives in gaji.io (every resumable log uses it); the run readers import it from here too
def latest_by_id(records: list[dict]) -> dict[str, dict]:
    """The last line per question id (a retried question appends a new line)."""
    out: dict[str, dict] = {}
    for r in records:
        if "id" in r:
            out[str(r["id"])] = r
    return out


def load_run(run_dir: str | Path) -> tuple[dict, list[dict]]:
    """(run.json, the latest result line per question, in file order)."""
    d = Path(run_dir)
    info_path = d / "run.json"
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.exists() else {}
    return info, list(latest_by_id(read_jsonl_tolerant(d / "results.jsonl")).values())


def markdown_table(header: list[str], rows: list[list[str]], align_right_from: int = 1) -> str:
    sep = ["---" if i < align_right_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
