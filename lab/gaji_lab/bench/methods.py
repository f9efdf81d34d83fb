"""`gaji bench sweep`: run one method over a question set once per value of one option, and tabulate.

    gaji bench sweep --data hotpotqa --method ircot --param k=2,4,6,8 --limit 20 --llm local
    gaji bench sweep --data musique --method iter_retgen --param iterations=1,2,3 -o m=1

Each value is a full `gaji eval` run (gaji/eval/runner.py) in its own directory under `--out`
(default runs/sweep/<dataset>-<method>-<param>/<param>=<value>), so an interrupted sweep resumes and
every run keeps its results and traces. The LLM and the index are loaded once and shared. The table
(markdown, on stdout) has one row per value: the headline metrics (EM, F1, recall@k, ATC, calls, s/q).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from gaji.errors import ConfigError

TABLE_METRICS = ("em", "f1", "recall@2", "recall@5", "recall@10", "recall@15", "tokens", "calls", "wall_s")


def parse_param(text: str) -> tuple[str, list[str]]:
    """"k=2,4,6,8" -> ("k", ["2", "4", "6", "8"])."""
    name, sep, values = text.partition("=")
    vals = [v.strip() for v in values.split(",") if v.strip()]
    if not sep or not name.strip() or not vals:
        raise ConfigError(f"--param must look like NAME=V1,V2,…, not {text!r}")
    return name.strip().replace("-", "_"), vals


def sweep(
    data: str,
    method: str,
    name: str,
    values: list[str],
    fixed: dict[str, str],
    settings: Any,
    *,
    limit: int | None = None,
    out: str | None = None,
    ks: tuple[int, ...] = (2, 5, 10, 15),
    concurrency: int | None = None,
    overwrite: bool = False,
    progress: bool = True,
    gaji: Any = None,
) -> list[tuple[str, dict]]:
    """One eval run per value; returns [(value, summary)] in the order given."""
    from gaji.api import Gaji
    from gaji.eval.record import slug
    from gaji.eval.runner import EvalConfig, EvalRun
    from gaji.registry import METHODS

    if name in fixed:
        raise ConfigError(f"option {name!r} is both swept (--param) and fixed (-o)")
    cls = METHODS.get(method)
    cls.parse_options({**fixed, name: values[0]})  # an unknown option or a bad value fails before any work
    g = gaji or Gaji(settings=settings)
    base = Path(out) if out else Path("runs") / "sweep" / f"{slug(Path(data).stem)}-{slug(method)}-{slug(name)}"
    rows: list[tuple[str, dict]] = []
    try:
        for v in values:
            cfg = EvalConfig(data=data, method=method, options={**fixed, name: v}, out=str(base / f"{name}={v}"),
                             limit=limit, concurrency=concurrency, ks=ks, overwrite=overwrite, progress=progress)
            rows.append((v, EvalRun(cfg, g.settings, gaji=g).run()))
    finally:
        if gaji is None:
            g.close()
    return rows


def table(name: str, rows: list[tuple[str, dict]]) -> str:
    """Markdown: one row per swept value, the headline metrics present in any run as columns."""
    from gaji.eval.summary import format_value, metric_label

    present = [m for m in TABLE_METRICS if any(m in (s.get("metrics") or {}) for _, s in rows)]
    head = [name, *(metric_label(m) for m in present), "n", "errors/failed"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v, s in rows:
        ms = s.get("metrics") or {}
        cells = [format_value(m, ms[m]["mean"]) if m in ms else "–" for m in present]
        lines.append("| " + " | ".join([v, *cells, str(s.get("questions", 0)),
                                        f"{s.get('errors', 0)}/{s.get('failed', 0)}"]) + " |")
    return "\n".join(lines)
