"""`gaji bench embed-workers`: embedding passages in one process versus worker processes, side by side.

    gaji bench embed-workers --corpus hotpotqa --limit 500 --workers 2

On the same passages, in this order: one process (the default embedder with its own threads), then
`workers` processes of one thread each (gaji.index.workers.ProcessEmbedder), then one process again, so a
load that changes during the run shows as a difference between the two single-process runs. The workers'
start-up (spawn + a model load each) is timed apart from the embedding; the vectors must be identical.
The load average before and after each run is recorded: on a shared machine it says what the numbers mean.
"""
from __future__ import annotations

import os
import platform
import time
from typing import Any

import numpy as np

__all__ = ["run_embed_workers", "markdown"]


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _texts(corpus: str, limit: int) -> list[str]:
    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import resolve_corpus
    from gaji.index.texts import chunk_text
    from gaji.types import Chunk

    docs, _ = read_documents([resolve_corpus(corpus)], limit=limit)
    return [chunk_text(Chunk(id=d.id, doc_id=d.id, text=d.text, title=d.title)) for d in docs][:limit]


def _timed(name: str, emb: Any, texts: list[str], startup_s: float | None = None) -> tuple[dict, np.ndarray]:
    load0 = _load()
    t0 = time.perf_counter()
    vecs = emb.embed_passages(texts)
    s = time.perf_counter() - t0
    row = {"run": name, "embed_s": round(s, 2), "passages_per_s": round(len(texts) / s, 3),
           "load_before": load0, "load_after": _load()}
    if startup_s is not None:
        row["startup_s"] = round(startup_s, 2)
    return row, vecs


def run_embed_workers(corpus: str = "hotpotqa", limit: int = 500, workers: int = 2) -> dict[str, Any]:
    from gaji.index.dense import get_embedder
    from gaji.index.workers import ProcessEmbedder

    texts = _texts(corpus, limit)
    local = get_embedder()
    local.embed_passages(texts[:2])  # the model loads outside the timing
    runs = []
    row, ref = _timed("1 process (default threads)", local, texts)
    runs.append(row)
    t0 = time.perf_counter()
    with ProcessEmbedder(workers) as pe:
        pe.warmup()
        row, got = _timed(f"{workers} worker processes x 1 thread", pe, texts, time.perf_counter() - t0)
    row["identical"] = bool(np.array_equal(got, ref))
    row["max_abs_diff"] = float(np.abs(got - ref).max()) if len(texts) else 0.0
    runs.append(row)
    row, again = _timed("1 process again (default threads)", local, texts)
    row["identical"] = bool(np.array_equal(again, ref))
    runs.append(row)
    single = min(runs[0]["embed_s"], runs[2]["embed_s"])
    for r in runs:
        r["speedup_vs_best_single"] = round(single / r["embed_s"], 2)
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "corpus": corpus, "passages": len(texts),
            "chars": sum(len(t) for t in texts), "model": local.model_id, "workers": workers,
            "machine": {"cores": os.cpu_count(), "platform": platform.platform()}, "runs": runs}


def markdown(res: dict[str, Any]) -> str:
    lines = [f"Embedding {res['passages']} passages of {res['corpus']} ({res['chars']:,} chars, {res['model']}), "
             f"{res['date']}, {res['machine']['cores']} cores", "",
             "| run | embed s | passages/s | speed-up vs best 1-process run | identical vectors | start-up s | "
             "load before → after |",
             "|---|---:|---:|---:|---|---:|---|"]
    for r in res["runs"]:
        lines.append(f"| {r['run']} | {r['embed_s']} | {r['passages_per_s']} | {r['speedup_vs_best_single']} | "
                     f"{r.get('identical', 'reference')} | {r.get('startup_s', '-')} | "
                     f"{' / '.join(map(str, r['load_before']))} → {' / '.join(map(str, r['load_after']))} |")
    return "\n".join(lines) + "\n"
