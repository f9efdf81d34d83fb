"""`gaji eval`: evaluate a method on a question set; `gaji eval compare DIR…`: compare runs.

    gaji eval --data hotpotqa --method oner --limit 50 --llm local
    gaji eval --data path/to/hotpot_dev_distractor_v1.json --method ircot -o max_steps=4 --out runs/ircot
    gaji eval --data koblex --method toq --toq-eval --judge --judge-llm openai:gpt-4o-mini
    gaji eval compare runs/eval/hotpotqa-oner-local runs/eval/hotpotqa-ircot-local
    gaji eval check-set komultihop
"""
from __future__ import annotations

import argparse
import sys

from gaji.cli.common import add_settings_flags, parse_kv, settings_from_args
from gaji.cli.flagtypes import count
from gaji.coerce import MAX_K
from gaji.errors import ConfigError


def _ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--ks must be comma-separated integers, not {text!r}") from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError("--ks needs positive integers")
    return ks


def question_ids(text: str) -> tuple[str, ...]:
    """`--ids`: a comma list, or a file with one id per line (# comments); the lab's commands take it too."""
    from pathlib import Path

    path = Path(text)
    if path.is_file():
        raw = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
        ids = tuple(x for x in raw if x and not x.startswith("#"))
    elif "," not in text and ("/" in text or "\\" in text or path.suffix in (".txt", ".ids", ".lst")):
        # a path that is no file: said as such, not as one unknown question id named like a path
        raise argparse.ArgumentTypeError(f"--ids {text!r}: no such file (a comma list, or a file with one id per line)")
    else:
        ids = tuple(x.strip() for x in text.split(",") if x.strip())
    if not ids:
        raise argparse.ArgumentTypeError(f"--ids {text!r}: no question ids (a comma list or a file, one id per line)")
    return ids


def register(sub) -> None:
    p = sub.add_parser(
        "eval",
        usage="gaji eval --data NAME_OR_PATH --method M [options]\n       gaji eval compare DIR [DIR ...] [--out DIR]",
        help="evaluate a method on a question set (EM/F1, recall@k, ATC, …); `gaji eval compare DIR…`",
        description="Run a method over a question set, score every answer, write results as it goes "
        "(resumable), and print a summary. `gaji eval compare DIR…` puts runs side by side.",
        epilog="Known datasets: hotpotqa, 2wikimultihopqa, musique, bamboogle, asqa, odsum_story, koblex, korquad, "
        "komultihop (parts komultihop-dev, komultihop-report); "
        "or a path to gaji JSONL, KorQuAD/SQuAD JSON, HotpotQA/2Wiki JSON or MuSiQue JSONL.",
    )
    p.add_argument("--data", help="dataset name or path to a question file")
    p.add_argument("--method", help="method name (see `gaji methods`)")
    p.add_argument("-o", "--option", action="append", dest="options", metavar="KEY=VALUE", help="method option (repeatable)")
    p.add_argument("--limit", type=count(1), help="first N questions only (N >= 1)")
    p.add_argument("--ids", type=question_ids, help="only these question ids, asked in this order: a comma list or "
                   "a file with one id per line (after --limit); ids that start with '-' (ASQA's) need --ids=LIST or a file")
    p.add_argument("--out", help="run directory (default runs/eval/<dataset>-<method>-<llm>); the same --out resumes")
    p.add_argument("--concurrency", type=count(1, 256),
                   help="questions in flight at once, 1 to 256 (default: the LLM's parallel slots)")
    p.add_argument("--ks", type=_ks, default=(2, 5, 10), help="k values for recall@k / Top@k (default 2,5,10)")
    p.add_argument("--gold-match", choices=["auto", "id", "title"], default="auto",
                   help="match gold passages by document id, by title, or auto (id when known, else title)")
    p.add_argument("--toq-eval", action="store_true", help="score answers with the ToQ query evaluator (S.Coh, Ans., O.Ass, R.Val)")
    p.add_argument("--judge", action="store_true", help="LLM-judge pass/fail of the top retrieved chunks (paper 001 A.4)")
    p.add_argument("--judge-llm", metavar="SPEC", help="model for --judge/--toq-eval (default: the generator; biased)")
    p.add_argument("--judge-k", type=count(1, MAX_K), default=3, help="chunks judged per question (default 3)")
    p.add_argument("--retry-errors", action="store_true", help="on resume, redo questions that crashed")
    p.add_argument("--overwrite", action="store_true", help="start the run directory again")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--ray", metavar="ADDRESS", help="shard the questions over Ray: local | auto | ray://HOST:PORT")
    p.add_argument("--workers", type=count(1, 1024), default=2, help="shards (Ray tasks) with --ray (default 2)")
    p.add_argument("--emit-corpus", metavar="PATH",
                   help="write the dataset's paragraphs (official HotpotQA/2Wiki/MuSiQue files carry them) as a "
                   "corpus JSONL for `gaji index build`, and exit")
    add_settings_flags(p)
    p.set_defaults(func=run_cmd, eval_action=None)

    esub = p.add_subparsers(dest="eval_action", metavar="ACTION")
    c = esub.add_parser("compare", help="compare eval runs: markdown table + plots (metric per method, cost vs quality)")
    c.add_argument("dirs", nargs="+", metavar="DIR", help="run directories")
    c.add_argument("--out", dest="plot_dir", help="where compare.md and the PNGs go (default <runs parent>/compare)")
    c.add_argument("--metrics", help="comma-separated metric names to show (default: all)")
    c.add_argument("--no-plots", action="store_true", help="table only")
    c.add_argument("--common", action="store_true",
                   help="only the questions every run finished (partial runs compared on the same questions)")
    c.set_defaults(func=compare_cmd)

    sc = esub.add_parser("score", help="score a run's answers afterwards: ToQ evaluator S.Coh/Ans./O.Ass/R.Val (Table 2)")
    sc.add_argument("dirs", nargs="+", metavar="DIR", help="run directories (gaji eval / gaji bench run --out)")
    sc.add_argument("--toq-eval", action="store_true", required=True,
                    help="add the ToQ query evaluator's scores (the only post-hoc score so far)")
    sc.add_argument("--limit", type=count(1), help="score at most N more questions per run (resume later)")
    sc.add_argument("--concurrency", type=count(1, 256),
                    help="questions scored at once (default: the judge's parallel slots)")
    sc.add_argument("--passages", type=count(0, MAX_K), default=5,
                    help="retrieved passages shown to the judge (default 5, as `gaji eval --toq-eval`; 0 = question "
                    "and answer only, as the evaluator sees them inside a ToQ tree)")
    sc.add_argument("--quiet", action="store_true", help="no progress lines")
    add_settings_flags(sc, index=False)
    sc.set_defaults(func=score_cmd)

    ck = esub.add_parser("check-set", help="check a question set of our own: schema, ids, paragraphs, spans, balance")
    ck.add_argument("name", choices=["komultihop"], help="the set (komultihop: gaji/data/komultihop/*.jsonl)")
    ck.add_argument("files", nargs="*", metavar="FILE", help="only these question files (no balance rules)")
    ck.add_argument("--korquad", metavar="PATH", help="the KorQuAD 1.0 dev JSON (default: the shared data folder's)")
    ck.set_defaults(func=check_set_cmd)


