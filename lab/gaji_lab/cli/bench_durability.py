"""`gaji bench crash | concurrency`: the index under kill -9 and under concurrent writers, readers and a
server (lab/gaji_lab/bench/crash.py, lab/gaji_lab/bench/concurrency.py); each writes <out>/<stem>.json and .md and prints
the result. Exit 1 when an invariant failed or anything acknowledged was lost."""
from __future__ import annotations

import argparse
import sys
import tempfile

__all__ = ["register"]


def register(bsub) -> None:
    p = bsub.add_parser("crash", help="kill -9 index writers at random points; check the index after every kill")
    p.add_argument("--kills", type=int, default=200, help="writers to kill at work (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vector-share", type=float, default=0.25,
                   help="share of writes to the indexes with E5 vectors (exact, HNSW); 0: BM25 only")
    p.add_argument("--upload-share", type=float, default=0.1, help="share of writes that are server uploads")
    p.add_argument("--fresh-share", type=float, default=0.08, help="share of writes that build a new index")
    p.add_argument("--work", default=None, metavar="DIR", help="scratch folder (default: a temp dir, removed)")
    p.add_argument("--out", default="benchmarks/durability", metavar="DIR")
    p.set_defaults(func=_crash)

    c = bsub.add_parser("concurrency", help="writer processes, readers and a live server on one index: nothing lost")
    c.add_argument("--seconds", type=float, default=600.0, help="how long the writers write (default 600)")
    c.add_argument("--writers", type=int, default=3)
    c.add_argument("--readers", type=int, default=2, help="reader processes opening and verifying the index")
    c.add_argument("--http-readers", type=int, default=2, help="clients asking the server questions")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--work", default=None, metavar="DIR", help="scratch folder (default: a temp dir, removed)")
    c.add_argument("--out", default="benchmarks/durability", metavar="DIR")
    c.set_defaults(func=_concurrency)


def _crash(args: argparse.Namespace) -> int:
    from gaji_lab.bench.crash import markdown, run_crash
    from gaji_lab.bench.results import save_result

    def show(t, kills: int) -> None:
        mark = "killed" if t.killed else "finished"
        print(f"[{kills}/{args.kills}] {t.op} on {t.kind}: {mark} after {t.delay_s:.3f} s -> {t.state or '?'}"
              f" ({t.left})" + (f"  PROBLEM: {'; '.join(t.problems)}" if t.problems else ""), file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="gaji-crash-") as tmp:
        res = run_crash(args.work or tmp, kills=args.kills, seed=args.seed, vector_share=args.vector_share,
                        upload_share=args.upload_share, fresh_share=args.fresh_share, progress=show)
    save_result(args.out, "crash", res, markdown(res))
    return 0 if res["survived"] == res["kills"] and not res["failed_checks"] else 1


def _concurrency(args: argparse.Namespace) -> int:
    from gaji_lab.bench.concurrency import markdown, passed, run_concurrency
    from gaji_lab.bench.results import save_result

    with tempfile.TemporaryDirectory(prefix="gaji-concurrency-") as tmp:
        res = run_concurrency(args.work or tmp, seconds=args.seconds, writers=args.writers, readers=args.readers,
                              http_readers=args.http_readers, seed=args.seed)
    save_result(args.out, "concurrency", res, markdown(res))
    return 0 if passed(res) else 1
