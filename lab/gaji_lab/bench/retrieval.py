"""`gaji bench retrieval`: recall of gold passages, latency and indexing speed of bm25 / dense / hybrid.

    gaji bench retrieval                                   # all sets, all retrievers, 200k BM25 scale test
    gaji bench retrieval --sets koblex,korquad --retrievers bm25 --scale 0

For each shared set (hotpotqa, 2wikimultihopqa, musique, koblex, korquad) an index of its whole pooled
corpus is built (cached under ``--work``, reused when it matches) and every question with gold
passages (``supporting[].doc_id``) is searched:

- recall@k: the fraction of a question's gold passages among the top k, averaged over questions;
  all@k: the fraction of questions with *every* gold passage in the top k (k = 2, 5, 10, 15);
- latency p50/p95 per retriever (one query at a time, query-embedding cache off);
- indexing speed, from the build: Korean/English analysis, BM25 indexing excluding analysis, embedding;
- ``--scale N``: BM25 alone on N synthetic passages (real analysed passages, replicated with random
  term drops and a unique term each), indexing speed excluding analysis and query latency;
- ``--tune``: RRF k / weights / depth grid on the same questions (from cached top-100 lists).

KoBLEX questions are searched as ``background + question`` (its README: the scenario is part of the
question). Results: a markdown table on stdout, JSON (and the table) under ``--out``.
"""
from __future__ import annotations

import json
import os
import platform
import random
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from gaji.stats import percentile

__all__ = ["run", "recall_at"]

DEFAULT_SETS = ("hotpotqa", "2wikimultihopqa", "musique", "koblex", "korquad")
KS = (2, 5, 10, 15)
TUNE_DEPTH = 100


# ---------------------------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------------------------


def recall_at(ranked_doc_ids: list[str], gold: list[str], k: int) -> tuple[float, bool]:
    """(fraction of gold among the top k, whether all gold are there)."""
    top = set(ranked_doc_ids[:k])
    found = sum(1 for g in gold if g in top)
    return found / len(gold), found == len(gold)


