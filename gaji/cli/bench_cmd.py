"""`gaji bench …`: benchmarks are commands. Each benchmark module under gaji/bench/ has a
`register(subparsers)` adding its own sub-command (retrieval, run, check, …)."""
from __future__ import annotations

import importlib

BENCH_MODULES = (
    "gaji.bench.retrieval",  # gaji bench retrieval
    "gaji.bench.runner",  # gaji bench run CONFIG / gaji bench check
    "gaji.bench.methods",  # method sweeps (K, depth, …)
    "gaji.bench.serve",  # gaji bench serve (load test)
    "gaji.bench.injection",  # gaji bench injection (prompt-injection check)
    "gaji.bench.llm_server",  # gaji bench llm-server (embedded vs real LLM servers, issue 10)
    "gaji.bench.scale",  # gaji bench dense-store / gaji bench ray-embed (issue 10)
    "gaji.bench.ray_expand",  # gaji bench ray-expand (issue 10)
    "gaji.bench.toq_depth",  # gaji bench toq-depth (ToQ Tables 4/5, issue 4)
    "gaji.bench.evaluator",  # gaji bench evaluator (ToQ query evaluator calibration, issue 4)
    "gaji.bench.decomposer",  # gaji bench decomposer (ToQ decomposer vs gold question shapes, issue 4)
    "gaji.bench.verifier",  # gaji bench verifier (ConTReGen verification step (i), issue 7)
    "gaji.bench.followups",  # gaji bench followups (follow-up rewrite accuracy, answers with vs without it)
    "gaji.bench.ttft",  # gaji bench ttft (time to the first answer token per method)
)


def register(sub) -> None:
    p = sub.add_parser("bench", help="run a benchmark (results go to BENCHMARKS.md / benchmarks/)")
    bsub = p.add_subparsers(dest="bench_command", metavar="BENCHMARK")
    for name in BENCH_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue
            raise
        mod.register(bsub)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])
