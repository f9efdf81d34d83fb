"""`gaji eval` sharded over Ray: the questions are split into contiguous shards, each shard is an ordinary
resumable EvalRun (gaji.eval.runner) in a Ray task with its own LLM backend, and the driver merges the
shards' results back in question order.

    summary = ShardedEval(cfg, settings, workers=2, address="local").run()
    gaji eval --data hotpotqa --method oner --ray local --workers 2

Layout: ``<out>/shards/shard-<i>/`` are the shards' run directories (each resumes by itself);
``<out>/results.jsonl`` and ``traces.jsonl`` are the merged lines in question order, ``summary.json``
the summary over every question (the same metrics a single-process run gives: each question's record
is computed by the same code), ``run.json`` the run with a ``distributed`` section.

Each worker builds its backend from the settings: with ``--llm local`` every worker loads its own model
(one machine: no gain beyond the cores), with ``--llm openai:M --base-url URL`` every worker calls the
same server, which batches them (the deployment picture of docs/deploy.md).
"""
from __future__ import annotations

import copy
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from gaji.config import Settings
from gaji.eval.record import now_iso
from gaji.eval.runner import EvalConfig, EvalRun
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant, summarize
from gaji.io import atomic_write_bytes, atomic_write_json

from .cluster import connect, worker_env
from .embed import shard_bounds

__all__ = ["ShardedEval", "run_shard"]


def run_shard(cfg: EvalConfig, settings: Settings, ids: list[str]) -> dict[str, Any]:
    """Body of one Ray task: the EvalRun of the questions `ids` in cfg.out (its own shard directory)."""
    from rich.console import Console

    console = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115 - lives with the run
    run = EvalRun(cfg, settings, console=console)
    try:
        run.prepare()
        wanted = set(ids)
        assert run.dataset is not None
        run.dataset.items = [it for it in run.dataset.items if it.id in wanted]
        t0 = time.perf_counter()
        summary = run.run()
        return {"out": cfg.out, "questions": len(ids), "elapsed_s": round(time.perf_counter() - t0, 3),
                "new": int(summary.get("questions_this_session") or 0)}
    finally:
        run.close()


class ShardedEval:
    def __init__(self, cfg: EvalConfig, settings: Settings, workers: int = 2, address: str = "local",
                 threads_per_worker: int = 1, console: Any = None):
        self.cfg = cfg
        self.s = settings
        self.workers = max(1, int(workers))
        self.address = address
        self.threads = max(1, int(threads_per_worker))
        from rich.console import Console

        self.console = console or Console(stderr=True)

    def run(self) -> dict[str, Any]:
        # The driver prepares exactly like a single-process run: dataset, method options, index (built
        # once here, never by the workers), run directory and its configuration check.
        driver = EvalRun(self.cfg, self.s, console=self.console)
        try:
            driver.prepare()
            assert driver.dataset is not None and driver.out is not None
            items = driver.items()
            out = driver.out
            settings = replace(driver.s, sources=dict(driver.s.sources))  # with the index the driver resolved
        finally:
            driver.close()
        ids = [it.id for it in items]
        bounds = shard_bounds(len(ids), self.workers)
        ray = connect(self.address, num_cpus=None)
        task = ray.remote(run_shard).options(num_cpus=self.threads,
                                             runtime_env={"env_vars": worker_env(self.threads)})
        shard_cfgs = []
        for i, (a, b) in enumerate(bounds):
            c = copy.deepcopy(self.cfg)
            c.out = str(out / "shards" / f"shard-{i}")
            c.limit = None
            c.progress = False
            shard_cfgs.append((c, ids[a:b]))
        self.console.print(f"evaluating {len(ids)} questions as {len(bounds)} shard(s) on Ray ({self.address})")
        t0 = time.perf_counter()
        reports = ray.get([task.remote(c, settings, sid) for c, sid in shard_cfgs])
        elapsed = time.perf_counter() - t0
        summary = self._merge(out, items, [c for c, _ in shard_cfgs], reports, elapsed)
        driver.print_summary(summary)  # the single-process run's table (needs only the dataset and settings)
        return summary

    def _merge(self, out: Path, items: list, shard_cfgs: list[EvalConfig], reports: list[dict], elapsed: float) -> dict:
        records: dict[str, dict] = {}
        traces: dict[str, dict] = {}
        for c in shard_cfgs:
            d = Path(str(c.out))
            records.update(latest_by_id(read_jsonl_tolerant(d / "results.jsonl")))
            traces.update(latest_by_id(read_jsonl_tolerant(d / "traces.jsonl")))
        ordered = [records[it.id] for it in items if it.id in records]
        ordered_traces = [traces[it.id] for it in items if it.id in traces]
        atomic_write_bytes(out / "results.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered).encode())
        atomic_write_bytes(out / "traces.jsonl",
                           "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in ordered_traces).encode())
        summary = summarize(ordered)
        n_new = sum(int(r.get("new") or 0) for r in reports)
        summary.update({
            "elapsed_s": round(elapsed, 2),
            "questions_this_session": n_new,
            "questions_per_hour": round(n_new / elapsed * 3600, 1) if elapsed > 0 and n_new else None,
            "complete": len(ordered) == len(items),
            "notes": [f"sharded over Ray: {len(shard_cfgs)} shard(s)"],
        })
        atomic_write_json(out / "summary.json", summary)
        info: dict[str, Any] = {}
        first = Path(str(shard_cfgs[0].out)) / "run.json" if shard_cfgs else None
        if first is not None and first.exists():
            info = json.loads(first.read_text(encoding="utf-8"))
        info.update({
            "status": "finished" if summary["complete"] else "incomplete",
            "updated_at": now_iso(),
            "summary": summary,
            "distributed": {"engine": "ray", "address": self.address, "workers": len(shard_cfgs),
                            "threads_per_worker": self.threads, "shards": reports},
        })
        atomic_write_json(out / "run.json", info)
        return summary
