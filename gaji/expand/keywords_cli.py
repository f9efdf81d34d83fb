"""`gaji expand label | train-tagger | keywords | chunk-keywords | subset | bench` (registered by gaji/cli/expand_cmd.py)."""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

__all__ = ["register", "read_tagged", "label_queries"]


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

    kw = esub.add_parser("keywords", help="the keywords of a query (trained tagger, or --llm for the teacher)")
    kw.add_argument("query")
    kw.add_argument("--tagger", metavar="DIR", default=None, help="tagger folder (default $GAJI_TAGGER)")
    kw.add_argument("--llm", default=None, help="ask this LLM instead (teacher)")
    kw.add_argument("--bio", action="store_true", help="print each morpheme with its label")
    kw.set_defaults(func=_keywords)

    ck = esub.add_parser("chunk-keywords", help="keyword metadata per chunk (the tagger over its candidate questions) "
                         "for the +kwf retrievers' filter")
    ck.add_argument("index", metavar="INDEX", help="an index built with --expand or --expansions")
    ck.add_argument("--tagger", metavar="DIR", default=None, help="tagger folder (default $GAJI_TAGGER)")
    ck.set_defaults(func=_chunk_keywords)

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


# ---------------------------------------------------------------------------------------------
def read_tagged(paths):
    from gaji.errors import InputError
    from gaji.io import iter_jsonl

    from .keywords import TaggedQuery

    out = []
    for p in paths:
        for i, d in iter_jsonl(p):
            try:
                out.append(TaggedQuery.from_dict(d))
            except (KeyError, ValueError, TypeError) as e:
                raise InputError(f"bad labelled query: {e}", path=str(p), line=i) from None
    return out


def label_queries(teacher, queries, out_path, parallel: int = 1, time_limit: float | None = None) -> dict:
    """Label `queries` with `teacher` into the append-only JSONL `out_path` (skipping ones already there)."""
    from concurrent.futures import ThreadPoolExecutor

    from gaji.io import append_jsonl

    done = set()
    p = Path(out_path)
    if p.exists():
        for line in p.read_text(encoding="utf-8").splitlines():
            try:
                done.add(json.loads(line)["query"])
            except (json.JSONDecodeError, KeyError):
                continue
    todo = [q for q in dict.fromkeys(queries) if q not in done]
    t0 = time.perf_counter()
    stats = {"labelled": 0, "failed": 0, "skipped": len(queries) - len(todo), "no_keyword_found": 0}

    def one(q: str):
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            return None
        try:
            return teacher.label(q)
        except Exception as e:  # noqa: BLE001 - one bad query never stops the run
            return e

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        for res in pool.map(one, todo):
            if res is None:
                continue
            if isinstance(res, Exception):
                stats["failed"] += 1
                continue
            if "KB" not in res.labels:
                stats["no_keyword_found"] += 1
            append_jsonl(p, res.to_dict())
            stats["labelled"] += 1
    stats["seconds"] = round(time.perf_counter() - t0, 1)
    return stats


def _label(args: argparse.Namespace) -> int:
    from gaji.config import load_settings
    from gaji.errors import ConfigError
    from gaji.llm.factory import make_llm

    from .bench import questions_for
    from .index_hook import load_expansions
    from .keywords import KeywordTeacher

    queries: list[str] = []
    if args.expansions:
        for e in load_expansions(args.expansions).values():
            queries.extend(e.questions)
    if args.questions:
        queries.extend(q["question"] for q in questions_for(args.questions))
    if not queries:
        raise ConfigError("nothing to label: give --expansions and/or --questions")
    queries = list(dict.fromkeys(queries))
    if args.max and len(queries) > args.max:
        queries = random.Random(args.seed).sample(queries, args.max)
    s = load_settings({"llm": args.llm, "parallel": args.parallel, "threads": args.threads})
    backend = make_llm(s.llm, parallel=s.parallel, ctx_size=s.ctx_size, threads=s.threads)
    stats = label_queries(KeywordTeacher(backend), queries, args.out, parallel=backend.parallel_slots,
                          time_limit=args.time_limit)
    print(json.dumps({"model": backend.name, **stats}, ensure_ascii=False))
    return 0


