"""LLM-judge pass rates of generated chunk knowledge (paper 001, Appendix A.1-A.3; `gaji expand judge`).

For every chunk with an expansion, the judge rules on its title (A.2) and on its question set (A.3); for
keyword-labelled queries, on their keywords (A.1). A second expansions file can be given as the reference
("정답 … (참고용)"), e.g. the LLM's expansions when judging the multi-task model's. Verdicts are appended
to a JSONL file as they come (a rerun skips what is judged), and the summary is the pass rate per kind.
A judge call that fails after its retries is recorded as an error, not a verdict.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from gaji.errors import GajiError
from gaji.eval.metrics.cost import call_cost
from gaji.expand.judge_prompts import JUDGE_SCHEMA, judge_messages, question_set
from gaji.io import append_jsonl, read_jsonl_tolerant
from gaji.llm.tracked import TrackedLLM
from gaji.text.lang import resolve_lang
from gaji.types import Node

KINDS = ("title", "questions", "keywords")


@dataclass
class JudgeTask:
    """One item to judge: `item` in the chunk (title, questions) or query (keywords) it came from."""

    kind: str
    id: str
    item: str
    chunk: str = ""
    query: str = ""
    reference: str = ""
    lang: str = ""


@dataclass
class Verdict:
    kind: str
    id: str
    verdict: str | None  # "pass" | "fail"; None when the judge call failed
    reasoning: str = ""
    error: str = ""
    tokens: int = 0
    seconds: float = 0.0
    lang: str = ""  # the prompt's language ("ko" | "en"): pass rates are reported per language too

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ExpansionJudge:
    """Judges one JudgeTask with the paper's prompt for its kind."""

    def __init__(self, llm: Any, max_tokens: int = 320):
        self.llm = llm if isinstance(llm, TrackedLLM) else TrackedLLM(llm, keep_prompts=False)
        self.max_tokens = max_tokens

    def judge(self, task: JudgeTask) -> Verdict:
        lang = resolve_lang(task.lang, task.chunk or task.query or task.item)
        node = Node(question=task.item, kind="judge")
        msgs = judge_messages(task.kind, lang, item=task.item, reference=task.reference, chunk=task.chunk,
                              query=task.query)
        t0 = time.perf_counter()
        try:
            obj = self.llm.json(node, f"judge-{task.kind}", msgs, schema=JUDGE_SCHEMA, max_tokens=self.max_tokens)
            verdict = str(obj.get("verdict", "")).strip().lower()
            out = Verdict(task.kind, task.id, verdict if verdict in ("pass", "fail") else None,
                          reasoning=str(obj.get("reasoning", "")),
                          error="" if verdict in ("pass", "fail") else f"no verdict in {obj!r:.80}")
        except GajiError as e:
            out = Verdict(task.kind, task.id, None, error=str(e))
        out.tokens = int(call_cost(node.calls)["tokens"])
        out.seconds = round(time.perf_counter() - t0, 2)
        out.lang = lang
        return out


def expansion_tasks(chunks: dict[str, str], expansions: dict[str, Any], reference: dict[str, Any] | None = None,
                    kinds: Sequence[str] = ("title", "questions"), chunk_chars: int = 1500) -> list[JudgeTask]:
    """Title and question-set tasks for every expanded chunk whose text is known (chunk id -> text)."""
    tasks = []
    for cid, e in expansions.items():
        if cid not in chunks:
            continue
        ref = (reference or {}).get(cid)
        text = chunks[cid][:chunk_chars]
        if "title" in kinds and e.title:
            tasks.append(JudgeTask("title", cid, e.title, chunk=text, reference=ref.title if ref else "",
                                   lang=e.lang))
        if "questions" in kinds and e.questions:
            tasks.append(JudgeTask("questions", cid, question_set(list(e.questions)), chunk=text,
                                   reference=question_set(list(ref.questions)) if ref else "", lang=e.lang))
    return tasks


def keyword_tasks(rows: Iterable[dict[str, Any]]) -> list[JudgeTask]:
    """Keyword tasks from `gaji expand label` records ({"query", "keywords", "lang"}; "reference" optional)."""
    return [JudgeTask("keywords", r["query"], ", ".join(r.get("keywords") or []) or "-", query=r["query"],
                      reference=r.get("reference", ""), lang=r.get("lang", "")) for r in rows if r.get("query")]