def _dedupe(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def ranked_doc_ids(idx: Any, rows: list[tuple[int, float]], doc_of: dict[int, str]) -> list[str]:
    """The documents of ranked index rows, best first, each once; `doc_of` caches row -> doc id across calls."""
    out = []
    for r, _ in rows:
        if r not in doc_of:
            c = idx.chunk_at(r)
            doc_of[r] = c.doc_id if c is not None else ""
        out.append(doc_of[r])
    return _dedupe(out)


# ---------------------------------------------------------------------------------------------
# pieces
# ---------------------------------------------------------------------------------------------


def _questions(name: str, qpath: Path, max_questions: int | None) -> list[dict[str, Any]]:
    from gaji.corpus.shared_data import load_questions

    out = []
    for q in load_questions(qpath):
        gold = _dedupe([s["doc_id"] for s in q.get("supporting") or [] if s.get("doc_id")])
        if not gold:
            continue
        text = q["question"]
        if q.get("background"):
            text = f"{q['background']}\n{text}"
        out.append({"id": q.get("id"), "query": text, "gold": gold})
        if max_questions and len(out) >= max_questions:
            break
    return out


def _get_index(name: str, corpus: Path, work: Path, dense: bool, rebuild: bool, progress: bool):
    from gaji.errors import GajiError
    from gaji.index.build import build_index
    from gaji.index.store import open_index

    path = work / name
    if path.exists() and not rebuild:
        try:
            idx = open_index(path)
            m = idx.manifest
            if m.sources == [str(corpus)] and (m.has_dense and not idx.vectors_pending or not dense) and m.has_lexical:
                return idx, True
        except GajiError:
            pass
    idx = build_index([corpus], path, lexical=True, dense=dense, progress=progress, skip_bad=True)
    return idx, False


def _timed(fn, *a) -> tuple[Any, float]:
    t0 = time.perf_counter()
    r = fn(*a)
    return r, (time.perf_counter() - t0) * 1000.0


def _eval_set(idx, questions: list[dict], retrievers: list[str], hybrid_kw: dict, tune: bool) -> dict[str, Any]:
    """Per retriever: recall@k, all@k, latency; plus top-100 row lists for tuning."""
    kmax = max(KS)
    result: dict[str, Any] = {}
    doc_of: dict[int, str] = {}
    q_vectors: list[Any] = []  # dense query vectors from the timed run, reused for tuning

    def doc_ids(rows: list[tuple[int, float]]) -> list[str]:
        return ranked_doc_ids(idx, rows, doc_of)

    for name in retrievers:
        kw = dict(hybrid_kw) if name == "hybrid" else {}
        if name in ("dense", "hybrid"):
            kw["cache_size"] = 0  # every query pays its embedding: honest latency
        r = idx.retriever(name, **kw)
        rec = {k: [] for k in KS}
        allk = {k: [] for k in KS}
        lat: list[float] = []
        for q in questions:
            passages, ms = _timed(r.search, q["query"], kmax)
            lat.append(ms)
            if name == "dense" and tune:
                q_vectors.append(r.last_vector)
            ranked = _dedupe([p.doc_id for p in passages])
            for k in KS:
                f, a = recall_at(ranked, q["gold"], k)
                rec[k].append(f)
                allk[k].append(a)
        result[name] = {
            "recall": {k: round(statistics.fmean(v), 4) for k, v in rec.items()},
            "all": {k: round(statistics.fmean(v), 4) for k, v in allk.items()},
            "latency_ms": {"p50": round(percentile(lat, 50), 3), "p95": round(percentile(lat, 95), 3),
                           "mean": round(statistics.fmean(lat), 3)},
            "questions": len(questions),
            "params": r.describe(),
        }
    if tune and idx.has_dense and idx.has_lexical:
        bm = idx.retriever("bm25")
        if len(q_vectors) != len(questions):
            de = idx.retriever("dense", cache_size=0)
            q_vectors = [de.query_vector(q["query"]) for q in questions]
        lists = {
            "bm25": [bm.search_rows(q["query"], TUNE_DEPTH) for q in questions],
            "dense": [idx.dense.search(v, TUNE_DEPTH) for v in q_vectors],
        }
        for ls in lists.values():
            for rows in ls:
                doc_ids(rows)  # fills doc_of for every row the fusion can return
        result["_tune_lists"] = lists
        result["_doc_of"] = doc_of
    return result


def _tune(per_set: dict[str, dict], questions: dict[str, list[dict]]) -> dict[str, Any]:
    """Grid over RRF k, weights and depth: recall@10 per set from the cached top-100 lists."""
    from gaji.retrieve.fusion import rrf_fuse

    grid_k = [1, 5, 10, 20, 30, 60, 100]
    grid_w = [(1.0, 1.0), (1.0, 0.5), (0.5, 1.0), (1.0, 0.75), (0.75, 1.0), (1.0, 0.25), (0.25, 1.0)]
    grid_d = [20, 50, 100]  # TUNE_DEPTH is the largest
    rows = []
    for rk in grid_k:
        for wb, wd in grid_w:
            for depth in grid_d:
                entry = {"rrf_k": rk, "weights": {"bm25": wb, "dense": wd}, "depth": depth, "recall@10": {}}
                for s, res in per_set.items():
                    if "_tune_lists" not in res:
                        continue
                    L, doc_of = res["_tune_lists"], res["_doc_of"]
                    vals = []
                    for i, q in enumerate(questions[s]):
                        fused = rrf_fuse({"bm25": L["bm25"][i], "dense": L["dense"][i]}, k=rk,
                                         weights={"bm25": wb, "dense": wd}, depth=depth, limit=10)
                        ranked = _dedupe([doc_of[h.key] for h in fused])
                        vals.append(recall_at(ranked, q["gold"], 10)[0])
                    entry["recall@10"][s] = round(statistics.fmean(vals), 4) if vals else None
                got = [v for v in entry["recall@10"].values() if v is not None]
                entry["mean"] = round(statistics.fmean(got), 4) if got else None
                # margin over the best single retriever, per set (the target is >= 0 everywhere)
                margins = []
                for s, v in entry["recall@10"].items():
                    best = max(per_set[s][n]["recall"][10] for n in ("bm25", "dense") if n in per_set[s])
                    margins.append(v - best)
                entry["min_margin"] = round(min(margins), 4) if margins else None
                rows.append(entry)
    rows.sort(key=lambda e: (-(e["min_margin"] or -9), -(e["mean"] or 0)))
    return {"grid": rows, "best_by_min_margin": rows[0] if rows else None,
            "best_by_mean": max(rows, key=lambda e: e["mean"] or 0) if rows else None}


def _lexical_stats(idx, work: Path) -> dict[str, Any]:
    """Analysis / BM25-indexing times of `idx`'s build, or (when the build did not record them, e.g. it
    was resumed after its BM25 stage) measured now by a BM25-only build of the same chunks."""
    from gaji.index.build import build_index

    st = dict(idx.manifest.stats)
    if st.get("analyze_s") and st.get("lexical_index_s"):
        return st
    tmp = work / f".lexstats-{idx.path.name}"
    src = [Path(s) for s in idx.manifest.sources]
    other = build_index(src, tmp, dense=False, progress=False, skip_bad=True)
    for k in ("analyze_s", "lexical_index_s", "lexical_docs", "analyzer_load_s"):
        st[k] = other.manifest.stats.get(k)
    st["lexical_measured_separately"] = True
    other.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return st


def _build_stats(idx, work: Path) -> dict[str, Any]:
    m = idx.manifest
    st = _lexical_stats(idx, work)
    n = int(st.get("lexical_docs") or m.counts.get("chunks") or 0)

    def rate(count: float, secs: float | None) -> float | None:
        return round(count / secs, 1) if secs else None

    return {
        "passages": m.counts.get("chunks"),
        "analysis_per_s": rate(n, st.get("analyze_s")),
        "bm25_index_per_s_excl_analysis": rate(n, st.get("lexical_index_s")),
        "embedding_per_s": rate(st.get("embedded_rows") or 0, st.get("embed_s")),
        "analyze_s": st.get("analyze_s"),
        "lexical_index_s": st.get("lexical_index_s"),
        "embed_s": st.get("embed_s"),
        "build_s": m.build_seconds,
        "built": m.created,
        "lexical_measured_separately": bool(st.get("lexical_measured_separately")),
        "analyzer": m.config.get("analyzer"),
        "embedding_model": m.config.get("embedding_model"),
        "dense_backend": m.config.get("dense_backend"),
    }


def _scale_test(n: int, work: Path, term_lists: list[list[str]], queries: list[list[str]], seed: int = 13) -> dict[str, Any]:
    """BM25 alone at `n` synthetic passages (analysis excluded): indexing speed and query latency."""
    from gaji.index.lexical import LexicalIndex

    rng = random.Random(seed)
    base = [t for t in term_lists if t]
    bodies: list[str] = []
    for i in range(n):
        terms = base[i % len(base)]
        if i >= len(base):  # a perturbed copy: drop ~15% of the terms, add a unique one
            terms = [t for t in terms if rng.random() > 0.15]
        bodies.append(" ".join(terms) + f" syn{i}")
    path = work / f"scale-{n}"
    if path.exists():
        shutil.rmtree(path)
    LexicalIndex.create(path)
    lex = LexicalIndex(path)
    t0 = time.perf_counter()
    w = lex.writer()
    for i, b in enumerate(bodies):
        w.add_text(i, b)
    w.close()
    index_s = time.perf_counter() - t0
    lex.reload()
    for q in queries[:50]:  # warm up (page cache, first-query costs)
        lex.search(q, 10)
    lat = []
    for q in queries:
        _, ms = _timed(lex.search, q, 10)
        lat.append(ms)
    out = {
        "passages": n,
        "index_s": round(index_s, 3),
        "index_per_s_excl_analysis": round(n / index_s, 1),
        "segments": lex._searcher.num_segments,
        "queries": len(queries),
        "search_ms": {"p50": round(percentile(lat, 50), 4), "p95": round(percentile(lat, 95), 4),
                      "mean": round(statistics.fmean(lat), 4)},
    }
    shutil.rmtree(path, ignore_errors=True)
    return out


def _analysis_latency(analyzer, query_texts: list[str]) -> dict[str, float]:
    lat = []
    for q in query_texts:
        _, ms = _timed(analyzer.analyze, q)
        lat.append(ms)
    return {"p50": round(percentile(lat, 50), 4), "p95": round(percentile(lat, 95), 4)}


# ---------------------------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------------------------


def run(
    sets: list[str] = list(DEFAULT_SETS),
    retrievers: list[str] = ["bm25", "dense", "hybrid"],
    data: str | None = None,
    work: str = ".gaji/bench",
    out: str = "benchmarks/retrieval",
    max_questions: int | None = None,
    scale: int = 200_000,
    tune: bool = False,
    hybrid_kw: dict | None = None,
    rebuild: bool = False,
    progress: bool = False,
    command: str | None = None,
    baseline: str | None = None,
) -> dict[str, Any]:
    from gaji.corpus.shared_data import dataset_paths
    from gaji.errors import ConfigError

    hybrid_kw = hybrid_kw or {}
    work_dir, out_dir = Path(work), Path(out)
    work_dir.mkdir(parents=True, exist_ok=True)
    need_dense = bool({"dense", "hybrid"} & set(retrievers))
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = list(os.getloadavg())  # the machine is shared: record how busy it was
    per_set: dict[str, Any] = {}
    qs_by_set: dict[str, list[dict]] = {}
    builds: dict[str, Any] = {}
    analyzed_passages: list[list[str]] = []
    query_texts: list[str] = []
    for s in sets:
        qpath, corpus = dataset_paths(s, data)
        if corpus is None:
            raise ConfigError(f"dataset {s!r} has no corpus to retrieve from")
        qs = _questions(s, qpath, max_questions)
        qs_by_set[s] = qs
        print(f"[{s}] {len(qs)} questions; index {work_dir / s}", file=sys.stderr)
        idx, cached = _get_index(s, corpus, work_dir, need_dense, rebuild, progress)
        builds[s] = {**_build_stats(idx, work_dir), "cached": cached}
        per_set[s] = _eval_set(idx, qs, retrievers, hybrid_kw, tune)
        query_texts.extend(q["query"] for q in qs)
        if scale:
            analyzer = idx.analyzer
            chunks = list(idx.iter_chunks())
            analyzed_passages.extend(
                analyzer.analyze_many([f"{c.title}\n{c.text}" for c in chunks], [c.lang for c in chunks])
            )
    tuning = _tune(per_set, qs_by_set) if tune else None

    scale_res = None
    if scale:
        from gaji.text.analyzers import default_analyzer

        analyzer = default_analyzer()
        rng = random.Random(7)
        sample = query_texts if len(query_texts) <= 2000 else rng.sample(query_texts, 2000)
        q_terms = [analyzer.analyze(q) for q in sample]
        scale_res = _scale_test(scale, work_dir, analyzed_passages, q_terms)
        scale_res["analysis_ms"] = _analysis_latency(analyzer, sample)

    # strip the tuning caches before saving
    for res in per_set.values():
        for k in ("_tune_lists", "_doc_of"):
            res.pop(k, None)
    targets = _targets(per_set, scale_res)
    results = {
        "benchmark": "retrieval",
        "date": started,
        "command": command or "gaji bench retrieval " + " ".join(
            [f"--sets {','.join(sets)}", f"--retrievers {','.join(retrievers)}", f"--scale {scale}"]
            + (["--tune"] if tune else []) + ([f"--max-questions {max_questions}"] if max_questions else [])
        ),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "loadavg_start": load_start, "loadavg_end": list(os.getloadavg())},
        "sets": per_set,
        "indexing": builds,
        "scale": scale_res,
        "tuning": tuning,
        "targets": targets,
    }
    if baseline:
        results["baseline"] = compare_with(results, _load_baseline(baseline), baseline)
    md = markdown(results)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = started.replace(":", "").replace("-", "")
    from gaji.io import atomic_write_json, atomic_write_text

    json_path = out_dir / f"retrieval-{stamp}.json"
    atomic_write_json(json_path, results)
    atomic_write_json(out_dir / "latest.json", results)
    atomic_write_text(out_dir / "latest.md", md + "\n")
    results["markdown"] = md
    results["json_path"] = str(json_path)
    return results


