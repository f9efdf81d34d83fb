"""The record of one `gaji eval` run directory: what was run, its sittings, and where to resume.

    run.json        what was run (dataset, method, options, model, retrieval, scoring), its fingerprint,
                    its sittings, its status, and the summary once finished
    results.jsonl   one line per finished question; the last line per id wins

A directory holds one configuration: the fingerprint (the fields a result depends on) is kept in run.json,
and a run with another fingerprint is refused there. A sitting is one process that ran questions of the
run. run.json is rewritten after every question with the sitting so far, so a sitting still "running"
when the next process reads it was killed, and its last update is its time.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji import __version__
from gaji.errors import ConfigError
from gaji.eval.datasets import Dataset, EvalItem
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant
from gaji.io import atomic_write_json, remove_log

RUN_FILES = ("results.jsonl", "traces.jsonl", "summary.json", "run.json")


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds")


def machine_info() -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
    }


def slug(text: str) -> str:
    """`text` as a file-name part: letters, digits, '-', '_' and '.', at most 80 characters."""
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text)
    return "-".join(p for p in keep.split("-") if p)[:80] or "x"


def default_out_dir(dataset: str, method: str, llm: str, options: dict[str, Any]) -> Path:
    name = f"{slug(dataset)}-{slug(method)}-{slug(llm)}"
    if options:
        name += "-" + hashlib.sha1(json.dumps(options, sort_keys=True, default=str).encode()).hexdigest()[:6]
    return Path("runs") / "eval" / name


def describe_backend(backend: Any) -> dict:
    try:
        return json.loads(json.dumps(backend.describe(), default=str))
    except Exception:  # noqa: BLE001 - description is informational
        return {"name": getattr(backend, "name", "?")}


@dataclass
class Retrieval:
    """How a run retrieves: the settings' retriever with its checked options, the k the method uses, the index."""

    retriever: str | None
    options: dict[str, Any]
    k: int | None
    index: str | None


@dataclass
class RunSetup:
    """What a run resolved before its first question; its fingerprint and run.json are made from it."""

    dataset: Dataset
    method: str
    options: dict[str, Any]  # the method's full options, as JSON values
    raw_options: dict[str, Any]  # as given (`-o key=value`)
    llm: str
    lang: str | None
    limit: int | None
    ids: tuple[str, ...] | None
    ks: tuple[int, ...]
    gold_match: str
    judge: dict[str, Any] | None  # {"on", "llm", "k"} with --judge
    toq_eval: bool
    retrieval: Retrieval | None  # None: the method runs without an index
    # the method's option defaults, as JSON values: an option added to the method since a run was recorded, at its
    # default, leaves the run's configuration the same (it resumes)
    option_defaults: dict[str, Any] = field(default_factory=dict)

    def same_options(self, recorded: Any) -> bool:
        """Are `recorded` options (an earlier sitting's) this run's, allowing options added since at their default?"""
        new = self.options
        if not isinstance(recorded, dict) or not set(recorded) <= set(new):
            return recorded == new
        return all(recorded[k] == new[k] for k in recorded) and all(
            k in self.option_defaults and new[k] == self.option_defaults[k] for k in set(new) - set(recorded))

    def fingerprint(self) -> dict[str, Any]:
        """The fields a result depends on; a directory with another fingerprint is another run."""
        r = self.retrieval
        return {
            "dataset_sha256": self.dataset.sha256,
            "method": self.method,
            "options": self.options,
            "llm": self.llm,
            "retriever": r.retriever if r else None,
            "k": r.k if r else None,
            "lang": self.lang,
            "ks": list(self.ks),
            "gold_match": self.gold_match,
            "judge": self.judge,
            "toq_eval": self.toq_eval,
            **({"ids": sorted(self.ids)} if self.ids else {}),
            **({"retriever_options": r.options} if r and r.options else {}),
        }


@dataclass
class ResumeState:
    records: dict[str, dict]  # this run's finished questions by id (the last result line of each)
    todo: list[EvalItem]  # questions still to run, in question order


