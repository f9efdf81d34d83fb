"""`gaji bench llm-server | dense-store | ray-embed | ray-expand`: the scale-out benchmarks
(lab/gaji_lab/bench/llm_server.py, scale.py, ray_expand.py); each writes <out>/<stem>.json and .md and prints the table."""
from __future__ import annotations

import argparse

from gaji.cli.common import split_names

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("llm-server", help="LLM throughput under concurrent calls: embedded vs real servers")
    p.add_argument("--targets", default="embedded,llamacpp", help="comma-separated: embedded, llamacpp, url")
    p.add_argument("--llm", default="local:small", help="model of the embedded and llama.cpp targets")
    p.add_argument("--base-url", default=None, help="server of the `url` target (e.g. vLLM)")
    p.add_argument("--model", default="qwen2.5-0.5b", help="model name the `url` server serves")
    p.add_argument("--label", default="url", help="name of the `url` target in the results (e.g. vllm)")
    p.add_argument("--calls", type=int, default=16)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--slots", type=int, default=8, help="parallel slots of the embedded / llama.cpp targets")
    p.add_argument("--threads", type=int, default=2, help="compute threads of the embedded / llama.cpp targets")
    p.add_argument("--max-tokens", type=int, default=32)
    p.add_argument("--out", default="benchmarks/scale", metavar="DIR")
    p.add_argument("--tag", default="llm-server", help="result file name stem")
    p.set_defaults(func=_llm_server)

    p = bsub.add_parser("dense-store", help="embedded dense index vs Milvus vs Qdrant: recall@k and latency")
    p.add_argument("--index", default=".gaji/bench/hotpotqa", help="a built index with a dense part")
    p.add_argument("--questions", default="hotpotqa", help="shared dataset name or question file (gold passages)")
    p.add_argument("--stores", default="milvus,qdrant", help="comma-separated: milvus, qdrant")
    p.add_argument("--milvus-url", default=None, help="an already running Milvus (default: start one on 127.0.0.1)")
    p.add_argument("--milvus-index", default="FLAT", choices=["FLAT", "HNSW"])
    p.add_argument("--max-questions", type=int, default=None)
    p.add_argument("--work", default=None, help="scratch folder (default: a temp dir, removed)")
    p.add_argument("--out", default="benchmarks/scale")
    p.set_defaults(func=_dense_store)

    r = bsub.add_parser("ray-embed", help="embedding speed: one process vs sharded over Ray workers")
    r.add_argument("--corpus", default="hotpotqa", help="shared dataset name or corpus file")
    r.add_argument("--limit", type=int, default=128, help="passages embedded")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--ray", default="local", help="local | auto | ray://HOST:PORT")
    r.add_argument("--out", default="benchmarks/scale")
    r.set_defaults(func=_ray_embed)

    r = bsub.add_parser("ray-expand", help="chunk expansion speed: one process vs sharded over Ray workers")
    r.add_argument("--corpus", default="hotpotqa", help="shared dataset name or corpus file")
    r.add_argument("--limit", type=int, default=12, help="chunks expanded (the corpus' first)")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--llm", default="local:small")
    r.add_argument("--ray", default="local", help="local | auto | ray://HOST:PORT")
    r.add_argument("--out", default="benchmarks/scale")
    r.add_argument("--label", default="ray-expand")
    r.set_defaults(func=_ray_expand)


def _llm_server(args: argparse.Namespace) -> int:
    from gaji_lab.bench.llm_server import markdown, run
    from gaji_lab.bench.results import save_result

    res = run(targets=split_names(args.targets), llm=args.llm, base_url=args.base_url, model=args.model,
              label=args.label, calls=args.calls, concurrency=args.concurrency, slots=args.slots,
              threads=args.threads, max_tokens=args.max_tokens)
    save_result(args.out, args.tag, res, markdown(res))
    return 0


def _dense_store(args: argparse.Namespace) -> int:
    from gaji_lab.bench.results import save_result
    from gaji_lab.bench.scale import dense_markdown, run_dense_store

    res = run_dense_store(args.index, args.questions, split_names(args.stores), milvus_url=args.milvus_url,
                          milvus_index=args.milvus_index, max_questions=args.max_questions, work=args.work)
    save_result(args.out, "dense-store", res, dense_markdown(res))
    return 0


def _ray_embed(args: argparse.Namespace) -> int:
    from gaji_lab.bench.results import save_result
    from gaji_lab.bench.scale import ray_markdown, run_ray_embed

    res = run_ray_embed(args.corpus, args.limit, args.workers, args.ray)
    save_result(args.out, "ray-embed", res, ray_markdown(res))
    return 0


def _ray_expand(args: argparse.Namespace) -> int:
    from gaji_lab.bench.ray_expand import markdown, run_ray_expand
    from gaji_lab.bench.results import save_result

    res = run_ray_expand(args.corpus, args.limit, args.workers, args.llm, args.ray)
    save_result(args.out, args.label, res, markdown(res))
    return 0