def _targets(per_set: dict[str, Any], scale_res: dict | None) -> dict[str, Any]:
    t: dict[str, Any] = {}
    hy = {}
    for s, res in per_set.items():
        if "hybrid" in res:
            singles = [res[n]["recall"][10] for n in ("bm25", "dense") if n in res]
            if singles:
                hy[s] = {"hybrid": res["hybrid"]["recall"][10], "best_single": max(singles),
                         "met": res["hybrid"]["recall"][10] >= max(singles)}
    if hy:
        t["hybrid_recall10_ge_best_single"] = hy
    if scale_res:
        t["bm25_p50_le_1ms_at_scale"] = {"p50_ms": scale_res["search_ms"]["p50"], "met": scale_res["search_ms"]["p50"] <= 1.0}
        t["bm25_index_ge_15k_per_s"] = {"per_s": scale_res["index_per_s_excl_analysis"],
                                        "met": scale_res["index_per_s_excl_analysis"] >= 15_000}
    return t


def _load_baseline(path: str) -> dict[str, Any]:
    from gaji.errors import ConfigError

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"--baseline {path}: not a readable results file ({e})") from None
    if not isinstance(data, dict) or "sets" not in data or "indexing" not in data:
        raise ConfigError(f"--baseline {path}: not a `gaji bench retrieval` results file (no 'sets'/'indexing')")
    return data


