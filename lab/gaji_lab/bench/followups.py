"""`gaji bench followups`: how well follow-up questions are rewritten, and what the rewrite does for the answer.

    gaji bench followups --llm local --method oner [--only ko|en] [--limit N] [--oracle] [--out DIR]

The pairs (benchmarks/followups/followups.jsonl, written by hand over HotpotQA and KorQuAD passages)
each hold a first question and its answer, a follow-up that leans on them ("When did it end?", "그럼
두 번째는…", a left-out subject), the standalone question it means, the words that rewrite must
contain, and the gold answer. For each pair:

  rewrite   the follow-up rewritten by gaji (gaji/conversation/rewrite.py) with the first turn as history.
            It is right (the entity rule) when it contains, for every group of `must_contain`, one of the
            group's strings (case and spacing ignored; Korean particles may follow, so "소토마요르가"
            counts for "소토마요르"): the entity (or predicate) the follow-up left out. That rule alone
            passes a rewrite that names the entity but asks something else (the first question copied,
            say), so it is also judged *strictly*: right by the entity rule and close to the hand-written
            rewrite (character-bigram F1 >= 0.5, spaces and punctuation ignored).
  without   the method answers the follow-up as asked (no conversation: what gaji did before)
  with      the method answers the rewritten question (what `Gaji.ask(question, history=…)` runs)
  oracle    (--oracle) the method answers the hand-written standalone question: the rewrite's ceiling

Answers are scored with EM/F1 against the gold answers (gaji/eval/metrics). Retrieval runs over the
pair's whole corpus (HotpotQA's 6,642 pooled passages, KorQuAD's 964 paragraphs), indexed once and
cached like `gaji eval` does. Pairs run `--concurrency` at a time (default: the LLM's parallel slots).
Per-pair lines go to <out>/followups-<llm>.jsonl as they finish (a second run resumes); the totals to
<out>/followups-<llm>.json and .md.
"""
from __future__ import annotations

import dataclasses
import json
import re
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, InputError

PAIRS = Path(__file__).resolve().parents[3] / "benchmarks" / "followups" / "followups.jsonl"
CORPORA = {"hotpotqa": "hotpotqa", "korquad": "korquad"}


@dataclass
class Pair:
    id: str
    lang: str
    corpus: str
    pattern: str
    turns: list[tuple[str, str]]
    followup: str
    standalone: str
    must_contain: list[list[str]]
    answers: list[str]
    doc_ids: list[str] = field(default_factory=list)


def load_pairs(path: str | Path) -> list[Pair]:
    out = []
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"follow-up pairs not found: {p}")
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            turns = [(t["question"], t["answer"]) for t in r["turns"]]
            must = [list(g) for g in r["must_contain"]]
            pair = Pair(id=r["id"], lang=r["lang"], corpus=r["corpus"], pattern=r.get("pattern", ""), turns=turns,
                        followup=r["followup"], standalone=r["standalone"], must_contain=must,
                        answers=list(r["answers"]), doc_ids=list(r.get("doc_ids", [])))
        except (ValueError, KeyError, TypeError) as e:
            raise InputError(f"bad follow-up pair: {e}", str(p), n) from None
        if pair.corpus not in CORPORA:
            raise InputError(f"unknown corpus {pair.corpus!r} (known: {', '.join(CORPORA)})", str(p), n, "corpus")
        if not pair.must_contain or not all(pair.must_contain):
            raise InputError("must_contain needs at least one non-empty group", str(p), n, "must_contain")
        out.append(pair)
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def rewrite_is_right(rewrite: str, must_contain: list[list[str]]) -> bool:
    """Every group of `must_contain` has a member inside the rewrite (case and spacing ignored)."""
    r = _norm(rewrite)
    return all(any(_norm(alt) in r for alt in group) for group in must_contain)


STRICT_SIMILARITY = 0.5


def similarity(a: str, b: str) -> float:
    """Character-bigram F1 of two questions (lower case, spaces and punctuation removed)."""
    def grams(t: str) -> Counter:
        t = re.sub(r"[\W_]+", "", t.lower())
        return Counter(t[i:i + 2] for i in range(len(t) - 1))

    x, y = grams(a), grams(b)
    common = sum((x & y).values())
    if not common:
        return 0.0
    p, r = common / sum(x.values()), common / sum(y.values())
    return 2 * p * r / (p + r)


def strict_ok(row: dict[str, Any]) -> bool:
    return bool(row["rewrite_ok"]) and similarity(row["rewrite"], row["expected"]) >= STRICT_SIMILARITY


