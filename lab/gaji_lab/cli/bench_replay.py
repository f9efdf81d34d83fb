"""`gaji bench replay RUN_DIR`: a recorded run's questions again with today's code, each LLM call answered with the
recorded output of the same prompt (lab/gaji_lab/bench/replay.py). No model runs; the index's embedder does."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("replay", help="re-run a recorded run's questions with today's code and the recorded model "
                                       "outputs; a table of same / different / diverged answers")
    p.add_argument("run_dir", metavar="RUN_DIR", help="a recorded run (benchmarks/results/<run>/: run.json, "
                                                      "results.jsonl, traces.jsonl[.xz])")
    p.add_argument("--limit", type=int, help="first N questions of results.jsonl only")
    p.add_argument("--out", help="folder for replay.md and replay.jsonl (default .gaji/bench/replay/<run>)")
    p.add_argument("--index", help="index folder to search (default: the one run.json names, else the dataset's "
                                   "corpus index under .gaji/indexes, built when missing)")
    p.add_argument("--passages", choices=("index", "recorded"), default="index",
                   help="index: search the index (default); recorded: answer each search with the recorded search's "
                        "passages for the same query (the method's code alone, whatever the index's embedder now)")
    p.add_argument("--model-file", help="the recorded model's GGUF file, for its tokenizer (default: run.json's, or "
                                        "the same model under $GAJI_HOME/models)")
    p.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    from gaji.errors import ConfigError
    from gaji_lab.bench.replay import (load_recorded, open_retriever, recorded_model_counter, replay_run,
                                       write_report)

    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")
    run = load_recorded(args.run_dir)
    # answering searches from the recording needs no index: one is built only when the searches go to it
    opened = open_retriever(run, args.index, say=lambda s: print(s, file=sys.stderr), build=args.passages == "index")
    counter, counted = recorded_model_counter(run, args.model_file)
    print(f"{run.name}: {opened.note}; {counted}", file=sys.stderr)

    def say(row) -> None:
        print(f"  {row.id[:24]:24} {row.verdict:9} {row.cause}", file=sys.stderr)

    report = replay_run(run, opened.retriever, limit=args.limit, counter=counter,
                        recorded_passages=args.passages == "recorded", progress=say)
    if counter is not None:
        report.notes.append(counted)
    report.notes.append(opened.note)
    md, _ = write_report(report, Path(args.out) if args.out else Path(".gaji") / "bench" / "replay" / run.name)
    c = report.counts()
    print(f"{run.name}: " + ", ".join(f"{v} {n}" for v, n in c.items()) + f"; table in {md}")
    return 0
