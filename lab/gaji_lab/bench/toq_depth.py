"""`gaji bench toq-depth`: the ToQ paper's Tables 4 and 5 from runs of `--method toq`.

Table 4 is response validity by maximum depth (1–4); Table 5 counts the questions whose depth-1
answer the evaluator rejected, and how many of them deeper levels resolve.

Running the whole question set four times is not needed. With a maximum depth d, a question whose
tree (at the default depth 4) never went below level d grows the same tree, so its validity at d
is its final validity. Only questions whose tree went deeper need a run with `-o max_depth=d`, and
this command prints the exact `gaji eval … --ids` commands for them. Depth 1 is always known: it
is the root's first evaluation (before any decomposition), which a depth-1 run would stop at.

Caveat, written into the output: identical trees assume identical model outputs; batched decoding
on the LLM's parallel slots can change greedy outputs slightly between runs.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant
from gaji.io import atomic_write_json, atomic_write_text

MAX_DEPTH = 4


@dataclass
class TreeOutcome:
    """What one ToQ trace says about depth: validity after level 1 and at the end, the tree's depth."""

    id: str
    valid_at_1: bool
    valid_final: bool
    depth: int  # deepest level reached (1 = the root only)
    em: float | None = None

    @classmethod
    def from_trace(cls, qid: str, trace: dict, em: float | None = None) -> "TreeOutcome":
        root = trace.get("root") or {}
        depth = _depth(root)
        final = bool((root.get("scores") or {}).get("response_validity"))
        first = (root.get("data") or {}).get("first_scores")
        if depth == 1:
            at_1 = final  # the root stopped where it was first evaluated
        elif first is not None:
            at_1 = bool(first.get("response_validity"))
        else:
            at_1 = False  # decomposed without a positive first evaluation (no answer, or evaluate_root=false)
        return cls(qid, at_1, final, depth, em)


def _depth(node: dict) -> int:
    kids = node.get("children") or []
    return max([int(node.get("level") or 1)] + [_depth(c) for c in kids])


@dataclass
class DepthTable:
    outcomes: list[TreeOutcome]
    reruns: dict[int, dict[str, bool]] = field(default_factory=dict)  # depth -> {id: valid} from max_depth=d runs

    def needed(self, d: int) -> list[str]:
        """Questions whose validity at max depth d needs a run with max_depth=d."""
        return [o.id for o in self.outcomes if o.depth > d]

    def validity(self, d: int) -> tuple[float | None, int]:
        """(validity %, questions known) at maximum depth d; None when a needed rerun is missing."""
        known = 0
        valid = 0
        for o in self.outcomes:
            if d == 1:
                v: bool | None = o.valid_at_1
            elif o.depth <= d or d >= MAX_DEPTH:
                v = o.valid_final
            else:
                v = self.reruns.get(d, {}).get(o.id)
            if v is None:
                continue
            known += 1
            valid += int(v)
        n = len(self.outcomes)
        return (100.0 * valid / n if known == n and n else None), known

    def table5(self) -> dict[str, Any]:
        failed = [o for o in self.outcomes if not o.valid_at_1]
        resolved = [o for o in failed if o.valid_final]
        return {
            "questions": len(self.outcomes),
            "failed_at_depth_1": len(failed),
            "decomposed": sum(1 for o in failed if o.depth > 1),
            "resolved_by_deeper_levels": len(resolved),
            "resolved_pct": round(100.0 * len(resolved) / len(failed), 1) if failed else None,
            "valid_at_1_then_invalid": sum(1 for o in self.outcomes if o.valid_at_1 and not o.valid_final),
            "depth_histogram": {str(d): sum(1 for o in self.outcomes if o.depth == d) for d in range(1, MAX_DEPTH + 1)},
        }


