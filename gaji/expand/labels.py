"""Keyword labels: teacher BIO labels from an LLM (append-only JSONL, resumable), reading them back, the keywords
of one query, and keyword metadata per chunk of an index (the +kwf retrievers' filter).

    gaji expand label koblex --out runs/kw-teacher.jsonl --llm local:small   -> label_teacher(...)
    gaji expand keywords "대기오염경보의 대상 오염물질은?" --tagger runs/tagger   -> query_keywords(...)
    gaji expand chunk-keywords runs/kb --tagger runs/tagger                  -> index_chunk_keywords(...)
"""
from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError

from .keywords import Morpheme, TaggedQuery

__all__ = ["read_tagged", "label_queries", "teacher_queries", "label_teacher", "query_keywords",
           "index_chunk_keywords"]


def read_tagged(paths: Iterable[str | Path]) -> list[TaggedQuery]:
    """The labelled queries of JSONL files from `gaji expand label`; a bad record is an InputError (file, line)."""
    from gaji.errors import InputError
    from gaji.io import iter_jsonl

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

    from gaji.io import append_jsonl, read_jsonl_tolerant

    p = Path(out_path)
    done = {r["query"] for r in read_jsonl_tolerant(p) if "query" in r}  # a torn last line is skipped and reported
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



def label_teacher(queries: Sequence[str], out: str | Path, *, llm: str | None = None, parallel: int | None = None,
                  threads: int | None = None, time_limit: float | None = None) -> dict[str, Any]:
    """Teacher labels of `queries` from the LLM `llm` (default: the settings'), appended to `out`; returns
    {"model", "labelled", "failed", "skipped", "no_keyword_found", "seconds"}."""
    from gaji.config import load_settings
    from gaji.llm.factory import make_llm

    from .keywords import KeywordTeacher

    s = load_settings({"llm": llm, "parallel": parallel, "threads": threads})
    backend = make_llm(s.llm, parallel=s.parallel, ctx_size=s.ctx_size, threads=s.threads)
    stats = label_queries(KeywordTeacher(backend), list(queries), out, parallel=backend.parallel_slots,
                          time_limit=time_limit)
    return {"model": backend.name, **stats}


def query_keywords(query: str, *, tagger: str | None = None, llm: str | None = None
                   ) -> tuple[list[Morpheme], list[str]]:
    """The morphemes of `query` and their BIO labels: from the LLM `llm` (the teacher) when given, else from the
    trained tagger in `tagger` (default $GAJI_TAGGER)."""
    if llm:
        from gaji.llm.factory import make_llm

        from .keywords import KeywordTeacher

        tq = KeywordTeacher(make_llm(llm)).label(query)
        return tq.morphemes, tq.labels
    from .tagger import KeywordTagger

    path = tagger or os.environ.get("GAJI_TAGGER")
    if not path:
        raise ConfigError("give --tagger DIR (or $GAJI_TAGGER), or --llm for the teacher")
    return KeywordTagger.load(path).predict(query)


def index_chunk_keywords(index: str | Path, tagger: str | None = None) -> dict[str, Any]:
    """Tag the candidate questions of every expanded chunk of the index with the tagger in `tagger` (default
    $GAJI_TAGGER) into <index>/expand/keywords.jsonl; returns the counts and the seconds taken."""
    from gaji.index.store import open_index

    from .chunk_keywords import write_chunk_keywords
    from .keyword_source import keyword_fn

    fn = keyword_fn(tagger)
    idx = open_index(index)
    try:
        t0 = time.perf_counter()
        st = write_chunk_keywords(idx, fn, source={"tagger": str(tagger or "$GAJI_TAGGER")})
        st["seconds"] = round(time.perf_counter() - t0, 2)
    finally:
        idx.close()
    return st
