"""Scale-out flags for `gaji index build` (issue 10) and the `gaji index attach-store` action.

    gaji index build hotpotqa --out runs/hp --dense-store milvus://127.0.0.1:19530
    gaji index build hotpotqa --out runs/hp --dense-store qdrant+local:runs/qdrant
    gaji index build hotpotqa --out runs/hp --ray local --embed-workers 2      # embedding sharded over Ray
    gaji index attach-store .gaji/bench/hotpotqa --dense-store milvus://127.0.0.1:19530 --out runs/hp-milvus
"""
from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_build_flags", "build_kwargs", "register_actions"]


def add_build_flags(b: argparse.ArgumentParser) -> None:
    b.add_argument("--dense-store", default=None, metavar="URL",
                   help="also put the vectors in a vector database and search there: milvus://HOST:PORT, "
                        "qdrant+local:DIR or qdrant://HOST:PORT (optional ?collection=NAME)")
    b.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="shard the embedding over a Ray cluster: 'local' (start one here), 'auto' "
                        "(the cluster `ray start` made) or ray://HOST:PORT")
    b.add_argument("--embed-workers", type=int, default=2, metavar="N",
                   help="embedding workers (Ray actors, one E5 model each) with --ray (default 2)")


def build_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Extra build_index keyword arguments from the flags above."""
    kw: dict[str, Any] = {}
    if getattr(args, "dense_store", None):
        kw["dense_store"] = args.dense_store
    if getattr(args, "ray", None):
        from gaji.distributed.embed import RayEmbedder

        kw["embedder"] = RayEmbedder(workers=args.embed_workers, address=args.ray)
    return kw


def register_actions(isub) -> None:
    a = isub.add_parser("attach-store", help="load an index's vectors into a vector database (no re-embedding)")
    a.add_argument("index", metavar="DIR")
    a.add_argument("--dense-store", required=True, metavar="URL", help="milvus://HOST:PORT, qdrant+local:DIR, ...")
    a.add_argument("--out", default=None, metavar="DIR",
                   help="copy the index here and change the copy (default: change DIR itself)")
    a.set_defaults(func=_attach)


def _attach(args: argparse.Namespace) -> int:
    from gaji.stores.sync import attach_store

    loc = attach_store(args.index, args.dense_store, out=args.out)
    print(f"{args.out or args.index}: dense vectors now searched in {loc}")
    return 0