def compare_with(results: dict[str, Any], base: dict[str, Any], path: str) -> dict[str, Any]:
    """Recall@10 per set and retriever, and the embedding rate per set, now and in `base` (sets and retrievers
    in both only)."""
    rows = []
    for s, res in results["sets"].items():
        for name, r in res.items():
            b = (base["sets"].get(s) or {}).get(name)
            if b is None:
                continue
            now, then = r["recall"][10], b["recall"].get("10", b["recall"].get(10))
            rows.append({"set": s, "retriever": name, "r10": now, "r10_base": then,
                         "delta_points": None if then is None else round(100 * (now - then), 1)})
    embed = []
    for s, b in results["indexing"].items():
        old = base["indexing"].get(s)
        if old:
            embed.append({"set": s, "model": b.get("embedding_model"), "per_s": b.get("embedding_per_s"),
                          "model_base": old.get("embedding_model"), "per_s_base": old.get("embedding_per_s")})
    return {"path": path, "date": base.get("date"), "recall10": rows, "embedding": embed}


def _baseline_markdown(cmp: dict[str, Any]) -> list[str]:
    lines = ["", f"Beside the baseline `{cmp['path']}` ({cmp.get('date')}):", "",
             "| set | retriever | R@10 now | R@10 baseline | Δ points |", "|---|---|---:|---:|---:|"]
    for r in cmp["recall10"]:
        d = r["delta_points"]
        lines.append(f"| {r['set']} | {r['retriever']} | {_f(r['r10'])} | {_f(r['r10_base'])} | "
                     f"{'–' if d is None else f'{d:+.1f}'} |")
    lines += ["", "| set | embedder now | passages/s now | embedder baseline | passages/s baseline |",
              "|---|---|---:|---|---:|"]
    for e in cmp["embedding"]:
        lines.append(f"| {e['set']} | {e['model']} | {_f(e['per_s'], 1)} | {e['model_base']} | {_f(e['per_s_base'], 1)} |")
    return lines