def _train_tagger(args: argparse.Namespace) -> int:
    from gaji.learn.encoder import require_torch

    require_torch()
    import torch

    from gaji.io import atomic_write_json

    from .tagger import KeywordTagger, train_tagger

    torch.set_num_threads(max(1, args.threads))
    data = read_tagged(args.labels)
    rng = random.Random(args.seed)
    rng.shuffle(data)
    n_dev = int(len(data) * args.dev_fraction)
    dev, train = data[:n_dev], data[n_dev:]
    tagger = KeywordTagger.create(layers=args.layers, seed=args.seed)
    rep = train_tagger(tagger, train, dev, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                       head_lr=args.head_lr, seed=args.seed, log=lambda m: print(m, file=sys.stderr))
    tagger.save(args.out, extra={"train": rep.to_dict(), "labels_files": [str(p) for p in args.labels]})
    atomic_write_json(Path(args.out) / "report.json", rep.to_dict())
    print(json.dumps(rep.to_dict(), ensure_ascii=False))
    return 0


def _train_multitask(args: argparse.Namespace) -> int:
    from gaji.learn.encoder import require_torch

    require_torch()
    import torch

    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.index.sources import chunk_all, resolve_sources
    from gaji.io import atomic_write_json
    from gaji.text.lang import detect_lang

    from .index_hook import load_expansions
    from .multitask import ChunkExample, ChunkKnowledgeModel, train_multitask
    from .tagger import evaluate_tagger

    torch.set_num_threads(max(1, args.threads))
    exps = load_expansions(args.expansions)
    docs, _ = read_documents(resolve_sources(args.corpus), skip_bad=True)
    chunks = {c.id: c for c in chunk_all(docs, ChunkingConfig())}
    ids = [k for k in exps if k in chunks]
    data = [ChunkExample(f"{chunks[k].title}\n{chunks[k].text}" if chunks[k].title else chunks[k].text,
                         exps[k].title, list(exps[k].questions)) for k in ids]
    queries = read_tagged(args.labels) if args.labels else []
    rng = random.Random(args.seed)
    order = list(range(len(data)))
    rng.shuffle(order)  # the same draw as shuffling the examples themselves
    data, ids = [data[i] for i in order], [ids[i] for i in order]
    rng.shuffle(queries)
    nd, nq = int(len(data) * args.holdout), int(len(queries) * args.holdout)
    dev, train = data[:nd], data[nd:]
    qdev, qtrain = queries[:nq], queries[nq:]
    vocab_texts = [t for ex in train for t in (ex.text, ex.title, *ex.questions)]
    model = ChunkKnowledgeModel.create(vocab_texts, layers=args.layers, dec_layers=args.dec_layers, seed=args.seed)
    rep = train_multitask(model, train, qtrain, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                          enc_lr=args.enc_lr, seed=args.seed, log=lambda m: print(m, file=sys.stderr))
    # compare with the LLM (the teacher) on held-out chunks: ROUGE-L / chrF, and speed per item
    t_titles, t_qs = [], []
    titles, qsets = [], []
    langs = [detect_lang(ex.text) for ex in dev]
    for ex in dev:
        t0 = time.perf_counter()
        titles.append(model.generate_title(ex.text))
        t_titles.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        qsets.append(model.generate_questions(ex.text))
        t_qs.append(time.perf_counter() - t0)
    report = {
        "train": rep.to_dict(),
        "vocab": len(model.vocab),
        "held_out_chunks": len(dev),
        **_vs_llm(dev, titles, qsets),
        "title_ms_per_item": round(1000 * sum(t_titles) / max(1, len(t_titles)), 1),
        "questions_ms_per_item": round(1000 * sum(t_qs) / max(1, len(t_qs)), 1),
        "by_lang": _by_lang(dev, langs, titles, qsets),
        "examples": [{"llm_title": ex.title, "model_title": t, "llm_questions": ex.questions, "model_questions": q}
                     for ex, t, q in list(zip(dev, titles, qsets))[:5]],
    }
    if qdev:
        from .tagger import KeywordTagger

        shim = KeywordTagger(model.encoder, model.bio_head, model.layers)  # the shared encoder + BIO head
        report["keywords_vs_llm"] = evaluate_tagger(shim, qdev)
    if args.predictions_out:  # held-out outputs as expansion records, e.g. for `gaji expand judge --reference`
        from gaji.io import atomic_write_text

        from .generator import Expansion

        atomic_write_text(args.predictions_out, "".join(
            json.dumps(Expansion(cid, t, list(q), lang=lang, model="multitask").to_dict(), ensure_ascii=False) + "\n"
            for cid, lang, t, q in zip(ids[:nd], langs, titles, qsets)))
    model.save(args.out, extra={"report": {k: v for k, v in report.items() if k != "examples"}})
    atomic_write_json(Path(args.out) / "report.json", report)
    print(json.dumps({k: v for k, v in report.items() if k != "examples"}, ensure_ascii=False))
    return 0


