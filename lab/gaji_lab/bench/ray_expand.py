"""`gaji bench ray-expand`: chunk expansion in one process vs sharded over Ray workers.

    gaji bench ray-expand --corpus hotpotqa --limit 12 --workers 2 --llm local:small --out benchmarks/scale

The first `--limit` chunks of the corpus are expanded twice with the same settings per LLM: 1 thread and 1
parallel slot (batching changes greedy outputs, so only parallel=1 can be compared chunk for chunk):

1. in this process (`Expander`, one model),
2. over `--workers` Ray actors (`RayExpander`, one model each, 1 thread each; a local cluster started here
   unless `--ray auto` / `ray://HOST:PORT`).

It reports expansion wall time (start-up - cluster and model loads - timed apart), chunks per minute, tokens,
the speed-up, how many chunks got identical expansions, and the machine's load average before and after
(a number taken while other jobs ran is contended and says so). Results: `<out>/<label>.json|.md`.
"""
from __future__ import annotations

import functools
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["run_ray_expand", "markdown"]


def _chunks(corpus: str, limit: int) -> list:
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import resolve_corpus
    from gaji.index.sources import chunk_all

    path = corpus if Path(corpus).exists() else resolve_corpus(corpus)
    docs, _ = read_documents([path], limit=limit)
    return chunk_all(docs, ChunkingConfig())[:limit]


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run_ray_expand(corpus: str, limit: int, workers: int, llm: str, address: str = "local") -> dict[str, Any]:
    from gaji.config import load_settings
    from gaji.distributed.cluster import shutdown
    from gaji.distributed.expand import RayExpander
    from gaji.expand.generator import Expander, ExpansionStore
    from gaji.llm.factory import make_llm

    chunks = _chunks(corpus, limit)
    s = load_settings({"llm": llm})
    build = functools.partial(make_llm, s.llm, parallel=1, threads=1, ctx_size=s.ctx_size, base_url=s.base_url,
                              timeout_s=s.timeout_s)
    load_before = _load()
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gaji-ray-expand-") as tmp:
        t0 = time.perf_counter()
        backend = build()
        load_s = time.perf_counter() - t0
        try:
            one = Expander(backend).run(chunks, ExpansionStore(Path(tmp) / "one.jsonl"))
        finally:
            backend.close()
        runs["1 process x 1 thread"] = _row(one.stats(), one.wall_s, load_s)

        import ray

        ours = not ray.is_initialized()  # a cluster this benchmark starts is stopped by it
        rx = RayExpander(build, workers=workers, address=address, threads_per_worker=1, shard_size=1)
        try:
            par = rx.run(chunks, ExpansionStore(Path(tmp) / "ray.jsonl"))
        finally:
            if ours:
                shutdown()
        runs[f"Ray, {workers} workers x 1 thread"] = _row(par.stats(), par.wall_s - par.startup_s, par.startup_s)
        runs[f"Ray, {workers} workers x 1 thread"]["per_worker"] = par.workers
        same = sum(1 for c in chunks if c.id in one.expansions and c.id in par.expansions
                   and (one.expansions[c.id].title, one.expansions[c.id].questions)
                   == (par.expansions[c.id].title, par.expansions[c.id].questions))
    load_after = _load()
    base = runs["1 process x 1 thread"]["expand_s"]
    for r in runs.values():
        r["speedup"] = round(base / r["expand_s"], 2) if r["expand_s"] else None
    cores = os.cpu_count() or 1
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cores": cores, "platform": platform.platform()},
        "corpus": corpus, "chunks": len(chunks), "llm": llm, "model": one.model, "workers": workers, "ray": address,
        "settings": {"threads": 1, "parallel": 1, "ctx_size": s.ctx_size},
        "identical_expansions": f"{same}/{len(chunks)}",
        "load_average_before": load_before, "load_average_after": load_after,
        # busy before the start (more than one core's worth in the last minute); the run's own load shows after it
        "contended": load_before[0] > 1.0,
        "runs": runs,
    }


def _row(st: dict[str, Any], expand_s: float, startup_s: float) -> dict[str, Any]:
    return {"expand_s": round(expand_s, 2), "startup_s": round(startup_s, 2), "generated": st["generated"],
            "failed": st["failed"], "chunks_per_min": round(st["generated"] / expand_s * 60, 2) if expand_s else None,
            "prompt_tokens": st["prompt_tokens"], "completion_tokens": st["completion_tokens"],
            "cached_tokens": st["cached_tokens"], "call_s_per_chunk": st["call_s_per_chunk"]}


def markdown(res: dict[str, Any]) -> str:
    lines = [f"Chunk expansion of {res['chunks']} chunks of {res['corpus']} with {res['llm']} ({res['model']}), "
             f"threads=1, parallel=1, {res['date']}, {res['machine']['cores']} cores, Ray {res['ray']}; "
             f"load average before {res['load_average_before']}, after {res['load_average_after']}"
             + (" (CONTENDED: other jobs shared the cores)" if res["contended"] else ""), "",
             f"Identical expansions (title + questions): {res['identical_expansions']}", "",
             "| run | expand s | chunks/min | speed-up | start-up s | prompt tok | completion tok | cached tok | failed |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in res["runs"].items():
        lines.append(f"| {name} | {r['expand_s']} | {r['chunks_per_min']} | {r['speedup']} | {r['startup_s']} | "
                     f"{r['prompt_tokens']} | {r['completion_tokens']} | {r['cached_tokens']} | {r['failed']} |")
    return "\n".join(lines) + "\n"