def _f(x: Any, nd: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def markdown(results: dict[str, Any]) -> str:
    mach = results["machine"]
    load = "/".join(f"{x:.1f}" for x in (mach.get("loadavg_start") or [])[:1] + (mach.get("loadavg_end") or [])[:1])
    lines = [f"Date: {results['date']} · machine: {mach['cpus']} CPUs (load avg start/end {load}) · "
             f"command: `{results['command']}`", ""]
    lines += [
        "| set | retriever | questions | R@2 | R@5 | R@10 | R@15 | all@2 | all@5 | all@10 | all@15 | p50 ms | p95 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s, res in results["sets"].items():
        for name, r in res.items():
            rec, al, lat = r["recall"], r["all"], r["latency_ms"]
            lines.append(
                f"| {s} | {name} | {r['questions']} | " + " | ".join(_f(rec[k]) for k in KS) + " | "
                + " | ".join(_f(al[k]) for k in KS) + f" | {_f(lat['p50'], 2)} | {_f(lat['p95'], 2)} |"
            )
    lines += ["", "| set | passages | analysis passages/s | BM25 indexing passages/s (excl. analysis) | embedding passages/s | build s |",
              "|---|---:|---:|---:|---:|---:|"]
    separately = False
    for s, b in results["indexing"].items():
        star = "*" if b.get("lexical_measured_separately") else ""
        separately = separately or bool(star)
        lines.append(
            f"| {s} | {b['passages']} | {_f(b['analysis_per_s'], 0)}{star} | {_f(b['bm25_index_per_s_excl_analysis'], 0)}{star} | "
            f"{_f(b['embedding_per_s'], 1)} | {_f(b['build_s'], 1)} |"
        )
    if separately:
        lines.append("")
        lines.append("\\* measured by a separate BM25-only build (the cached index's build was resumed after its BM25 stage).")
    sc = results.get("scale")
    if sc:
        lines += ["", "| BM25 scale test | passages | indexing passages/s (excl. analysis) | segments | queries | search p50 ms | search p95 ms | + query analysis p50 ms | p95 ms |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
                  f"| synthetic | {sc['passages']} | {_f(sc['index_per_s_excl_analysis'], 0)} | {sc['segments']} | {sc['queries']} | "
                  f"{_f(sc['search_ms']['p50'], 3)} | {_f(sc['search_ms']['p95'], 3)} | {_f(sc['analysis_ms']['p50'], 3)} | {_f(sc['analysis_ms']['p95'], 3)} |"]
    if results.get("baseline"):
        lines += _baseline_markdown(results["baseline"])
    t = results.get("targets") or {}
    if t:
        lines += ["", "Targets:"]
        for s, v in (t.get("hybrid_recall10_ge_best_single") or {}).items():
            lines.append(f"- hybrid R@10 >= best single on {s}: {'met' if v['met'] else 'MISSED'} "
                         f"({_f(v['hybrid'])} vs {_f(v['best_single'])})")
        if "bm25_p50_le_1ms_at_scale" in t:
            v = t["bm25_p50_le_1ms_at_scale"]
            lines.append(f"- BM25 query p50 <= 1 ms at scale: {'met' if v['met'] else 'MISSED'} ({_f(v['p50_ms'])} ms, search only)")
            v = t["bm25_index_ge_15k_per_s"]
            lines.append(f"- BM25 indexing >= 15k passages/s excl. analysis: {'met' if v['met'] else 'MISSED'} ({_f(v['per_s'], 0)}/s)")
    tu = results.get("tuning")
    if tu and tu.get("best_by_min_margin"):
        lines += ["", "RRF tuning (recall@10 from cached top-100 lists):", "",
                  "| choice | rrf_k | weights bm25/dense | depth | " + " | ".join(results["sets"]) + " | mean | min margin vs best single |",
                  "|---|---:|---|---:|" + "---:|" * len(results["sets"]) + "---:|---:|"]
        from gaji.retrieve.fusion import DEFAULT_DEPTH, DEFAULT_RRF_K

        default = next((e for e in tu["grid"] if e["rrf_k"] == DEFAULT_RRF_K and e["depth"] == DEFAULT_DEPTH
                        and e["weights"] == {"bm25": 1.0, "dense": 1.0}), None)
        for label, e in (("default", default), ("best min margin", tu["best_by_min_margin"]), ("best mean", tu["best_by_mean"])):
            if e is None:
                continue
            lines.append(
                f"| {label} | {e['rrf_k']} | {e['weights']['bm25']}/{e['weights']['dense']} | {e['depth']} | "
                + " | ".join(_f(e["recall@10"].get(s)) for s in results["sets"]) + f" | {_f(e['mean'])} | {_f(e['min_margin'])} |"
            )
    return "\n".join(lines)