def _vs_llm(dev, titles, qsets) -> dict[str, dict]:
    """The multi-task model's titles and question sets against the LLM's (ROUGE-L / chrF) on held-out chunks."""
    from .multitask import SEP, evaluate_generation

    return {"title_vs_llm": evaluate_generation(titles, [ex.title for ex in dev]),
            "questions_vs_llm": evaluate_generation([SEP.join(q) for q in qsets],
                                                    [SEP.join(ex.questions) for ex in dev])}


def _by_lang(dev, langs, titles, qsets) -> dict[str, dict]:
    """The held-out comparison per language of the chunk (a mixed corpus can hide a language the model fails)."""
    groups: dict[str, list[int]] = {}
    for i, lang in enumerate(langs):
        groups.setdefault(lang, []).append(i)
    return {lang: {"chunks": len(ix), **_vs_llm([dev[i] for i in ix], [titles[i] for i in ix], [qsets[i] for i in ix])}
            for lang, ix in sorted(groups.items())}


def _keywords(args: argparse.Namespace) -> int:
    import os

    from .keywords import KeywordTeacher, decode_bio

    if args.llm:
        from gaji.llm.factory import make_llm

        tq = KeywordTeacher(make_llm(args.llm)).label(args.query)
        toks, labels = tq.morphemes, tq.labels
    else:
        from gaji.errors import ConfigError

        from .tagger import KeywordTagger

        path = args.tagger or os.environ.get("GAJI_TAGGER")
        if not path:
            raise ConfigError("give --tagger DIR (or $GAJI_TAGGER), or --llm for the teacher")
        toks, labels = KeywordTagger.load(path).predict(args.query)
    if args.bio:
        for m, lab in zip(toks, labels):
            print(f"{m.form}\t{m.tag}\t{lab}")
    print(json.dumps(decode_bio(args.query, toks, labels), ensure_ascii=False))
    return 0


def _chunk_keywords(args: argparse.Namespace) -> int:
    from gaji.index.store import open_index

    from .kwfilter import write_chunk_keywords
    from .retriever import _keyword_fn

    fn = _keyword_fn(args.tagger, None)
    idx = open_index(args.index)
    try:
        t0 = time.perf_counter()
        st = write_chunk_keywords(idx, fn, source={"tagger": str(args.tagger or "$GAJI_TAGGER")})
        st["seconds"] = round(time.perf_counter() - t0, 2)
    finally:
        idx.close()
    print(json.dumps(st, ensure_ascii=False))
    return 0


def _subset(args: argparse.Namespace) -> int:
    from .bench import subset_corpus

    print(json.dumps(subset_corpus(args.dataset, args.out, args.distractors, args.seed, args.max_questions,
                                    context=args.context)))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from .bench import parse_cases, run_bench

    res = run_bench(
        corpus=args.corpus,
        questions=args.questions or args.corpus,
        expansions=args.expansions,
        cases=parse_cases(args.cases),
        retrievers=[r.strip() for r in args.retrievers.split(",") if r.strip()],
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
