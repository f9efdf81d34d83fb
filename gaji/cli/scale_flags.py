"""Scale-out flags for `gaji index build` and the `gaji index attach-store` action.

    gaji index build hotpotqa --out runs/hp --dense-store milvus://127.0.0.1:19530
    gaji index build hotpotqa --out runs/hp --dense-store qdrant+local:runs/qdrant
    gaji index build hotpotqa --out runs/hp --ray local --embed-workers 2      # embedding sharded over Ray
    gaji index build notes/ --out runs/n --expand --llm local:small --ray local --expand-workers 2
    gaji expand run koblex --out runs/kb.expansions.jsonl --llm local:small --ray local --workers 2
    gaji index attach-store .gaji/bench/hotpotqa --dense-store milvus://127.0.0.1:19530 --out runs/hp-milvus
"""
from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_build_flags", "add_embed_workers_flag", "add_expand_ray_flags", "build_kwargs", "ray_expander", "register_actions"]


def add_build_flags(b: argparse.ArgumentParser) -> None:
    b.add_argument("--dense-store", default=None, metavar="URL",
                   help="also put the vectors in a vector database and search there: milvus://HOST:PORT, "
                        "qdrant+local:DIR or qdrant://HOST:PORT (optional ?collection=NAME)")
    b.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="shard the embedding over a Ray cluster: 'local' (start one here), 'auto' "
                        "(the cluster `ray start` made) or ray://HOST:PORT")
    add_embed_workers_flag(b)
    b.add_argument("--expand-workers", type=int, default=2, metavar="N",
                   help="chunk-expansion workers (Ray actors, one LLM each, 1 thread unless --threads) with "
                        "--ray --expand (default 2)")


def add_embed_workers_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--embed-workers", type=int, default=None, metavar="N",
                   help="embedding workers, one E5 model each: Ray actors with --ray (default 2), else worker "
                        "processes here (default 1: this process, which measured faster; see gaji bench embed-workers)")


def add_expand_ray_flags(r: argparse.ArgumentParser) -> None:
    """`gaji expand run --ray ADDRESS --workers N`: the chunks sharded over Ray actors, one LLM each."""
    r.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="shard the chunks over a Ray cluster: 'local' (start one here), 'auto' (the cluster "
                        "`ray start` made) or ray://HOST:PORT; each worker builds its own --llm")
    r.add_argument("--workers", dest="expand_workers", type=int, default=2, metavar="N",
                   help="Ray workers with --ray (default 2; each 1 thread unless --threads)")
    r.add_argument("--shard-size", type=int, default=None, metavar="N",
                   help="chunks per Ray task (default: the worker's parallel slots, fewer so every worker gets "
                        "one); a crash loses at most "
                        "one shard per worker")


def ray_expander(args: argparse.Namespace, s: Any):
    """A RayExpander for `--expand`/`expand run` with --ray: every worker builds the LLM of the settings `s`."""
    import functools

    from gaji.distributed.cluster import check_address
    from gaji.distributed.expand import RayExpander
    from gaji.llm.factory import make_llm

    check_address(args.ray)
    threads = int(getattr(args, "threads", None) or 1)  # per worker; not "all cores" in every worker
    build = functools.partial(make_llm, s.llm, base_url=s.base_url, parallel=s.parallel, ctx_size=s.ctx_size,
                              threads=threads, timeout_s=s.timeout_s)
    return RayExpander(build, workers=getattr(args, "expand_workers", 2), address=args.ray,
                       threads_per_worker=threads, shard_size=getattr(args, "shard_size", None),
                       lang=getattr(args, "expand_lang", "auto"))


def build_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Extra build_index keyword arguments from the flags above."""
    kw: dict[str, Any] = {}
    if getattr(args, "dense_store", None):
        kw["dense_store"] = args.dense_store
    if getattr(args, "ray", None):
        from gaji.distributed.cluster import check_address
        from gaji.distributed.embed import RayEmbedder

        check_address(args.ray)  # a cluster that is not there fails now, in seconds

        kw["embedder"] = RayEmbedder(workers=args.embed_workers or 2, address=args.ray)
    elif getattr(args, "embed_workers", None) is not None:
        kw["embed_workers"] = args.embed_workers
    return kw


def register_actions(isub) -> None:
    a = isub.add_parser("attach-store", help="load an index's vectors into a vector database (no re-embedding)")
    a.add_argument("index", metavar="DIR")
    a.add_argument("--dense-store", required=True, metavar="URL", help="milvus://HOST:PORT, qdrant+local:DIR, ...")
    a.add_argument("--out", default=None, metavar="DIR",
                   help="copy the index here and change the copy (default: change DIR itself)")
    a.set_defaults(func=_attach)


def _attach(args: argparse.Namespace) -> int:
    from gaji.index.attach import attach_store

    loc = attach_store(args.index, args.dense_store, out=args.out)
    print(f"{args.out or args.index}: dense vectors now searched in {loc}")
    return 0