def judge_tasks(corpus: Sequence[str] = (), *, expansions: str | None = None, reference: str | None = None,
                kinds: Sequence[str] = ("title", "questions"), keywords: str | None = None,
                tagger: str | None = None) -> list[JudgeTask]:
    """The tasks of `gaji expand judge`: the `kinds` (title, questions) of the expansions file `expansions` of the
    chunks of `corpus` (`reference`: expansions shown as the reference), and the keywords of the label file
    `keywords` (with `tagger`: that tagger's keywords for the same queries, the labels' as the reference)."""
    from gaji.errors import ConfigError

    from .index_hook import load_expansions

    if not expansions and not keywords:
        raise ConfigError("nothing to judge: give --expansions (with the corpus) and/or --keywords")
    tasks: list[JudgeTask] = []
    if expansions:
        if not corpus:
            raise ConfigError("--expansions needs the corpus they were made from (positional CORPUS)")
        bad = sorted(set(kinds) - {"title", "questions"})
        if bad:
            raise ConfigError(f"--what: unknown kind(s) {', '.join(bad)}; known: title, questions")
        tasks += expansion_tasks(_chunk_texts(corpus), load_expansions(expansions),
                                 load_expansions(reference) if reference else None, kinds)
    if keywords:
        rows = [r for _, r in iter_jsonl(keywords)]
        if tagger:
            from .tagger import KeywordTagger

            tagged = KeywordTagger.load(tagger)
            rows = [{**r, "reference": ", ".join(r.get("keywords") or []), "keywords": tagged.keywords(r["query"])}
                    for r in rows if r.get("query")]
        tasks += keyword_tasks(rows)
    if not tasks:
        raise ConfigError("no item to judge (do the expansions' chunk ids belong to this corpus?)")
    return tasks


def _chunk_texts(corpus: Sequence[str]) -> dict[str, str]:
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.index.sources import chunk_all, resolve_sources

    docs, _ = read_documents(resolve_sources(list(corpus)), skip_bad=True)
    return {c.id: (f"{c.title}\n{c.text}" if c.title else c.text) for c in chunk_all(docs, ChunkingConfig())}


def done_keys(path: str | Path) -> set[tuple[str, str]]:
    """(kind, id) of every verdict already in `path` (errors are retried)."""
    p = Path(path)
    if not p.exists():
        return set()
    return {(r["kind"], r["id"]) for r in read_jsonl_tolerant(p) if r.get("verdict") in ("pass", "fail")}


def run_judge(judge: ExpansionJudge, tasks: Sequence[JudgeTask], out: str | Path, parallel: int = 1,
              limit: int | None = None, time_limit: float | None = None) -> dict[str, Any]:
    """Judge the tasks not yet in `out` (at most `limit` per kind), appending each verdict; the summary covers
    every verdict in the file."""
    done = done_keys(out)
    counts = {k: sum(1 for kind, _ in done if kind == k) for k in KINDS}
    todo: list[JudgeTask] = []
    for t in tasks:
        if (t.kind, t.id) in done or (limit is not None and counts.get(t.kind, 0) >= limit):
            continue
        counts[t.kind] = counts.get(t.kind, 0) + 1
        todo.append(t)
    t0 = time.perf_counter()

    def one(t: JudgeTask) -> Verdict | None:
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            return None
        return judge.judge(t)

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        for v in pool.map(one, todo):
            if v is not None:
                append_jsonl(out, v.to_dict())
    return summarize(out)


def summarize(path: str | Path) -> dict[str, Any]:
    """Pass rate per kind over the latest verdict of each (kind, id) in a verdicts file."""
    latest: dict[tuple[str, str], dict] = {}
    for r in read_jsonl_tolerant(Path(path)):  # an interrupted run may have torn the last line
        key = (r["kind"], r["id"])
        if r.get("verdict") in ("pass", "fail") or key not in latest:
            latest[key] = r
    out: dict[str, Any] = {}
    for kind in KINDS:
        rows = [r for (k, _), r in latest.items() if k == kind]
        if not rows:
            continue
        judged = [r for r in rows if r.get("verdict") in ("pass", "fail")]
        out[kind] = {"judged": len(judged), "errors": len(rows) - len(judged), "pass_rate": _pass_rate(judged),
                     "tokens_per_item": round(sum(r.get("tokens", 0) for r in judged) / len(judged), 1) if judged else None,
                     "seconds_per_item": round(sum(r.get("seconds", 0.0) for r in judged) / len(judged), 2) if judged else None}
        langs = sorted({r.get("lang") for r in judged if r.get("lang")})
        if len(langs) > 1:  # a judge can be good in one language and blind in the other: show them apart
            by_lang = {lang: [r for r in judged if r.get("lang") == lang] for lang in langs}
            out[kind]["by_lang"] = {lang: {"judged": len(rs), "pass_rate": _pass_rate(rs)}
                                    for lang, rs in by_lang.items()}
    return out


def _pass_rate(judged: list[dict]) -> float | None:
    return round(sum(r["verdict"] == "pass" for r in judged) / len(judged), 4) if judged else None
