"""Synthetic training data for the sufficiency classifier (paper 003, §3.1, eqs. 1-5).

For every *training* question (never one we report on; see `make_split`):

    repeat n times (sample s; s = 0 greedy, s > 0 sub-questions sampled at `temperature`):
        H <- {}
        for i in 1..L:
            Q_i <- LLM(Q, H); D_i <- Retriever(Q_i); A_i <- LLM(Q_i, D_i); H <- H + (Q_i, A_i)   (eqs. 1, 2)
            Â_i <- LLM(Q, H, D(Q))                                                              (eq. 3)
            if Â_i matches a gold answer: label step i [Sufficient], end the chain
            else label it [Insufficient]
        score log P(A | Q, C) with the model's log-probabilities                                  (eq. 4)
    keep the chain with the highest log-likelihood                                                (eq. 4)

"Matches" = exact match, or token F1 >= `f1_threshold` (default 0.8; gaji's EM/F1, max over golds).
A chain that reaches L without a match ends [Insufficient] (the paper's rule).

The output directory holds:
    split.json       the explicit split: per dataset, the report ids (never trained on) and train ids
    chains.jsonl     one line per training question: all sampled chains, their labels and scores,
                     and `best` (resumable: questions already there are skipped)
    instances.jsonl  the classifier's training set: one line per step of each kept chain, with
                     length-1 chains down-sampled to at most `len1_share` of the chains (the paper's
                     Table 1 after down-sampling has 40.8 % length-1 chains)
"""
from __future__ import annotations

import dataclasses
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from gaji.errors import ConfigError, GajiError
from gaji.eval.metrics.answer import answer_scores
from gaji.io import append_jsonl, atomic_write_json, atomic_write_text, read_jsonl_tolerant
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.chain import Chain, History
from gaji.text.lang import detect_lang
from gaji.types import Node, Trace

SUFFICIENT, INSUFFICIENT = "[Sufficient]", "[Insufficient]"

# scorer(messages, continuation) -> log-probability of `continuation` as the reply to `messages`
Scorer = Callable[[list[dict], str], float]


@dataclass
class SynthConfig:
    n: int = 2  # chains sampled per question (the first greedy)
    max_length: int = 6  # L
    k: int = 5
    temperature: float = 0.7  # sub-question sampling for chains 2..n
    f1_threshold: float = 0.8  # [Sufficient] when EM = 1 or F1 >= this
    len1_share: float = 0.408  # at most this share of kept chains may have length 1 (paper: 40.8 %)
    passage_chars: int = 400
    seed: int = 0


# -- the split --------------------------------------------------------------------------------
def make_split(datasets: dict[str, list[Any]], report: int) -> dict[str, Any]:
    """Per dataset, the first `report` questions (file order) are the report part, the rest the train
    part. `gaji eval --data NAME --limit <report>` runs exactly the report part."""
    out: dict[str, Any] = {"rule": f"report = first {report} questions of each file (file order); train = the rest",
                           "report_size": report, "datasets": {}}
    for name, items in datasets.items():
        ids = [it.id for it in items]
        out["datasets"][name] = {"report_ids": ids[:report], "train_ids": ids[report:]}
    return out


def check_split(split: dict[str, Any]) -> None:
    for name, d in split["datasets"].items():
        both = set(d["report_ids"]) & set(d["train_ids"])
        if both:
            raise ConfigError(f"split of {name}: {len(both)} question(s) in both the report and the train part")


# -- labels -----------------------------------------------------------------------------------
def is_sufficient(prediction: str, golds: list[str], f1_threshold: float, lang: str = "") -> bool:
    s = answer_scores(prediction, golds, lang)
    return bool(s and (s.em >= 1.0 or s.f1 >= f1_threshold))


def chain_instances(question: str, chain: list[dict]) -> list[dict]:
    """One classifier example per prefix of a chain: (Q, H_1..i) -> the label of step i."""
    out = []
    for i in range(1, len(chain) + 1):
        hist = [[s["question"], s["answer"]] for s in chain[:i]]
        out.append({"question": question, "history": hist, "label": chain[i - 1]["label"]})
    return out


