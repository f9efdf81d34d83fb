"""`gaji bench`, as the lab's `gaji.commands` entry point: the group and every sub-command module, in `gaji bench
--help` order. Each module has a `register(bench_subparsers)` that adds its sub-command(s)."""
from __future__ import annotations

import importlib

from gaji_lab.cli import bench_cmd

BENCH_MODULES = (
    "gaji_lab.cli.bench_retrieval",  # retrieval
    "gaji_lab.cli.bench_embed",  # embed
    "gaji_lab.cli.bench_runner",  # run, check, report
    "gaji_lab.cli.bench_sweep",  # sweep
    "gaji_lab.cli.bench_serve",  # serve
    "gaji_lab.cli.bench_chat_set",  # chat-set
    "gaji_lab.cli.bench_injection",  # injection
    "gaji_lab.cli.bench_security",  # security
    "gaji_lab.cli.bench_scale",  # llm-server, dense-store, ray-embed, ray-expand
    "gaji_lab.cli.bench_toq_depth",  # toq-depth, toq-judge
    "gaji_lab.cli.bench_probes",  # evaluator, decomposer, verifier
    "gaji_lab.cli.bench_trim",  # trim
    "gaji_lab.cli.bench_documents",  # documents, crossdoc
    "gaji_lab.cli.bench_build",  # build, embed-workers
    "gaji_lab.cli.bench_bigdoc",  # bigdoc
    "gaji_lab.cli.bench_plot",  # plot
    "gaji_lab.cli.bench_targets",  # targets
    "gaji_lab.cli.bench_chat",  # followups, ttft
    "gaji_lab.cli.bench_durability",  # crash, concurrency
    "gaji_lab.cli.bench_readers",  # fuzz-readers
    "gaji_lab.cli.bench_replay",  # replay
)


def register_bench(sub) -> None:
    """Add `gaji bench` and all its sub-commands to gaji's top-level command list."""
    bsub = bench_cmd.register(sub)
    for name in BENCH_MODULES:
        importlib.import_module(name).register(bsub)
