"""`gaji bench build`: how soon a corpus is searchable after `gaji index build` starts, with BM25 and with hybrid.

    gaji bench build --corpus hotpotqa                       # waits for the vectors too
    gaji bench build --corpus hotpotqa --fill-seconds 60     # stops the fill after a minute, reports its rate

`gaji index build CORPUS --out WORK` runs as another process, exactly as a user starts it. This process
(analyser and index code loaded beforehand, so its own start-up is not counted) tries a BM25 search of the
new index every `poll_s` seconds: the first search that returns passages is the time to BM25-searchable,
counted from the moment the build process was started. It then waits until a hybrid search is answered by
hybrid (the vectors are complete): the time to hybrid. With `fill_seconds`, the build is interrupted
(SIGINT, as Ctrl-C) once it has filled vectors that long, and the rate and ETA it wrote in progress.json
stand in for the time to hybrid (the index stays searchable with BM25; `gaji index fill WORK` resumes it).
"""
from __future__ import annotations

import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["run_build_bench", "markdown", "TARGET_BM25_S"]

TARGET_BM25_S = 30.0


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _first_title(corpus: Path) -> str:
    from gaji.corpus.readers import read_documents

    docs, _ = read_documents([corpus], limit=1)
    return docs[0].title or docs[0].text[:80]


def _search(work: Path, retriever: str, query: str) -> str | None:
    """The source of the first passage a search of the index at `work` returns (None: not searchable yet)."""
    from gaji.errors import GajiError
    from gaji.index.store import open_index

    try:
        hits = open_index(work).retriever(retriever).search(query, 5)
    except (GajiError, OSError, ValueError):
        return None
    return hits[0].source if hits else None


def _warm(korean_analyzer: str) -> None:
    """Load what a search needs in this process before the clock starts (the analyser above all)."""
    from gaji.index.dense import get_embedder
    from gaji.index.store import open_index  # noqa: F401
    from gaji.text.analyzers import default_analyzer

    get_embedder()  # opening an index checks its embedder is here

    a = default_analyzer(korean_analyzer)
    if hasattr(a, "warmup"):
        a.warmup()


def _stop(proc: subprocess.Popen, timeout: float = 60.0) -> int | None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def _wait_bm25(proc: subprocess.Popen, work: Path, query: str, t0: float, poll_s: float, limit_s: float) -> float | None:
    while time.perf_counter() - t0 < limit_s:
        if _search(work, "bm25", query) is not None:
            return time.perf_counter() - t0
        if proc.poll() is not None and not (work / "manifest.json").exists():
            return None  # the build failed before publishing
        time.sleep(poll_s)
    return None


def _wait_hybrid(proc: subprocess.Popen, work: Path, query: str, t0: float, t_bm25: float,
                 fill_seconds: float | None) -> tuple[float | None, bool]:
    """(time to hybrid or None, whether the fill was stopped)."""
    while True:
        if _search(work, "hybrid", query) == "hybrid":
            return time.perf_counter() - t0, False
        if proc.poll() is not None:
            return (time.perf_counter() - t0 if _search(work, "hybrid", query) == "hybrid" else None), False
        if fill_seconds is not None and time.perf_counter() - t0 - t_bm25 >= fill_seconds:
            return None, True
        time.sleep(1.0)


def run_build_bench(corpus: str = "hotpotqa", work: str | Path = ".gaji/bench/build", fill_seconds: float | None = None,
                    poll_s: float = 0.1, korean_analyzer: str = "auto", extra: list[str] | None = None,
                    limit_s: float = 600.0) -> dict[str, Any]:
    """Time `gaji index build` of `corpus` into `work` (replaced) to BM25-searchable and to hybrid."""
    from gaji.corpus.shared_data import resolve_corpus
    from gaji.index.progress_file import read_progress
    from gaji.index.store import open_index

    src = Path(resolve_corpus(corpus))
    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    query = _first_title(src)
    _warm(korean_analyzer)
    cmd = [sys.executable, "-m", "gaji.cli.main", "index", "build", str(src), "--out", str(work), "--no-progress",
           "--korean-analyzer", korean_analyzer, *(extra or [])]
    work.parent.mkdir(parents=True, exist_ok=True)
    log = open(work.parent / f"{work.name}.log", "wb")  # the build's own output, for a person to read after
    load0 = _load()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        t_bm25 = _wait_bm25(proc, work, query, t0, poll_s, limit_s)
        t_hybrid, stopped = (None, False) if t_bm25 is None else _wait_hybrid(proc, work, query, t0, t_bm25, fill_seconds)
        prog = read_progress(work) or {}
    finally:
        rc = _stop(proc)
        log.close()
    m = open_index(work).manifest if t_bm25 is not None else None
    return _result(corpus, cmd, query, t_bm25, t_hybrid, stopped, prog, m, rc, load0, fill_seconds)


def _result(corpus: str, cmd: list[str], query: str, t_bm25: float | None, t_hybrid: float | None, stopped: bool,
            prog: dict[str, Any], m: Any, rc: int | None, load0: list[float], fill_seconds: float | None) -> dict:
    stats = dict(m.stats) if m is not None else {}
    keep = ("read_s", "chunk_s", "analyzer_load_s", "analyze_s", "lexical_index_s", "searchable_s")
    fill = {k: prog.get(k) for k in ("stage", "done", "total", "rate", "eta_s")}
    est = None
    if stopped and t_bm25 is not None and prog.get("eta_s") is not None:
        est = round(t_bm25 + float(fill_seconds or 0) + float(prog["eta_s"]), 1)
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform()},
        "corpus": corpus, "passages": (m.counts.get("chunks") if m is not None else None),
        "command": " ".join(["gaji", *cmd[3:]]), "query": query,
        "bm25_searchable_s": None if t_bm25 is None else round(t_bm25, 2),
        "target_bm25_s": TARGET_BM25_S, "met": t_bm25 is not None and t_bm25 < TARGET_BM25_S,
        "hybrid_s": None if t_hybrid is None else round(t_hybrid, 1),
        "fill_stopped_after_s": fill_seconds if stopped else None, "fill": fill,
        "hybrid_estimated_s": est, "build_stats": {k: stats[k] for k in keep if k in stats},
        "build_exit_code": rc, "load_before": load0, "load_after": _load(),
    }


def markdown(res: dict[str, Any]) -> str:
    f = res["fill"]
    rate = f"{f['rate']:.2f} passages/s" if f.get("rate") else "?"
    hybrid = (f"{res['hybrid_s']} s" if res["hybrid_s"] is not None else
              f"not reached: fill stopped after {res['fill_stopped_after_s']} s at {f.get('done')}/{f.get('total')} "
              f"passages; estimated {res['hybrid_estimated_s']} s")
    lines = [f"`{res['command']}`, {res['date']}, {res['machine']['cores']} cores, load average "
             f"{' / '.join(map(str, res['load_before']))} before, {' / '.join(map(str, res['load_after']))} after", "",
             "| corpus | passages | BM25-searchable s (target < 30) | hybrid s | embedding rate | build stages (s) |",
             "|---|---:|---:|---|---:|---|",
             f"| {res['corpus']} | {res['passages']} | {res['bm25_searchable_s']} ({'met' if res['met'] else 'NOT met'}) "
             f"| {hybrid} | {rate} | " + ", ".join(f"{k} {v}" for k, v in res["build_stats"].items()) + " |"]
    return "\n".join(lines) + "\n"