# -- one question -----------------------------------------------------------------------------
class ChainSampler:
    """Runs the paper's labelled chains for one question with a Chain method's prompts."""

    def __init__(self, llm: TrackedLLM, retriever: Any, cfg: SynthConfig, scorer: Scorer | None):
        self.llm = llm
        self.retriever = retriever
        self.cfg = cfg
        self.scorer = scorer
        if cfg.n > 1 and scorer is None:
            raise ConfigError("sampling n > 1 chains needs log-probabilities (eq. 4): use a local model, or --n 1")

    def method(self, temperature: float, seed: int) -> Chain:
        c = self.cfg
        return Chain(k=c.k, max_length=c.max_length, passage_chars=c.passage_chars, temperature=temperature, seed=seed)

    def one_chain(self, question: str, golds: list[str], lang: str, sample: int) -> dict:
        c = self.cfg
        temp = 0.0 if sample == 0 else c.temperature
        m = self.method(temp, c.seed + 1000 * sample)
        trace = Trace(question=question, method="chain-synth", lang=lang)
        ctx = RunContext(llm=self.llm, retriever=self.retriever, lang=lang, trace=trace, parallel=False)
        closed = self.retriever is None
        root = trace.root
        d_q = [] if closed else ctx.retrieve(root, question, c.k)
        history: History = []
        steps: list[dict] = []
        for i in range(1, c.max_length + 1):
            node = root.add(Node(kind="step"))
            qi = m.sub_question(ctx, node, question, history, seed=m.opts.seed + i)
            ai = m.sub_answer(ctx, node, qi, closed)
            history.append((qi, ai))
            pred = m.final_answer(ctx, node, question, history, d_q, purpose="predict")
            ok = is_sufficient(pred, golds, c.f1_threshold, lang)
            steps.append({"question": qi, "answer": ai, "prediction": pred,
                          "label": SUFFICIENT if ok else INSUFFICIENT})
            if ok:
                break
        loglik = None
        if self.scorer is not None and golds:
            loglik = float(self.scorer(m.final_messages(lang, question, history, d_q), golds[0]))
        u = trace.usage()
        return {"sample": sample, "temperature": temp, "steps": steps, "length": len(steps),
                "sufficient": steps[-1]["label"] == SUFFICIENT, "loglik": loglik,
                "tokens": u.total_tokens, "calls": u.calls}

    def question(self, item: Any, dataset: str) -> dict:
        lang = detect_lang(item.question)
        golds = list(item.answers)
        t0 = time.perf_counter()
        chains = [self.one_chain(item.question, golds, lang, s) for s in range(self.cfg.n)]
        best = max(range(len(chains)), key=lambda j: (chains[j]["loglik"] if chains[j]["loglik"] is not None
                                                       else float("-inf"), -j))
        return {"id": item.id, "dataset": dataset, "question": item.question, "answers": golds, "lang": lang,
                "closed_book": self.retriever is None, "chains": chains, "best": best,
                "length": chains[best]["length"], "sufficient": chains[best]["sufficient"],
                "wall_s": round(time.perf_counter() - t0, 1)}


# -- the resumable run ------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict]:
    """The records of a chains/instances file; a torn last line from an interrupted run (or any unreadable
    line) is skipped and reported with its file:line (gaji.io.read_jsonl_tolerant)."""
    return read_jsonl_tolerant(path)


def downsample(records: list[dict], share: float, seed: int = 0) -> list[dict]:
    """Keep every chain longer than 1 and at most `share` of the kept chains with length 1."""
    ones = [r for r in records if r["length"] == 1]
    rest = [r for r in records if r["length"] != 1]
    if share >= 1.0 or not ones:
        return list(records)
    cap = int(share / (1.0 - share) * len(rest)) if share > 0 else 0
    keep = set(id(r) for r in random.Random(seed).sample(ones, min(len(ones), cap)))
    return [r for r in records if r["length"] != 1 or id(r) in keep]


