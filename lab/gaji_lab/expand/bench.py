"""Top@k of gold passages for the seven passage compositions (paper 001, Table 7), dense and hybrid.

    gaji expand subset koblex --distractors 100 --out .gaji/expand/koblex-sub   # optional smaller corpus
    gaji expand bench koblex --expansions X.jsonl --cases 1-7 --retrievers dense,hybrid

For each case an index of the corpus is built with that composition (`build_index(..., extension=
expansion_step(expansions=, compose=))`), plus the plain index (chunks embedded as gaji does without
expansion, no ``<s>`` delimiters) as the reference. Every question with gold passages is searched (KoBLEX as
``background + question``, as `gaji bench retrieval` does). Top@k = the fraction of questions with at
least one gold passage in the top k (the paper's pass rate counts a question as passed when a
retrieved chunk carries the needed information); all@k (every gold passage in the top k) is reported
beside it for the multi-hop sets. Index size (bytes on disk, dense + BM25) per case.
"""
from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, InputError

__all__ = ["KS", "subset_corpus", "questions_for", "run_bench", "parse_cases", "markdown"]

KS = (1, 3, 5, 10)


def parse_cases(spec: str) -> list[str]:
    """"1-7" | "1,6" | "case1,case6" | "plain,1-7" -> ["plain", "case1", ...]."""
    from gaji.expand.compose import check_case

    out: list[str] = []
    for part in spec.split(","):
        part = part.strip().lower()
        if not part:
            continue
        if part == "plain":
            out.append("plain")
        elif "-" in part:
            a, b = (int(x.replace("case", "")) for x in part.split("-", 1))
            out.extend(f"case{i}" for i in range(a, b + 1))
        else:
            out.append(check_case(part))
    for c in out:
        if c != "plain":
            check_case(c)
    return list(dict.fromkeys(out))


def questions_for(name_or_path: str, max_questions: int | None = None) -> list[dict[str, Any]]:
    """Questions with gold passages: {"id", "query", "gold": [doc ids]} (KoBLEX background prepended)."""
    from gaji.corpus.shared_data import DATASETS, dataset_paths, load_questions

    qpath = dataset_paths(name_or_path)[0] if name_or_path in DATASETS else Path(name_or_path)
    if not qpath.exists():
        raise InputError(f"no such question file or shared dataset (known: {', '.join(DATASETS)})", path=str(qpath))
    out = []
    for q in load_questions(qpath):
        gold = list(dict.fromkeys(s["doc_id"] for s in q.get("supporting") or [] if s.get("doc_id")))
        if not gold:
            continue
        text = q["question"]
        if q.get("background"):
            text = f"{q['background']}\n{text}"
        ctx = [c for c in q.get("context_ids") or [] if isinstance(c, str)]
        out.append({"id": q.get("id"), "query": text, "question": q["question"], "gold": gold, "context": ctx})
        if max_questions and len(out) >= max_questions:
            break
    return out


def teacher_queries(expansions: str | None = None, questions: str | None = None, max_queries: int | None = None,
                    seed: int = 0) -> list[str]:
    """The queries to label: the candidate questions of `expansions` and/or the questions of a question set (shared
    name or JSONL), each once; at most `max_queries`, drawn with `seed`."""
    from gaji.expand.index_hook import load_expansions

    queries: list[str] = []
    if expansions:
        for e in load_expansions(expansions).values():
            queries.extend(e.questions)
    if questions:
        queries.extend(q["question"] for q in questions_for(questions))
    if not queries:
        raise ConfigError("nothing to label: give --expansions and/or --questions")
    queries = list(dict.fromkeys(queries))
    if max_queries and len(queries) > max_queries:
        queries = random.Random(seed).sample(queries, max_queries)
    return queries