class Sittings:
    """The sittings of a run: the ones run.json lists (one still "running" there was killed) and this one."""

    def __init__(self, recorded: list[Any], started: str):
        self.earlier = [({**x, "status": "killed"} if x.get("status") == "running" else x)
                        for x in recorded if isinstance(x, dict)]
        self.started = started
        self.questions = 0  # answered in this sitting
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def current(self, status: str, elapsed_s: float) -> dict[str, Any]:
        return {"started": self.started, "ended": now_iso(), "questions": self.questions,
                "elapsed_s": round(elapsed_s, 2), "status": status}

    def so_far(self) -> list[dict[str, Any]]:
        """Every sitting, this one "running" with its time so far."""
        return [*self.earlier, self.current("running", self.elapsed())]

    def end(self, status: str, ran: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(every sitting, the summary's time and throughput fields) as this sitting ends. A sitting with no
        question to run (a resume of a finished run) is not listed."""
        elapsed = self.elapsed()
        sittings = [*self.earlier, self.current(status, elapsed)] if ran else list(self.earlier)
        # earlier sittings as recorded (rounded), this one unrounded: a sitting under 5 ms still counts
        total_s = sum(float(x.get("elapsed_s") or 0) for x in self.earlier) + (elapsed if ran else 0.0)
        total_q = sum(int(x.get("questions") or 0) for x in sittings)
        n = self.questions
        return sittings, {
            "elapsed_s": round(elapsed, 2),
            "questions_this_session": n,
            "questions_per_hour": round(n / elapsed * 3600, 1) if elapsed > 0 and n else None,
            # all sittings of a resumed run; runs from before sittings were kept count only the sittings since
            "elapsed_total_s": round(total_s, 2),
            "sittings": len(sittings),
            "questions_per_hour_total": round(total_q / total_s * 3600, 1) if total_s > 0 and total_q else None,
        }


class RunRecord:
    """run.json of one run directory, and its resume state."""

    def __init__(self, out: Path, setup: RunSetup):
        self.out = out
        self.setup = setup
        self.fingerprint = setup.fingerprint()
        self.previous: dict[str, Any] = {}  # run.json as the last sitting left it (load)

    @property
    def path(self) -> Path:
        return self.out / "run.json"

    def refuse_another_configuration(self, restart_flag: str) -> None:
        old = _read_json(self.path)
        recorded = old.get("fingerprint", {})
        diff = [k for k in self.fingerprint if recorded.get(k) != self.fingerprint[k]
                and not (k == "options" and self.setup.same_options(recorded.get(k)))]
        if old and diff:
            raise ConfigError(
                f"{self.out} holds a run with another configuration ({', '.join(diff)} differ); "
                f"use another --out, or {restart_flag} to start it again"
            )

    def clear(self) -> None:
        """Start the run again: its results, traces, summary and record go."""
        for name in RUN_FILES:
            remove_log(self.out / name)

    def resume(self, items: list[EvalItem], retry_errors: bool) -> ResumeState:
        """Questions with a result line are done; crashed ones are run again only with `retry_errors`. An
        answered question whose trace line is missing or unreadable (traces.jsonl torn where results.jsonl
        is not) is run again, so its trace is written anew."""
        done = latest_by_id(read_jsonl_tolerant(self.out / "results.jsonl"))
        traces_path = self.out / "traces.jsonl"
        traced = ({str(t["id"]) for t in read_jsonl_tolerant(traces_path) if "id" in t}
                  if traces_path.exists() else None)  # None: no trace file to check (e.g. kept compressed)

        def needs_run(it: EvalItem) -> bool:
            rec = done.get(it.id)
            if rec is None:
                return True
            if rec.get("status") == "error":
                return retry_errors
            return traced is not None and it.id not in traced

        wanted = {it.id for it in items}
        todo = [it for it in items if needs_run(it)]
        return ResumeState({k: v for k, v in done.items() if k in wanted}, todo)

    def load(self) -> None:
        self.previous = _read_json(self.path)

    def begin(self) -> str:
        """The start of this sitting (also the run's creation time when it is the first)."""
        started = now_iso()
        self.previous.setdefault("created_at", started)
        return started

    def write(self, status: str, *, backend: Any, evaluator: dict | None, cache: bool, concurrency: int | None,
              notes: list[str], summary: dict | None = None) -> None:
        """run.json. `backend` is the generator's (None when no question ran in this sitting: the model
        description of the previous sitting is kept, as is its `evaluator` when none is given)."""
        s, prev, r, ds = self.setup, self.previous, self.setup.retrieval, self.setup.dataset
        atomic_write_json(self.path, {
            "gaji_version": __version__,
            "created_at": prev.get("created_at") or now_iso(),
            "updated_at": now_iso(),
            "sittings": prev.get("sittings", []),  # one entry per session that ran questions (resumes add one)
            "status": status,
            "dataset": {
                "name": ds.name,
                "path": str(ds.path.resolve()),
                "format": ds.format,
                "sha256": ds.sha256,
                "questions": len(ds.items),
                "corpus": str(ds.corpus_path) if ds.corpus_path else (
                    f"(the {ds.corpus_name} paragraphs)" if ds.corpus_name
                    else "(paragraphs in the question file)" if ds.documents else None),
                "long_form": ds.long_form,
            },
            "method": s.method,
            "options": s.options,
            "raw_options": s.raw_options,
            "llm": s.llm,
            "model": backend.name if backend is not None else prev.get("model"),
            "backend": describe_backend(backend) if backend is not None else prev.get("backend"),
            "retriever": r.retriever if r else None,
            "retriever_options": r.options if r else {},
            "k": r.k if r else None,
            "index": r.index if r else None,
            "lang": s.lang,
            "cache": cache,
            "limit": s.limit,
            "concurrency": concurrency,
            "ks": list(s.ks),
            "gold_match": s.gold_match,
            "evaluator": evaluator if evaluator is not None else prev.get("evaluator"),
            "machine": machine_info(),
            "command": " ".join(["gaji"] + sys.argv[1:]) if sys.argv and sys.argv[0].endswith("gaji") else None,
            "notes": notes or prev.get("notes") or [],
            "fingerprint": self.fingerprint,
            "summary": summary,
        })


def _read_json(path: Path) -> dict[str, Any]:
    """A run.json as written, {} when there is none or it is not JSON (a run torn before its first write)."""
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return {}
