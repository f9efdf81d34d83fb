"""Training the small models on teacher data, end to end: the BIO keyword tagger (`gaji expand train-tagger`) and
the multi-task model (`gaji expand train`), with the held-out comparison against the LLM that taught them.
The training loops themselves are in tagger.py and multitask.py; this module splits the data, trains, saves the
model and its report.json, and returns the report."""
from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["TaggerTraining", "train_tagger_model", "MultitaskTraining", "train_multitask_model"]

Log = Callable[[str], None]


@dataclass
class TaggerTraining:
    layers: int = 4  # encoder layers kept (of 12)
    epochs: int = 4
    batch_size: int = 16
    lr: float = 5e-5
    head_lr: float = 1e-3
    dev_fraction: float = 0.15
    seed: int = 0
    threads: int = 1  # torch threads (the machine is shared)


def train_tagger_model(labels: Sequence[str], out: str, opts: TaggerTraining, log: Log | None = None) -> dict:
    """Train the tagger on the labelled queries of the JSONL files `labels` (a `dev_fraction` held out), save it in
    `out` with report.json; returns the training report."""
    from gaji.index.e5_torch import require_torch

    require_torch()
    import torch

    from gaji.io import atomic_write_json

    from gaji.expand.labels import read_tagged
    from gaji.expand.tagger import KeywordTagger, train_tagger

    torch.set_num_threads(max(1, opts.threads))
    data = read_tagged(labels)
    rng = random.Random(opts.seed)
    rng.shuffle(data)
    n_dev = int(len(data) * opts.dev_fraction)
    dev, train = data[:n_dev], data[n_dev:]
    tagger = KeywordTagger.create(layers=opts.layers, seed=opts.seed)
    rep = train_tagger(tagger, train, dev, epochs=opts.epochs, batch_size=opts.batch_size, lr=opts.lr,
                       head_lr=opts.head_lr, seed=opts.seed, log=log)
    tagger.save(out, extra={"train": rep.to_dict(), "labels_files": [str(p) for p in labels]})
    atomic_write_json(Path(out) / "report.json", rep.to_dict())
    return rep.to_dict()


@dataclass
class MultitaskTraining:
    layers: int = 4
    dec_layers: int = 2
    epochs: int = 3
    batch_size: int = 8
    lr: float = 3e-4
    enc_lr: float = 3e-5
    holdout: float = 0.15  # fraction of chunks/queries held out for the comparison
    seed: int = 0
    threads: int = 1


def train_multitask_model(corpus: Sequence[str], expansions: str, labels: Sequence[str], out: str,
                          opts: MultitaskTraining, predictions_out: str | None = None,
                          log: Log | None = None) -> dict[str, Any]:
    """Train the multi-task model on the LLM's expansions of `corpus` (and the keyword labels `labels`), compare it
    with the LLM on the held-out chunks (and queries), save it in `out` with report.json; with `predictions_out`
    also write the held-out chunks' generated titles/questions as expansion records. Returns the report (with
    up to 5 examples, which report.json leaves out)."""
    from gaji.index.e5_torch import require_torch

    require_torch()
    import torch

    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.index.sources import chunk_all, resolve_sources
    from gaji.io import atomic_write_json
    from gaji.text.lang import detect_lang

    from gaji.expand.index_hook import load_expansions
    from gaji.expand.labels import read_tagged
    from gaji.expand.multitask import ChunkExample, ChunkKnowledgeModel, train_multitask
    from gaji.expand.tagger import evaluate_tagger

    torch.set_num_threads(max(1, opts.threads))
    exps = load_expansions(expansions)
    docs, _ = read_documents(resolve_sources(list(corpus)), skip_bad=True)
    chunks = {c.id: c for c in chunk_all(docs, ChunkingConfig())}
    ids = [k for k in exps if k in chunks]
    data = [ChunkExample(f"{chunks[k].title}\n{chunks[k].text}" if chunks[k].title else chunks[k].text,
                         exps[k].title, list(exps[k].questions)) for k in ids]
    queries = read_tagged(labels) if labels else []
    rng = random.Random(opts.seed)
    order = list(range(len(data)))
    rng.shuffle(order)  # the same draw as shuffling the examples themselves
    data, ids = [data[i] for i in order], [ids[i] for i in order]
    rng.shuffle(queries)
    nd, nq = int(len(data) * opts.holdout), int(len(queries) * opts.holdout)
    dev, train = data[:nd], data[nd:]
    qdev, qtrain = queries[:nq], queries[nq:]
    vocab_texts = [t for ex in train for t in (ex.text, ex.title, *ex.questions)]
    model = ChunkKnowledgeModel.create(vocab_texts, layers=opts.layers, dec_layers=opts.dec_layers, seed=opts.seed)
    rep = train_multitask(model, train, qtrain, epochs=opts.epochs, batch_size=opts.batch_size, lr=opts.lr,
                          enc_lr=opts.enc_lr, seed=opts.seed, log=log)
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
        from gaji.expand.tagger import KeywordTagger

        shim = KeywordTagger(model.encoder, model.bio_head, model.layers)  # the shared encoder + BIO head
        report["keywords_vs_llm"] = evaluate_tagger(shim, qdev)
    if predictions_out:  # held-out outputs as expansion records, e.g. for `gaji expand judge --reference`
        from gaji.io import atomic_write_text

        from gaji.expand.generator import Expansion

        atomic_write_text(predictions_out, "".join(
            json.dumps(Expansion(cid, t, list(q), lang=lang, model="multitask").to_dict(), ensure_ascii=False) + "\n"
            for cid, lang, t, q in zip(ids[:nd], langs, titles, qsets)))
    model.save(out, extra={"report": {k: v for k, v in report.items() if k != "examples"}})
    atomic_write_json(Path(out) / "report.json", report)
    return report


def _vs_llm(dev, titles, qsets) -> dict[str, dict]:
    """The multi-task model's titles and question sets against the LLM's (ROUGE-L / chrF) on held-out chunks."""
    from gaji.expand.multitask import SEP, evaluate_generation

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