def subset_corpus(name: str, out_dir: str | Path, distractors: int, seed: int = 0,
                  max_questions: int | None = None, context: bool = False) -> dict[str, Any]:
    """A smaller corpus: every gold passage of the questions + `distractors` other passages drawn at
    random (seeded). Writes ``corpus.jsonl`` and ``questions.jsonl`` into out_dir.

    `context`: also keep each question's official distractor paragraphs (``context_ids`` of HotpotQA and
    2Wiki: the ~8 paragraphs per question retrieved by the dataset's authors to mislead), so that the
    subset is hard for its size instead of gold among random, unrelated passages.

    The corpus is written question-major: questions in a seeded random order, each followed by its gold
    passages and its share of the distractors. Expansion runs in file order, so when it is cut short
    the expanded prefix is itself a usable smaller benchmark (`run_bench(..., only_expanded=True)`)."""
    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import resolve_corpus
    from gaji.io import atomic_write_text

    qs = questions_for(name, max_questions)
    gold = {g for q in qs for g in q["gold"]}
    docs, _ = read_documents([resolve_corpus(name)], skip_bad=True)
    ctx_ids = {c for q in qs for c in q["context"]} if context else set()
    others = [d for d in docs if d.id not in gold and d.id not in ctx_ids]
    rng = random.Random(seed)
    pick = set(d.id for d in rng.sample(others, min(distractors, len(others))))
    by_id = {d.id: d for d in docs}
    dis = [d.id for d in docs if d.id in pick]
    order = list(range(len(qs)))
    rng.shuffle(order)
    keep_ids: list[str] = []
    seen: set[str] = set()
    if context and not any(q["context"] for q in qs):
        raise ConfigError(f"{name}: its questions have no context_ids (official distractors); drop --context")
    for n, qi in enumerate(order, 1):
        for g in qs[qi]["gold"] + (qs[qi]["context"] if context else []):
            if g in by_id and g not in seen:
                seen.add(g)
                keep_ids.append(g)
        while dis and len(pick) - len(dis) < round(n * len(pick) / len(order)):
            keep_ids.append(dis.pop(0))
    keep_ids.extend(dis)
    keep = [by_id[i] for i in keep_ids]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "corpus.jsonl", "".join(
        json.dumps({"id": d.id, "title": d.title, "text": d.text}, ensure_ascii=False) + "\n" for d in keep))
    atomic_write_text(out / "questions.jsonl", "".join(
        json.dumps({"id": q["id"], "question": q["query"], "supporting": [{"doc_id": g} for g in q["gold"]]},
                   ensure_ascii=False) + "\n" for q in qs))
    info = {"source": name, "questions": len(qs), "gold_passages": len(gold), "distractors": len(pick),
            "context_distractors": len(ctx_ids - gold), "passages": len(keep), "seed": seed}
    (out / "subset.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return info


def _dir_bytes(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


def _topk(ranked: list[str], gold: list[str]) -> tuple[dict[int, bool], dict[int, bool]]:
    anyk, allk = {}, {}
    for k in KS:
        top = set(ranked[:k])
        found = sum(1 for g in gold if g in top)
        anyk[k] = found > 0
        allk[k] = found == len(gold)
    return anyk, allk


def run_bench(
    corpus: str,
    questions: str,
    expansions: str | None,
    cases: list[str],
    retrievers: list[str],
    work: str | Path,
    out: str | Path | None = None,
    max_questions: int | None = None,
    rebuild: bool = False,
    progress: bool = False,
    label: str = "",
    tagger: str | None = None,
    only_expanded: bool = False,
) -> dict[str, Any]:
    from gaji.corpus.shared_data import resolve_corpus
    from gaji.index.build import build_index
    from gaji.index.store import open_index

    from gaji.expand.index_hook import expansion_step, load_expansions

    qs = questions_for(questions, max_questions)
    if not qs:
        raise ConfigError(f"{questions}: no questions with gold passages")
    exps = load_expansions(expansions) if expansions else {}
    if any(c != "plain" for c in cases) and not exps:
        raise ConfigError("cases other than 'plain' need --expansions (from `gaji expand run`)")
    src = resolve_corpus(corpus)
    work = Path(work)
    note = ""
    if only_expanded:
        src, qs, note = _restrict(src, qs, exps, work)
    results: dict[str, Any] = {}
    for case in cases:
        path = work / case
        idx = None
        if path.exists() and not rebuild:
            try:
                idx = open_index(path)
                if idx.manifest.sources != [str(src)] or idx.manifest.config.get("compose") != (None if case == "plain" else case):
                    idx = None
            except Exception:  # noqa: BLE001 - stale cache: rebuild
                idx = None
        t0 = time.perf_counter()
        if idx is None or (case != "plain" and _stale(idx, exps)):
            step = None if case == "plain" else expansion_step(expansions=exps, compose=case)
            idx = build_index([src], path, progress=progress, skip_bad=True, extension=step)
        build_s = time.perf_counter() - t0
        row: dict[str, Any] = {
            "chunks": idx.chunks,
            "expanded_chunks": int(idx.manifest.stats.get("expanded_chunks", 0) or 0),
            "build_s": round(build_s, 2),
            "embed_s": idx.manifest.stats.get("embed_s"),
            "bytes": {"dense": _dir_bytes(idx.dir / "dense"), "lexical": _dir_bytes(idx.dir / "lexical"),
                      "chunks": (idx.dir / "chunks.jsonl").stat().st_size},
        }
        if case != "plain" and tagger and any(r.endswith("+kwf") for r in retrievers):
            row["chunk_keywords"] = _chunk_keywords(idx, tagger)
        for rname in retrievers:
            r = idx.retriever(rname, **({"tagger": tagger} if "+kw" in rname else {}))
            anyk = {k: [] for k in KS}
            allk = {k: [] for k in KS}
            lat = []
            for q in qs:
                t1 = time.perf_counter()
                ps = r.search(q["query"], max(KS))
                lat.append((time.perf_counter() - t1) * 1000)
                ranked = list(dict.fromkeys(p.doc_id for p in ps))
                a, b = _topk(ranked, q["gold"])
                for k in KS:
                    anyk[k].append(a[k])
                    allk[k].append(b[k])
            top = {k: round(100 * statistics.fmean(v), 2) for k, v in anyk.items()}
            row[rname] = {
                "top": top,
                "avg": round(statistics.fmean(top.values()), 2),
                "all": {k: round(100 * statistics.fmean(v), 2) for k, v in allk.items()},
                "latency_ms_p50": round(statistics.median(lat), 2),
            }
        results[case] = row
        idx.close()
    res = {
        "label": label or Path(str(corpus)).stem,
        "corpus": str(src),
        "questions": len(qs),
        "expansions": str(expansions) if expansions else None,
        "expansion_model": next(iter(exps.values())).model if exps else None,
        "expanded": len(exps),
        "note": note,
        "retrievers": retrievers,
        "cases": results,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    res["markdown"] = markdown(res)
    if out:
        o = Path(out)
        o.mkdir(parents=True, exist_ok=True)
        stem = res["label"]
        (o / f"{stem}.json").write_text(json.dumps({k: v for k, v in res.items() if k != "markdown"},
                                                   ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        (o / f"{stem}.md").write_text(res["markdown"] + "\n", encoding="utf-8")
    return res


def _restrict(src: Path, qs: list[dict], exps: dict, work: Path) -> tuple[Path, list[dict], str]:
    """The corpus cut to its expanded passages; the questions whose gold passages are all in it."""
    from gaji.corpus.readers import read_documents
    from gaji.io import atomic_write_text

    docs, _ = read_documents([src], skip_bad=True)
    keep = [d for d in docs if d.id in exps]
    ids = {d.id for d in keep}
    q2 = [q for q in qs if all(g in ids for g in q["gold"])]
    work.mkdir(parents=True, exist_ok=True)
    path = work / "expanded-corpus.jsonl"
    text = "".join(json.dumps({"id": d.id, "title": d.title, "text": d.text}, ensure_ascii=False) + "\n" for d in keep)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return path, q2, (f"restricted to the {len(keep)} expanded passages of {len(docs)} and the {len(q2)} of "
                      f"{len(qs)} questions whose gold passages are all among them")


def _chunk_keywords(idx, tagger: str) -> dict[str, Any]:
    """The chunk-keywords file of a case index (the +kwf filter's metadata), made with `tagger` if missing."""
    from gaji.expand.chunk_keywords import keywords_path, read_chunk_keywords, write_chunk_keywords
    from gaji.expand.keyword_source import load_tagger_cached

    path = keywords_path(idx.path)
    head = path.read_text(encoding="utf-8").split("\n", 1)[0] if path.exists() else ""
    if head and json.loads(head).get("source", {}).get("tagger") == str(tagger):
        got = read_chunk_keywords(path)
        return {"chunks": len(got), "keywords": sum(len(v) for v in got.values()), "reused": True}
    t0 = time.perf_counter()
    st = write_chunk_keywords(idx, load_tagger_cached(str(tagger)).keywords, source={"tagger": str(tagger)})
    return {"chunks": st["chunks"], "keywords": st["keywords"], "seconds": round(time.perf_counter() - t0, 2)}


def _stale(idx, exps: dict) -> bool:
    """Whether a cached expanded index was built from other expansions than `exps`."""
    n = int(idx.manifest.stats.get("expanded_chunks", -1) or 0)
    have = sum(1 for c in idx.iter_chunks() if c.id in exps)
    return n != have


def markdown(res: dict[str, Any]) -> str:
    from gaji.expand.compose import CASE_HELP

    lines = [f"**{res['label']}** ({res['questions']} questions, expansions: {res.get('expansion_model')}, "
             f"{res['expanded']} expanded chunks)", ""]
    for rname in res["retrievers"]:
        lines += [f"{rname}:", "", "| case | composition | Top@1 | Top@3 | Top@5 | Top@10 | Avg | all@10 | dense MB |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for case, row in res["cases"].items():
            m = row[rname]
            lines.append(
                f"| {case} | {CASE_HELP.get(case, 'chunk, no delimiters (gaji default)')} | "
                + " | ".join(f"{m['top'][k]:.1f}" for k in KS)
                + f" | {m['avg']:.1f} | {m['all'][10]:.1f} | {row['bytes']['dense'] / 1e6:.2f} |"
            )
        lines.append("")
    return "\n".join(lines)
