"""`gaji bench sweep`: run one method over a question set once per value of one option, and tabulate.

    gaji bench sweep --data hotpotqa --method ircot --param k=2,4,6,8 --limit 20 --llm local
    gaji bench sweep --data musique --method iter_retgen --param iterations=1,2,3 -o m=1

Each value is a full `gaji eval` run (gaji/eval/runner.py) in its own directory under `--out`
(default runs/sweep/<dataset>-<method>-<param>/<param>=<value>), so an interrupted sweep resumes and
every run keeps its results and traces. The LLM and the index are loaded once and shared. The table
(markdown, on stdout) has one row per value: the headline metrics (EM, F1, recall@k, ATC, calls, s/q).
"""
from __future__ import annotations

import argparse
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


def register(bsub: Any) -> None:
    from gaji.cli.common import add_settings_flags

    p = bsub.add_parser("sweep", help="evaluate a method once per value of one option (K, steps, …) and tabulate")
    p.add_argument("--data", required=True, help="dataset name or path (as for `gaji eval`)")
    p.add_argument("--method", required=True, help="method name (see `gaji methods`)")
    p.add_argument("--param", required=True, metavar="NAME=V1,V2,…", help="the option to sweep, e.g. k=2,4,6,8")
    p.add_argument("-o", "--option", action="append", dest="options", metavar="KEY=VALUE",
                   help="a fixed method option for every run (repeatable)")
    p.add_argument("--limit", type=int, help="first N questions only")
    p.add_argument("--out", help="parent directory of the runs (default runs/sweep/<dataset>-<method>-<param>)")
    p.add_argument("--ks", default="2,5,10,15", help="k values for recall@k (default 2,5,10,15; IRCoT reports ≤15)")
    p.add_argument("--concurrency", type=int, help="questions in flight at once (default: the LLM's parallel slots)")
    p.add_argument("--overwrite", action="store_true", help="start every run again")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_settings_flags(p)
    p.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    from gaji.cli.common import parse_kv, settings_from_args

    s = settings_from_args(args)
    if s.sources.get("cache") == "default":
        s.cache = True  # as in `gaji eval`: the response cache is on unless --no-cache
    name, values = parse_param(args.param)
    try:
        ks = tuple(sorted({int(x) for x in args.ks.split(",") if x.strip()}))
    except ValueError:
        raise ConfigError(f"--ks must be comma-separated integers, not {args.ks!r}") from None
    fixed = parse_kv(args.options)
    if name in fixed:
        raise ConfigError(f"option {name!r} is both swept (--param) and fixed (-o)")
    rows = sweep(args.data, args.method, name, values, fixed, s, limit=args.limit, out=args.out, ks=ks,
                 concurrency=args.concurrency, overwrite=args.overwrite, progress=not args.quiet)
    print(table(name, rows))
    return 0


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