def _scores(prediction: str, answers: list[str], lang: str) -> dict[str, float]:
    from gaji.eval.metrics.answer import answer_scores

    s = answer_scores(prediction, answers, lang)
    return {"em": float(s.em) if s else 0.0, "f1": float(s.f1) if s else 0.0}


def run_pair(pair: Pair, gaji: Any, llm: Any, method: str, oracle: bool, answers: bool = True) -> dict[str, Any]:
    """One pair: the rewrite (through gaji's rewriter, counted) and the answers without / with it."""
    from gaji.conversation.rewrite import rewrite_followup
    from gaji.conversation.turns import Turn

    history = [Turn(q, a) for q, a in pair.turns]
    t0 = time.perf_counter()
    node = rewrite_followup(llm, pair.followup, history, lang=pair.lang)
    rewrite_ms = (time.perf_counter() - t0) * 1000
    rewritten = node.filled_question
    out: dict[str, Any] = {
        "id": pair.id, "lang": pair.lang, "pattern": pair.pattern, "followup": pair.followup,
        "expected": pair.standalone, "rewrite": rewritten, "rewrite_ok": rewrite_is_right(rewritten, pair.must_contain),
        "rewrite_similarity": round(similarity(rewritten, pair.standalone), 3),
        "rewrite_error": node.error, "rewrite_ms": round(rewrite_ms, 1),
        "rewrite_tokens": sum(c.prompt_tokens + c.completion_tokens for c in node.calls), "answers": pair.answers,
    }
    runs = ([("without", pair.followup), ("with", rewritten)] if answers else []) + (
        [("oracle", pair.standalone)] if oracle and answers else [])
    for name, question in runs:
        t = gaji.ask(question, method=method)
        out[name] = {"question": question, "answer": t.answer, "status": t.status,
                     "retrieved_gold": bool(set(pair.doc_ids) & {pid.split("#")[0] for pid in t.retrieved_ids()}),
                     "wall_ms": round(t.wall_ms, 1), **_scores(t.answer, pair.answers, pair.lang)}
    return out


