"""`gaji expand label | train-tagger | train | subset | bench`: teacher keyword labels, the small trained models
and the Table 7 benchmark (gaji_lab/expand/training.py, bench.py; the labeller is gaji/expand/labels.py)."""
from __future__ import annotations

import argparse
import json
import sys

from gaji.cli.common import split_names

__all__ = ["register"]


def register(esub) -> None:
    lb = esub.add_parser("label", help="teacher BIO keyword labels from the LLM (append-only JSONL, resumable)")
    lb.add_argument("--expansions", metavar="FILE", help="use the candidate questions of these expansions as queries")
    lb.add_argument("--questions", metavar="NAME_OR_FILE", help="use a question set (shared name or JSONL)")
    lb.add_argument("--out", required=True, metavar="FILE")
    lb.add_argument("--max", type=int, default=None, metavar="N", help="at most N queries (drawn with --seed)")
    lb.add_argument("--seed", type=int, default=0)
    lb.add_argument("--llm", default=None)
    lb.add_argument("--parallel", type=int, default=None)
    lb.add_argument("--threads", type=int, default=None)
    lb.add_argument("--time-limit", type=float, default=None, metavar="S")
    lb.set_defaults(func=_label)

    tt = esub.add_parser("train-tagger", help="train the BIO keyword tagger (e5 encoder + token head) on teacher labels")
    tt.add_argument("labels", nargs="+", metavar="FILE", help="JSONL from `gaji expand label`")
    tt.add_argument("--out", required=True, metavar="DIR")
    tt.add_argument("--layers", type=int, default=4, help="encoder layers kept (of 12)")
    tt.add_argument("--epochs", type=int, default=4)
    tt.add_argument("--batch-size", type=int, default=16)
    tt.add_argument("--lr", type=float, default=5e-5)
    tt.add_argument("--head-lr", type=float, default=1e-3)
    tt.add_argument("--dev-fraction", type=float, default=0.15)
    tt.add_argument("--seed", type=int, default=0)
    tt.add_argument("--threads", type=int, default=1, help="torch threads (default 1: the machine is shared)")
    tt.set_defaults(func=_train_tagger)

    mt = esub.add_parser("train", help="train the multi-task model (shared e5 encoder + title/question decoders + "
                         "BIO head) on teacher data and compare it with the LLM")
    mt.add_argument("corpus", nargs="+", help="the corpus the expansions were made from")
    mt.add_argument("--expansions", required=True, metavar="FILE")
    mt.add_argument("--labels", nargs="*", default=[], metavar="FILE", help="keyword teacher labels (gaji expand label)")
    mt.add_argument("--out", required=True, metavar="DIR")
    mt.add_argument("--layers", type=int, default=4)
    mt.add_argument("--dec-layers", type=int, default=2)
    mt.add_argument("--epochs", type=int, default=3)
    mt.add_argument("--batch-size", type=int, default=8)
    mt.add_argument("--lr", type=float, default=3e-4)
    mt.add_argument("--enc-lr", type=float, default=3e-5)
    mt.add_argument("--holdout", type=float, default=0.15, help="fraction of chunks/queries held out for the comparison")
    mt.add_argument("--seed", type=int, default=0)
    mt.add_argument("--threads", type=int, default=1)
    mt.add_argument("--predictions-out", metavar="FILE",
                    help="write the held-out chunks' generated titles/questions as expansion records (JSONL)")
    mt.set_defaults(func=_train_multitask)

    sb = esub.add_parser("subset", help="a smaller corpus: all gold passages + N random distractors")
    sb.add_argument("dataset")
    sb.add_argument("--distractors", type=int, required=True)
    sb.add_argument("--seed", type=int, default=0)
    sb.add_argument("--max-questions", type=int, default=None)
    sb.add_argument("--context", action="store_true",
                    help="also keep each question's official distractor paragraphs (HotpotQA/2Wiki context_ids)")
    sb.add_argument("--out", required=True, metavar="DIR")
    sb.set_defaults(func=_subset)

    bb = esub.add_parser("bench", help="Top@1/3/5/10 of gold passages for the Table 7 cases (dense, hybrid, ...)")
    bb.add_argument("corpus", help="shared dataset name or corpus file")
    bb.add_argument("--questions", default=None, help="questions (default: the corpus's dataset name)")
    bb.add_argument("--expansions", default=None, metavar="FILE")
    bb.add_argument("--cases", default="plain,1-7", help="e.g. plain,1-7 or 1,6")
    bb.add_argument("--retrievers", default="dense,hybrid")
    bb.add_argument("--tagger", default=None, metavar="DIR", help="keyword tagger for bm25+kw / hybrid+kw")
    bb.add_argument("--work", default=".gaji/expand/bench", metavar="DIR")
    bb.add_argument("--out", default="benchmarks/expand", metavar="DIR")
    bb.add_argument("--label", default="")
    bb.add_argument("--max-questions", type=int, default=None)
    bb.add_argument("--rebuild", action="store_true")
    bb.add_argument("--only-expanded", action="store_true",
                    help="cut the corpus to its expanded passages and keep the questions whose gold are all there")
    bb.add_argument("--progress", action=argparse.BooleanOptionalAction, default=False)
    bb.set_defaults(func=_bench)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _label(args: argparse.Namespace) -> int:
    from gaji.expand.labels import label_teacher

    from gaji_lab.expand.bench import teacher_queries

    queries = teacher_queries(args.expansions, args.questions, args.max, args.seed)
    res = label_teacher(queries, args.out, llm=args.llm, parallel=args.parallel, threads=args.threads,
                        time_limit=args.time_limit)
    print(json.dumps(res, ensure_ascii=False))
    return 0


def _train_tagger(args: argparse.Namespace) -> int:
    from gaji_lab.expand.training import TaggerTraining, train_tagger_model

    opts = TaggerTraining(layers=args.layers, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                          head_lr=args.head_lr, dev_fraction=args.dev_fraction, seed=args.seed, threads=args.threads)
    print(json.dumps(train_tagger_model(args.labels, args.out, opts, log=_stderr), ensure_ascii=False))
    return 0


def _train_multitask(args: argparse.Namespace) -> int:
    from gaji_lab.expand.training import MultitaskTraining, train_multitask_model

    opts = MultitaskTraining(layers=args.layers, dec_layers=args.dec_layers, epochs=args.epochs,
                             batch_size=args.batch_size, lr=args.lr, enc_lr=args.enc_lr, holdout=args.holdout,
                             seed=args.seed, threads=args.threads)
    report = train_multitask_model(args.corpus, args.expansions, args.labels, args.out, opts,
                                   predictions_out=args.predictions_out, log=_stderr)
    print(json.dumps({k: v for k, v in report.items() if k != "examples"}, ensure_ascii=False))
    return 0


def _subset(args: argparse.Namespace) -> int:
    from gaji_lab.expand.bench import subset_corpus

    print(json.dumps(subset_corpus(args.dataset, args.out, args.distractors, args.seed, args.max_questions,
                                    context=args.context)))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from gaji_lab.expand.bench import parse_cases, run_bench

    res = run_bench(
        corpus=args.corpus,
        questions=args.questions or args.corpus,
        expansions=args.expansions,
        cases=parse_cases(args.cases),
        retrievers=split_names(args.retrievers),
        work=args.work,
        out=args.out,
        max_questions=args.max_questions,
        rebuild=args.rebuild,
        progress=args.progress and sys.stderr.isatty(),
        label=args.label,
        tagger=args.tagger,
        only_expanded=args.only_expanded,
    )
    print(res["markdown"])
    return 0
