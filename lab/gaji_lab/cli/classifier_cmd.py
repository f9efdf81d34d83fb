"""`gaji classifier make-data | train | table4`: the chain sufficiency classifier of paper 003;
`gaji classifier train-router`: ToQ's decomposer shape router (lab/gaji_lab/learn/shape_router.py).
`gaji classifier train-auto`: the adaptive method's router, from recorded results (lab/gaji_lab/learn/auto_router.py).

    gaji classifier make-data --data hotpotqa,2wikimultihopqa,musique,bamboogle --report 50 \\
        --out runs/classifier/data --llm local:small --n 2 --max-minutes 20     (resumable)
    gaji classifier train --data runs/classifier/data --out runs/classifier/model

make-data runs labelled chains on the *train* part of each dataset only: the first --report
questions of each file are the report part (what `gaji eval --limit <report>` measures) and are
never used; split.json in the output records both id lists. Datasets without a corpus (Bamboogle)
get closed-book sub-answers.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gaji.cli.common import add_settings_flags, settings_from_args
from gaji.errors import ConfigError

DEFAULT_SETS = "hotpotqa,2wikimultihopqa,musique,bamboogle"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("classifier", help="trained classifiers: chain sufficiency (paper 003: make-data, train, "
                       "table4) and ToQ's shape router (train-router)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    csub = p.add_subparsers(dest="classifier_action", metavar="ACTION")

    m = csub.add_parser("make-data", help="synthesise labelled chains on the train part of QA sets (resumable)")
    m.add_argument("--data", default=DEFAULT_SETS, help=f"comma-separated dataset names or paths (default {DEFAULT_SETS})")
    m.add_argument("--report", type=int, default=50, help="first N questions of each set: report part, never used (default 50)")
    m.add_argument("--out", default="runs/classifier/data", help="output directory (the same --out resumes)")
    m.add_argument("--n", type=int, default=2, help="chains sampled per question; the best log P(A|Q,C) is kept (default 2)")
    m.add_argument("--max-length", type=int, default=6, help="L, maximum chain length (default 6)")
    m.add_argument("--temperature", type=float, default=0.7, help="sub-question sampling for chains 2..n")
    m.add_argument("--f1-threshold", type=float, default=0.8, help="[Sufficient] when EM=1 or F1 >= this (default 0.8)")
    m.add_argument("--len1-share", type=float, default=0.408, help="max share of length-1 chains kept (default 0.408)")
    m.add_argument("--passage-chars", type=int, default=400, help="passage length in prompts (default 400)")
    m.add_argument("--limit", type=int, help="at most N train questions per dataset")
    m.add_argument("--max-minutes", type=float, help="stop cleanly after this long (run again to continue)")
    m.add_argument("--index-root", default=".gaji/indexes",
                   help="indexes by dataset name: ROOT/<name> (default .gaji/indexes, where `gaji eval` and "
                        "`gaji bench run` index each dataset once)")
    m.add_argument("--seed", type=int, default=0)
    add_settings_flags(m, index=False)
    m.add_argument("--retriever", default="bm25", help="retriever over each index (default bm25, as the paper)")
    m.add_argument("-k", "--k", type=int, default=5, help="passages per retrieval (default 5)")
    m.set_defaults(func=cmd_make_data)

    t = csub.add_parser("train", help="train the classifier (e5 encoder + head) and a logistic-regression baseline")
    t.add_argument("--data", required=True, help="a make-data output directory (instances.jsonl)")
    t.add_argument("--out", default="runs/classifier/model", help="model directory (weights + config + report)")
    t.add_argument("--epochs", type=int, default=3)
    t.add_argument("--lr", type=float, default=5e-5)
    t.add_argument("--batch-size", type=int, default=8)
    t.add_argument("--max-tokens", type=int, default=256, help="input length cap (tokens)")
    t.add_argument("--heldout", type=float, default=0.2, help="share of training *questions* held out for accuracy")
    t.add_argument("--freeze", type=int, default=0, help="freeze the embeddings and the first N encoder layers")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: the machine is shared)")
    t.add_argument("--class-weight", choices=("balanced", "none"), default="balanced",
                   help="balanced (default): weigh the rare class up in the loss; none: plain cross-entropy")
    t.set_defaults(func=cmd_train)
    r = csub.add_parser("table4", help="paper 003 Table 4 (EM, F1, ATC, Δ) from `gaji eval` runs of the chain method")
    r.add_argument("--run", action="append", required=True, metavar="DATASET:LABEL=DIR",
                   help="an eval run directory, e.g. hotpotqa:L6=runs/eval/chain/hotpotqa-L6 (repeatable; order = rows)")
    r.add_argument("--base", default="L6", help="label Δ is measured against (default L6)")
    r.add_argument("--compare", default="", help="label whose Δ is shown (default: the last label of each dataset)")
    r.add_argument("--out", default="benchmarks/chain", help="writes table4.md and table4.json here")
    r.set_defaults(func=cmd_table4)
    s = csub.add_parser("train-router", help="train ToQ's decomposer shape router (chain vs compare) on the datasets' "
                        "question types; writes the file the routed decomposer loads")
    s.add_argument("--out", help="router file (default: the one shipped in the package, "
                   "gaji/methods/toq/data/shape_router.json)")
    s.add_argument("--l2", type=float, default=None,
                   help="L2 strength (default: chosen by 5-fold cross-validation on the training rows)")
    s.add_argument("--iters", type=int, default=3000)
    s.add_argument("--view", choices=("skeleton", "question"), default="skeleton",
                   help="what is embedded: the question with its names masked (default) or the question as asked")
    s.add_argument("--written", default="shipped", metavar="FILE|shipped|none",
                   help="written training questions added to the datasets' ({\"question\", \"shape\"} per line; "
                        "default: the shipped Korean set lab/gaji_lab/learn/data/shape_router_ko.jsonl; none: datasets only)")
    s.set_defaults(func=cmd_train_router)
    a = csub.add_parser("train-auto", help="train the adaptive method's router (auto) on the recorded per-question "
                        "results, with a cross-validated replay report")
    a.add_argument("--root", default=".", help="repository root holding benchmarks/ (default: .)")
    a.add_argument("--out", help="router file (default: the shipped gaji/methods/auto/data/auto_router.json)")
    a.add_argument("--report", default="benchmarks/auto", help="writes README.md and report.json here")
    a.add_argument("--epsilon", type=float, default=None, help="label: cheapest route within this F1 of the best")
    a.set_defaults(func=cmd_train_auto)
    c = csub.add_parser("train-cascade", help="train auto's safety model (does the one-retrieval answer stand?) on "
                        "recorded first-rung runs, with a cross-validated replay report")
    c.add_argument("--set", action="append", required=True, metavar="NAME=RUN[,tree=RUN][,chain=RUN]",
                   help="a dev set: its first-rung run (gaji eval --method oner -o logprobs=true ...) and the "
                        "recorded runs of the routes it can escalate to, on the same questions (repeatable)")
    c.add_argument("--escalate", default="compare=tree,intersection=tree,other=chain", metavar="SHAPE=ROUTE,...",
                   help="the route each question shape escalates to (compare, intersection, other -> steps | chain | "
                        "tree); LANG:SHAPE=ROUTE for one language's own, e.g. ko:other=steps")
    c.add_argument("--start", action="append", default=[], metavar="LANG:SHAPE=ROUTE",
                   help="a language's question shape that skips the one retrieval and starts on ROUTE at effort "
                        "medium and high, e.g. en:compare=steps (repeatable)")
    c.add_argument("--budget", type=float, default=3000.0, help="effort medium: best F1 within this many mean "
                   "tokens per question (default 3000)")
    c.add_argument("--low-share", type=float, default=0.1, help="effort low: best F1 escalating at most this share")
    c.add_argument("--l2", type=float, default=0.3, help="L2 penalty on the standardised weights (default 0.3)")
    c.add_argument("--folds", type=int, default=5)
    c.add_argument("--out", help="model file (default: the shipped gaji/methods/auto/data/cascade.json)")
    c.add_argument("--report", default="benchmarks/auto/cascade", help="writes README.md here")
    c.set_defaults(func=cmd_train_cascade)
    lr = csub.add_parser("cascade-report", help="what recorded runs of auto did: F1, tokens, calls, p50 time, "
                         "escalations, and the same run's one-retrieval answers' F1, per question type")
    lr.add_argument("runs", nargs="+", metavar="RUN", help="gaji eval run directories of method auto")
    lr.set_defaults(func=cmd_cascade_report)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])


def cmd_train_auto(args: argparse.Namespace) -> int:
    from gaji.io import atomic_write_json, atomic_write_text
    from gaji_lab.learn.auto_router import EPSILON, report_document, train_auto_router
    from gaji.methods.auto.router import DEFAULT_PATH

    eps = EPSILON if args.epsilon is None else args.epsilon
    router, report = train_auto_router(args.root, epsilon=eps, progress=_say)
    out = Path(args.out) if args.out else DEFAULT_PATH
    router.save(out)
    rep_dir = Path(args.report)
    rep_dir.mkdir(parents=True, exist_ok=True)
    command = "gaji classifier train-auto" + (f" --epsilon {eps}" if args.epsilon is not None else "")
    atomic_write_text(rep_dir / "README.md", report_document(report, command))
    atomic_write_json(rep_dir / "report.json", report)
    for s, v in report["held_out"]["replay"].items():
        best = v["fixed"].get(v["best_fixed"], {})
        _say(f"{s:16s} n={v['questions']:3d}  auto F1 {100 * v['auto']['f1']:.1f} at {v['auto']['tokens']:,.0f} tok "
             f"(replay)  best fixed {v['best_fixed']}: {100 * best.get('f1', 0):.1f} at {best.get('tokens', 0):,.0f}")
    _say(f"wrote {out}, {rep_dir / 'README.md'}, {rep_dir / 'report.json'}")
    return 0


def cmd_train_cascade(args: argparse.Namespace) -> int:
    from gaji.errors import ConfigError
    from gaji.io import atomic_write_text
    from gaji_lab.learn.cascade import parse_sets, report_markdown, train_cascade
    from gaji.methods.safety import DEFAULT_ESCALATE, DEFAULT_PATH, ESCALATIONS, SHAPES

    escalate = {}
    for part in filter(None, (x.strip() for x in args.escalate.split(","))):
        shape, _, route = part.partition("=")
        lang, _, bare = shape.rpartition(":")
        if bare not in SHAPES or route not in ESCALATIONS or lang not in ("", "en", "ko"):
            raise ConfigError(f"--escalate {args.escalate!r}: {part!r} must be [LANG:]SHAPE=ROUTE with LANG en or "
                              f"ko, SHAPE in {', '.join(SHAPES)} and ROUTE one of {', '.join(ESCALATIONS)}")
        escalate[shape] = route
    start: dict[str, dict[str, str]] = {}
    for spec in args.start:
        lang, _, rest = spec.partition(":")
        shape, _, route = rest.partition("=")
        if lang not in ("en", "ko") or shape not in SHAPES or route not in ESCALATIONS:
            raise ConfigError(f"--start {spec!r} must be LANG:SHAPE=ROUTE with LANG en or ko, SHAPE in "
                              f"{', '.join(SHAPES)} and ROUTE one of {', '.join(ESCALATIONS)}")
        start.setdefault(lang, {})[shape] = route
    if args.folds < 2 or args.budget <= 0 or not 0 <= args.low_share <= 1 or args.l2 < 0:
        raise ConfigError("--folds must be at least 2, --budget above 0, --low-share within 0-1, --l2 at least 0")
    model, report = train_cascade(parse_sets(args.set), {**DEFAULT_ESCALATE, **escalate}, l2=args.l2,
                                  folds=args.folds, budget=args.budget, low_share=args.low_share, start=start)
    out = Path(args.out) if args.out else DEFAULT_PATH
    model.save(out)
    command = "gaji classifier train-cascade " + " ".join(f"--set {s}" for s in args.set) + \
        "".join(f" --start {x}" for x in args.start) + \
        f" --escalate {args.escalate} --budget {args.budget:g} --low-share {args.low_share:g} --l2 {args.l2:g}"
    rep = Path(args.report)
    rep.mkdir(parents=True, exist_ok=True)
    atomic_write_text(rep / "README.md", report_markdown(model, report, command))
    _say(report_markdown(model, report, command))
    _say(f"wrote {out} and {rep / 'README.md'}")
    return 0


def cmd_cascade_report(args: argparse.Namespace) -> int:
    import json

    from gaji_lab.learn.cascade import live_report

    for run in args.runs:
        print(json.dumps({"run": run, **live_report(Path(run))}, ensure_ascii=False, indent=1))
    return 0


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_make_data(args: argparse.Namespace) -> int:
    from gaji.api import Gaji
    from gaji.eval.sets import load_dataset
    from gaji_lab.learn.synth import ChainSampler, SynthConfig, make_data, make_split
    from gaji.llm.base import Request
    from gaji.llm.tracked import TrackedLLM

    if args.report < 0 or args.n < 1 or args.max_length < 1:
        raise ConfigError("--report must be >= 0, --n and --max-length >= 1")
    names = [x.strip() for x in args.data.split(",") if x.strip()]
    sets = {}
    loaded = {}
    for n in names:
        ds = load_dataset(n)
        sets[ds.name] = ds.items
        loaded[ds.name] = ds
    split = make_split(sets, args.report)
    cfg = SynthConfig(n=args.n, max_length=args.max_length, k=args.k, temperature=args.temperature,
                      f1_threshold=args.f1_threshold, len1_share=args.len1_share,
                      passage_chars=args.passage_chars, seed=args.seed)
    settings = settings_from_args(args)
    g = Gaji(settings=settings)

    def scorer_of(backend):
        if not hasattr(backend, "score"):
            return None

        def score(messages: list[dict], continuation: str) -> float:
            res = backend.score(Request(messages=messages, logprobs=1), continuation)
            return float(sum(t["logprob"] for t in (res.logprobs or [])))

        return score

    def make_sampler(name: str) -> ChainSampler:
        from gaji.index.store import open_index

        ds = loaded[name]
        idx = Path(args.index_root) / name
        retriever = None
        if ds.has_corpus:
            if not (idx / "manifest.json").exists():
                src = ds.corpus_path or ds.path
                raise ConfigError(f"no index for {name} at {idx}: build one (`gaji index build {src} --out {idx}`, "
                                  f"or any `gaji eval --data {name}` run, which indexes it there), or pass --index-root")
            retriever = open_index(str(idx)).retriever(args.retriever)
        backend = g.backend
        return ChainSampler(TrackedLLM(backend, retries=settings.retries), retriever, cfg, scorer_of(backend))

    try:
        stats = make_data(args.out, sets, split, make_sampler, cfg, limit=args.limit,
                          max_minutes=args.max_minutes, progress=_say)
    finally:
        g.close()
    _say(f"instances: {stats['instances']} ({stats['sufficient']} sufficient, {stats['insufficient']} insufficient) "
         f"from {stats['chains_kept']} chains of {stats['questions']} questions; chain lengths {stats['chain_length']}")
    _say(f"written: {Path(args.out) / 'instances.jsonl'}, split: {Path(args.out) / 'split.json'}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from gaji_lab.learn.classifier import TrainConfig, train_from_dir

    cfg = TrainConfig(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, max_tokens=args.max_tokens,
                      heldout=args.heldout, freeze_layers=args.freeze, seed=args.seed, threads=args.threads,
                      class_weight=args.class_weight)
    report = train_from_dir(args.data, args.out, cfg, progress=_say)
    held = report["heldout"]

    def auc(side: str) -> str:
        a = held[side].get("auc")
        return "" if a is None else f", AUC {a:.3f}"

    _say(f"held-out accuracy (balanced accuracy): classifier {held['classifier']['accuracy']:.3f} "
         f"({held['classifier'].get('balanced_accuracy', 0):.3f}{auc('classifier')}), "
         f"logistic regression on embeddings {held['logreg']['accuracy']:.3f} "
         f"({held['logreg'].get('balanced_accuracy', 0):.3f}{auc('logreg')}), "
         f"majority class {held['majority']['accuracy']:.3f} "
         f"({held['n']} held-out examples); inference {report['inference_ms']:.1f} ms/example")
    _say(f"model: {args.out}")
    return 0


def cmd_table4(args: argparse.Namespace) -> int:
    from gaji_lab.learn.table4 import markdown, write_table4

    runs: dict[str, dict[str, str]] = {}
    for spec in args.run:
        head, sep, d = spec.partition("=")
        ds, sep2, label = head.partition(":")
        if not sep or not sep2 or not ds or not label or not d:
            raise ConfigError(f"--run {spec!r}: expected DATASET:LABEL=DIR")
        runs.setdefault(ds, {})[label] = d
    t = write_table4(runs, args.out, args.base, args.compare)
    print(markdown(t), end="")
    _say(f"written: {Path(args.out) / 'table4.md'}, {Path(args.out) / 'table4.json'}")
    return 0


def cmd_train_router(args: argparse.Namespace) -> int:
    from gaji.index.dense import get_embedder
    from gaji_lab.learn.shape_router import KO_TRAIN_FILE, train_router
    from gaji.methods.toq.router import DEFAULT_PATH

    written = {"shipped": KO_TRAIN_FILE, "none": None}.get(args.written, args.written)
    emb = get_embedder()
    router = train_router(emb.embed_queries, emb.model_id, l2=args.l2, iters=args.iters, view=args.view,
                          written_file=written)
    out = args.out or DEFAULT_PATH
    router.save(out)
    m = router.meta
    for part in ("train", "train_written", "held_out", "reported", "written", "written_ko_test"):
        if part not in m:
            continue
        r = m[part]
        _say(f"{part:15s} n={r['n']:4d}  accuracy {r['accuracy']:.3f}  chain recall {r['chain_recall']}  "
             f"compare recall {r['compare_recall']}")
    if "korean_check" in m:
        k = m["korean_check"]
        _say(f"korean    {k['set']}: {k['routed_compare']:.0%} routed to compare (none are comparisons)")
    _say(f"view: {router.view}; l2 {m['fit']['l2']:g}"
         + (f" (5-fold CV balanced accuracy {m['fit']['l2_cv_balanced_accuracy']})" if "cv_folds" in m["fit"] else ""))
    _say(f"wrote {out}")
    return 0