def summarize(rows: list[dict[str, Any]], oracle: bool) -> dict[str, Any]:
    def block(rs: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(rs)
        d: dict[str, Any] = {"pairs": n, "rewrite_right": sum(r["rewrite_ok"] for r in rs),
                             "rewrite_right_strict": sum(strict_ok(r) for r in rs)}
        for name in ("without", "with") + (("oracle",) if oracle else ()):
            have = [r[name] for r in rs if name in r]
            d[name] = {"n": len(have), "em": round(100 * sum(x["em"] for x in have) / max(1, len(have)), 1),
                       "f1": round(100 * sum(x["f1"] for x in have) / max(1, len(have)), 1),
                       "gold_retrieved": sum(x["retrieved_gold"] for x in have)}
        return d

    out = {"all": block(rows)}
    for lang in sorted({r["lang"] for r in rows}):
        out[lang] = block([r for r in rows if r["lang"] == lang])
    for pat in sorted({r["pattern"] for r in rows}):
        rs = [r for r in rows if r["pattern"] == pat]
        out[f"pattern:{pat}"] = {"pairs": len(rs), "rewrite_right": sum(r["rewrite_ok"] for r in rs),
                                 "rewrite_right_strict": sum(strict_ok(r) for r in rs)}
    return out


def render(summary: dict[str, Any], meta: dict[str, Any], oracle: bool) -> str:
    cols = ["without", "with"] + (["oracle"] if oracle else [])
    head = ("| set | pairs | rewrites right (entity) | (strict) | "
            + " | ".join(f"{c}: EM / F1 (gold passage retrieved)" for c in cols) + " |")
    lines = [f"Follow-up rewrite ({meta['llm']}, method {meta['method']}, k={meta['k']}, {meta['retriever']}; "
             f"{meta['date']})", "", head, "|" + "---|" * (4 + len(cols))]
    for key in [k for k in summary if not k.startswith("pattern:")]:
        b = summary[key]
        cells = [f"{b[c]['em']} / {b[c]['f1']} ({b[c]['gold_retrieved']}/{b[c]['n']})" if b[c]["n"] else "–"
                 for c in cols]
        lines.append(f"| {key} | {b['pairs']} | {b['rewrite_right']}/{b['pairs']} | "
                     f"{b['rewrite_right_strict']}/{b['pairs']} | " + " | ".join(cells) + " |")
    pats = ", ".join(f"{k[8:]} {v['rewrite_right']}/{v['pairs']} (strict {v['rewrite_right_strict']})"
                     for k, v in summary.items() if k.startswith("pattern:"))
    lines += ["", f"Rewrites right by kind of reference: {pats}. Strict: the entity rule and character-bigram F1 "
              f">= {STRICT_SIMILARITY} with the hand-written rewrite."]
    return "\n".join(lines)


def in_part(pair_id: str, part: str) -> bool:
    """The split of the pairs for tuning the rewriter: "dev" = odd-numbered ids ("ko-01"), "report" = even."""
    digits = re.sub(r"\D", "", pair_id)
    odd = bool(digits) and int(digits) % 2 == 1
    return odd if part == "dev" else not odd


@dataclass
class FollowupOptions:
    """What `gaji bench followups` runs (its flags)."""

    pairs: str = str(PAIRS)
    method: str = "oner"
    only: str | None = None  # "ko" | "en": one language's pairs
    limit: int = 0  # first N pairs of each language (0: all)
    part: str | None = None  # "dev": odd-numbered pairs (ko-01, ko-03, …), "report": even-numbered
    oracle: bool = False  # also answer the hand-written standalone question
    answers: bool = True  # False: the rewrites alone
    concurrency: int | None = None  # pairs at once (None: the LLM's parallel slots)
    index_cache: str = ".gaji/indexes"
    dense: bool = True  # False: BM25-only corpus indexes (fast to build on a CPU)
    out: str = "benchmarks/results/followups"


def run_followups(settings: Any, o: FollowupOptions, say: Any = print) -> dict[str, Any]:
    """Run the pairs (resuming <out>/followups-<llm>.jsonl), write the result pair, return the summary and meta."""
    from gaji.api import Gaji
    from gaji_lab.bench.results import save_result
    from gaji.eval.corpus_index import corpus_index
    from gaji.eval.datasets import load_dataset
    from gaji.eval.record import now_iso
    from gaji.index.build import build_index
    from gaji.index.store import open_index
    from gaji.io import append_jsonl
    from gaji.llm.factory import llm_from_settings
    from gaji.llm.tracked import TrackedLLM

    pairs = load_pairs(o.pairs)
    if o.only:
        pairs = [p for p in pairs if p.lang == o.only]
    if o.part:
        pairs = [p for p in pairs if in_part(p.id, o.part)]
    if o.limit and o.limit > 0:
        pairs = [p for lang in ("en", "ko") for p in [q for q in pairs if q.lang == lang][: o.limit]]
    if not pairs:
        raise ConfigError("no follow-up pairs to run")
    s = settings
    backend = llm_from_settings(s, cache=False)
    llm_tag = s.llm.replace(":", "-").replace("/", "_")
    out = Path(o.out)
    lines = out / f"followups-{llm_tag}.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if lines.exists():
        for ln in lines.read_text(encoding="utf-8").splitlines():
            try:
                r = json.loads(ln)
                done[r["id"]] = r
            except (ValueError, KeyError):
                continue

    def finished(r: dict[str, Any] | None) -> bool:
        return r is not None and (not o.answers or "without" in r) and (not (o.oracle and o.answers) or "oracle" in r)

    try:
        gajis = {}
        for corpus in sorted({p.corpus for p in pairs}):
            ds = load_dataset(CORPORA[corpus])
            ix = corpus_index(ds, o.index_cache, open_index=lambda d: open_index(str(d)),
                              build=lambda src, out, **kw: build_index(src, out, **{**kw, "dense": o.dense}))
            gajis[corpus] = Gaji(llm=backend, settings=dataclasses.replace(s, index=ix.path))  # one Settings each
        tracked = TrackedLLM(backend, retries=s.retries)
        todo = [p for p in pairs if not finished(done.get(p.id))]
        lock = threading.Lock()

        def one(pair: Pair) -> dict[str, Any]:
            row = run_pair(pair, gajis[pair.corpus], tracked, o.method, o.oracle, o.answers)
            with lock:
                append_jsonl(lines, row)
                done[pair.id] = row
                scores = f" without F1 {row['without']['f1']:.2f} with {row['with']['f1']:.2f}" if "with" in row else ""
                say(f"{pair.id} rewrite {'ok ' if row['rewrite_ok'] else 'BAD'} {row['rewrite']!r}{scores}")
            return row

        with ThreadPoolExecutor(max_workers=max(1, o.concurrency or backend.parallel_slots)) as ex:
            list(ex.map(one, todo))
        rows = [done[p.id] for p in pairs]
    finally:
        backend.close()
    meta = {"llm": s.llm, "model": backend.name, "method": o.method if o.answers else "-", "k": s.k,
            "retriever": s.retriever, "date": now_iso()[:10], "pairs_file": str(o.pairs)}
    summary = summarize(rows, o.oracle)
    save_result(out, f"followups-{llm_tag}", {**meta, "summary": summary}, render(summary, meta, o.oracle))
    return {**meta, "summary": summary}
