"""`gaji bench run | check | report`: the recorded benchmarks (lab/gaji_lab/bench/runner.py, benchmarks/configs/*.yaml)."""
from __future__ import annotations

import argparse
import sys

__all__ = ["register"]


def register(bsub) -> None:
    r = bsub.add_parser("run", help="run one benchmark config (benchmarks/configs/NAME.yaml); --record writes its scores")
    r.add_argument("config", help="config file or name")
    r.add_argument("--record", action="store_true", help="write the scores into the YAML and results into benchmarks/results/")
    r.add_argument("--out", help="run directory (default .gaji/bench/<name>)")
    r.add_argument("--cache", action="store_true", help="use the LLM response cache (off: benchmarks measure time and cost)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--fresh", action="store_true",
                   help="start the run directory again (default: resume an interrupted run of the same configuration)")
    r.set_defaults(func=_run)

    c = bsub.add_parser("check", help="re-run the cheap benchmarks; exit 1 if a score drifts beyond tolerance")
    c.add_argument("--max-minutes", type=float, help="stop starting new benchmarks after this many minutes")
    c.add_argument("--cache", action="store_true", help="use the LLM response cache")
    c.add_argument("--quiet", action="store_true", help="no progress bar")
    c.set_defaults(func=_check)

    p = bsub.add_parser("report", help="regenerate the recorded-benchmarks block of BENCHMARKS.md")
    p.add_argument("--file", help="markdown file (default BENCHMARKS.md at the project root)")
    p.set_defaults(func=_report)


def _run(args: argparse.Namespace) -> int:
    from gaji_lab.bench.runner import drift_table, record_run, run_benchmark

    run = run_benchmark(args.config, args.out, cache=args.cache, progress=not args.quiet, fresh=args.fresh)
    cfg = run.config
    if not args.fresh and run.kept:
        print(f"{cfg.name}: resumed {run.out} ({run.kept} questions from an earlier run kept; --fresh starts again)")
    drifts = run.drifts
    if drifts is None:
        print(f"{cfg.name}: no recorded scores yet")
    elif drifts:
        print(f"{cfg.name}: against the record of {cfg.recorded.get('date')}")
        print(drift_table(drifts))
    if args.record and run.nothing_new:
        print(f"{cfg.name}: nothing new measured (every question was already in {run.out}); the record of "
              f"{cfg.recorded.get('date')} stays. --fresh measures again.")
    elif args.record:
        dest = record_run(run)
        print(f"recorded scores in {cfg.path}; results in {dest}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from gaji_lab.bench.runner import check_benchmarks

    res = check_benchmarks(args.max_minutes, cache=args.cache, progress=not args.quiet)
    if not res.cheap:
        print("no cheap benchmark configs (cheap: true) to check")
        return 0
    print("\n".join(res.lines))
    if res.failed:
        print(f"drift beyond tolerance in: {', '.join(res.failed)}", file=sys.stderr)
        return 1
    return 0


def _report(args: argparse.Namespace) -> int:
    from gaji_lab.bench.runner import regenerate_report

    print(f"updated {regenerate_report(args.file)}")
    return 0