def run_cmd(args: argparse.Namespace) -> int:
    from gaji.eval.runner import EvalConfig, EvalRun

    if not args.data:
        from gaji.eval.sets import known_names

        raise ConfigError(f"gaji eval needs --data NAME_OR_PATH (known: {', '.join(known_names())})")
    if args.emit_corpus:
        from gaji.eval.datasets import write_corpus
        from gaji.eval.sets import load_dataset

        n = write_corpus(load_dataset(args.data), args.emit_corpus)
        print(f"wrote {n} passages to {args.emit_corpus}", file=sys.stderr)
        return 0
    s = settings_from_args(args)
    if s.sources.get("cache") == "default":
        s.cache = True  # the response cache is on by default for eval (--no-cache)
    if args.judge_k < 1:
        raise ConfigError("--judge-k must be at least 1")
    cfg = EvalConfig(
        data=args.data,
        method=s.method,
        options=parse_kv(args.options),
        out=args.out,
        limit=args.limit,
        ids=args.ids,
        concurrency=args.concurrency,
        ks=tuple(args.ks),
        gold_match=args.gold_match,
        toq_eval=args.toq_eval,
        judge=args.judge or bool(args.judge_llm and not args.toq_eval),
        judge_llm=args.judge_llm,
        judge_k=args.judge_k,
        retry_errors=args.retry_errors,
        overwrite=args.overwrite,
        progress=not args.quiet,
    )
    if getattr(args, "ray", None):  # the same run, sharded over Ray (gaji/distributed/eval.py)
        from gaji.distributed.eval import ShardedEval

        summary = ShardedEval(cfg, s, workers=args.workers, address=args.ray).run()
    else:
        run = EvalRun(cfg, s)
        try:
            summary = run.run()
        finally:
            run.close()
    if summary["questions"] and summary["errors"] == summary["questions"]:
        print("error: every question crashed; see results.jsonl", file=sys.stderr)
        return 1
    return 0


def compare_cmd(args: argparse.Namespace) -> int:
    from gaji.eval.compare import compare

    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None
    md, files = compare(args.dirs, args.plot_dir, metrics, plots=not args.no_plots, common=args.common)
    print(md)
    for f in files:
        print(f"wrote {f}", file=sys.stderr)
    return 0


def score_cmd(args: argparse.Namespace) -> int:
    """The same judge (the --llm model, default `local`) over every run given: comparable Table 2 rows."""
    from gaji.eval.rescore import ToQRescore
    from gaji.eval.summary import format_value
    from gaji.llm.factory import llm_from_settings

    s = settings_from_args(args)
    for d in args.dirs:  # fail on a wrong directory before loading a model
        ToQRescore(d, judge=None, judge_llm=s.llm)
    judge = llm_from_settings(s, cache=False)
    failed = 0
    try:
        for d in args.dirs:
            def show(done: int, total: int, d: str = d) -> None:
                if not args.quiet:
                    print(f"{d}: {done}/{total} scored", file=sys.stderr, flush=True)

            r = ToQRescore(d, judge, s.llm, concurrency=args.concurrency, retries=s.retries, progress=show,
                           passages=args.passages).run(args.limit)
            m = r.summary.get("metrics", {})
            cells = ", ".join(f"{k} {format_value(k, m[k]['mean'])} (n={m[k]['n']})" for k in
                              ("toq_scoh", "toq_ans", "toq_oass", "toq_rval") if k in m)
            print(f"{d}: scored {r.scored}, already scored {r.skipped}, failed {len(r.failed)}; {cells}")
            for qid, err in r.failed[:5]:
                print(f"  {qid}: {err}", file=sys.stderr)
            failed += len(r.failed)
    finally:
        judge.close()
    return 1 if failed else 0


def check_set_cmd(args: argparse.Namespace) -> int:
    from gaji.eval.komultihop import run_check

    return run_check(args.files, args.korquad)