def load_outcomes(run_dir: str | Path) -> list[TreeOutcome]:
    d = Path(run_dir)
    info_path = d / "run.json"
    if not info_path.exists():
        raise ConfigError(f"{d}: not a run directory (no run.json)")
    info = json.loads(info_path.read_text(encoding="utf-8"))
    if info.get("method") != "toq":
        raise ConfigError(f"{d}: a run of method {info.get('method')!r}; toq-depth needs a `--method toq` run")
    results = latest_by_id(read_jsonl_tolerant(d / "results.jsonl"))
    traces = latest_by_id(read_jsonl_tolerant(d / "traces.jsonl"))
    out = []
    for qid, rec in results.items():
        if rec.get("status") == "error" or qid not in traces:
            continue
        out.append(TreeOutcome.from_trace(qid, traces[qid]["trace"], (rec.get("metrics") or {}).get("em")))
    return out


def _rerun_validity(run_dir: str | Path) -> dict[str, bool]:
    return {o.id: o.valid_final for o in load_outcomes(run_dir)}


def render(table: DepthTable, run_dir: str, info: dict) -> str:
    lines = ["| max depth | response validity % | questions known |", "|---:|---:|---:|"]
    for d in range(1, MAX_DEPTH + 1):
        v, known = table.validity(d)
        lines.append(f"| {d} | {'–' if v is None else f'{v:.1f}'} | {known}/{len(table.outcomes)} |")
    t5 = table.table5()
    lines += [
        "",
        f"Table 5: {t5['failed_at_depth_1']} of {t5['questions']} questions failed at depth 1 (root answer rejected "
        f"or none); {t5['decomposed']} were decomposed; deeper levels resolved {t5['resolved_by_deeper_levels']}"
        + (f" ({t5['resolved_pct']} %)" if t5["resolved_pct"] is not None else "")
        + f". Valid at depth 1 but rejected after integration: {t5['valid_at_1_then_invalid']}."
        f" Tree depths: {t5['depth_histogram']}.",
        "",
        "Same tree assumed for questions that did not go deeper than d (batched decoding can change greedy outputs).",
    ]
    missing = [d for d in range(2, MAX_DEPTH) if table.needed(d) and d not in table.reruns]
    for d in missing:
        ids = ",".join(table.needed(d))
        lines.append(f"missing depth {d}: gaji eval --data {info.get('dataset', {}).get('name', '?')} --method toq "
                     f"-o max_depth={d} --retriever {info.get('retriever')} --k {info.get('k')} --llm {info.get('llm')} "
                     f"--limit {info.get('limit')} --concurrency 1 --no-cache --ids {ids} --out {run_dir}-depth{d}")
    return "\n".join(lines)


@dataclass
class DepthReport:
    run_dir: str
    table: DepthTable
    markdown: str

    def data(self) -> dict[str, Any]:
        t = self.table
        return {"run": self.run_dir, "validity": {str(d): t.validity(d)[0] for d in range(1, MAX_DEPTH + 1)},
                "table5": t.table5(), "outcomes": [o.__dict__ for o in t.outcomes]}

    def write(self, out: str) -> None:
        """<out>.md (the table) and <out>.json (the numbers), atomically."""
        atomic_write_text(Path(out + ".md"), self.markdown + "\n")
        atomic_write_json(Path(out + ".json"), self.data())


def depth_report(run_dir: str, depth_runs: Sequence[str] = ()) -> DepthReport:
    """Tables 4/5 of the `--method toq` run `run_dir` (at max_depth 4), with the max_depth=D reruns given as
    "D=DIR" specs."""
    info_path = Path(run_dir) / "run.json"
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.exists() else {}
    table = DepthTable(load_outcomes(run_dir))
    if not table.outcomes:
        raise ConfigError(f"{run_dir}: no answered questions yet")
    if (info.get("options") or {}).get("max_depth", MAX_DEPTH) != MAX_DEPTH:
        raise ConfigError(f"{run_dir}: the main run must use max_depth {MAX_DEPTH}")
    for spec in depth_runs:
        d_text, _, path = spec.partition("=")
        if not d_text.isdigit() or not path:
            raise ConfigError(f"--depth-run {spec!r}: expected D=DIR, e.g. 2=.gaji/bench/toq-depth2")
        table.reruns[int(d_text)] = _rerun_validity(path)
    return DepthReport(run_dir, table, render(table, run_dir, info))