def write_instances(out: Path, cfg: SynthConfig) -> dict[str, Any]:
    """instances.jsonl from chains.jsonl (best chain per question, length-1 chains down-sampled)."""
    records = read_jsonl(out / "chains.jsonl")
    kept = downsample(records, cfg.len1_share, cfg.seed)
    lines = []
    for r in kept:
        chain = r["chains"][r["best"]]["steps"]
        for inst in chain_instances(r["question"], chain):
            lines.append(json.dumps({"id": r["id"], "dataset": r["dataset"], "chain_length": len(chain), **inst},
                                    ensure_ascii=False))
    atomic_write_text(out / "instances.jsonl", "\n".join(lines) + ("\n" if lines else ""))
    lengths: dict[int, int] = {}
    for r in kept:
        lengths[r["length"]] = lengths.get(r["length"], 0) + 1
    labels = [json.loads(x)["label"] for x in lines]
    stats = {"questions": len(records), "chains_kept": len(kept), "instances": len(lines),
             "sufficient": labels.count(SUFFICIENT), "insufficient": labels.count(INSUFFICIENT),
             "chain_length": {str(k): lengths[k] for k in sorted(lengths)}}
    return stats


def make_data(
    out_dir: str | Path,
    datasets: dict[str, list[Any]],
    split: dict[str, Any],
    make_sampler: Callable[[str], ChainSampler],
    cfg: SynthConfig,
    limit: int | None = None,
    max_minutes: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run (or resume) synthesis over the train part of every dataset, interleaving datasets.

    `make_sampler(dataset)` gives the sampler for a dataset (its retriever, or none: closed book).
    `limit`: at most this many train questions per dataset (in total, counting earlier runs).
    Stops cleanly after `max_minutes` (run again to continue). Returns the statistics."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    check_split(split)
    sp = out / "split.json"
    if sp.exists():
        old = json.loads(sp.read_text(encoding="utf-8"))
        if old.get("datasets") != split["datasets"]:
            raise ConfigError(f"{sp} holds another split (other datasets or --report); use another --out")
    atomic_write_json(sp, split)
    cfg_path = out / "config.json"
    if cfg_path.exists():
        old_cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        if old_cfg != dataclasses.asdict(cfg):
            diff = [k for k in old_cfg if old_cfg.get(k) != dataclasses.asdict(cfg).get(k)]
            raise ConfigError(f"{out} was made with other settings ({', '.join(diff)} differ); use another --out")
    atomic_write_json(cfg_path, dataclasses.asdict(cfg))

    done = {(r["dataset"], r["id"]) for r in read_jsonl(out / "chains.jsonl")}
    per_ds_done = {name: sum(1 for d, _ in done if d == name) for name in datasets}
    queues: dict[str, list[Any]] = {}
    for name, items in datasets.items():
        train = set(split["datasets"][name]["train_ids"])
        todo = [it for it in items if it.id in train and (name, it.id) not in done]
        if limit is not None:
            todo = todo[: max(0, limit - per_ds_done[name])]
        queues[name] = todo
    order = list(_interleave(queues))
    say = progress or (lambda _m: None)
    say(f"{len(done)} question(s) done before; {len(order)} to do now")
    t0 = time.perf_counter()
    samplers: dict[str, ChainSampler] = {}
    stopped = False
    for j, (name, item) in enumerate(order, 1):
        if max_minutes is not None and (time.perf_counter() - t0) / 60 >= max_minutes:
            say(f"time limit ({max_minutes} min) reached: run again to continue")
            stopped = True
            break
        if name not in samplers:
            samplers[name] = make_sampler(name)
        try:
            rec = samplers[name].question(item, name)
        except GajiError as e:
            say(f"[{j}/{len(order)}] {name} {item.id}: failed ({e}); skipped, retried on the next run")
            continue
        append_jsonl(out / "chains.jsonl", rec)
        el = time.perf_counter() - t0
        say(f"[{j}/{len(order)}] {name} {item.id}: length {rec['length']} "
            f"{'sufficient' if rec['sufficient'] else 'insufficient'} ({rec['wall_s']} s; "
            f"~{el / j * (len(order) - j) / 60:.0f} min left)")
    stats = write_instances(out, cfg)
    stats["stopped_early"] = stopped
    atomic_write_json(out / "stats.json", stats)
    return stats


def _interleave(queues: dict[str, list[Any]]) -> Iterable[tuple[str, Any]]:
    """Round-robin over datasets, so a time-limited run covers every dataset."""
    its = {k: iter(v) for k, v in queues.items()}
    while its:
        for k in list(its):
            try:
                yield k, next(its[k])
            except StopIteration:
                del its[k]
