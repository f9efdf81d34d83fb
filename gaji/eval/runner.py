"""`gaji eval`: run a method over a question set and score every answer.

    cfg = EvalConfig(data="hotpotqa", method="oner", limit=50)
    summary = EvalRun(cfg, settings).run()

The run directory (`--out`, default `runs/eval/<dataset>-<method>-<llm>`) holds

    run.json        what was run: method, options, model, retriever, k, dataset path + sha256,
                    gaji version, date, machine; status; the summary when finished
    results.jsonl   one line per question, written as it finishes: prediction, gold, status/error,
                    metrics, trace summary
    traces.jsonl    the full Trace of every question (+ the evaluators' LLM calls)
    summary.json    the metric means, throughput, errors

Running again with the same `--out` resumes: finished questions (those with a result line) are not
redone; crashed ones are redone only with `--retry-errors`. A different configuration in an existing
directory is refused unless `--overwrite`.

Questions run concurrently on `--concurrency` threads (default: the LLM's parallel slots), so the
embedded backend batches them across its slots. A question that crashes is recorded with its error
(answer metrics 0) and the run goes on.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import importlib
import json
import os
import platform
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gaji import __version__
from gaji.config import Settings
from gaji.errors import ConfigError, GajiError
from gaji.eval.datasets import Dataset, EvalItem, load_dataset
from gaji.eval.metrics.answer import answer_scores
from gaji.eval.metrics.cost import call_cost, cost_metrics
from gaji.eval.metrics.retrieval import DEFAULT_KS, RetrievedDoc, dedupe_docs, retrieval_scores
from gaji.eval.metrics.rouge import rouge_l
from gaji.eval.summary import (
    format_value,
    latest_by_id,
    metric_label,
    read_jsonl_tolerant,
    summarize,
)
from gaji.io import append_jsonl, atomic_write_json
from gaji.progress import Bars, Task
from gaji.types import Node, Passage, Trace

INDEX_CACHE = Path(".gaji") / "indexes"


@dataclass
class EvalConfig:
    data: str  # dataset name or path
    method: str
    options: dict[str, Any] = field(default_factory=dict)  # raw `-o key=value` method options
    out: str | None = None
    limit: int | None = None
    ids: tuple[str, ...] | None = None  # only these question ids (after --limit): reruns of a subset
    concurrency: int | None = None  # None: the LLM's parallel slots
    ks: tuple[int, ...] = DEFAULT_KS
    gold_match: str = "auto"  # auto | id | title
    toq_eval: bool = False
    judge: bool = False
    judge_llm: str | None = None  # None: the generator judges itself (biased; said in the output)
    judge_k: int = 3
    retry_errors: bool = False
    overwrite: bool = False
    restart_flag: str = "--overwrite"  # how the calling command spells "start again" (gaji bench run: --fresh)
    progress: bool = True
    index_cache: str = str(INDEX_CACHE)


def _slug(text: str) -> str:
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text)
    return "-".join(p for p in keep.split("-") if p)[:80] or "x"


def default_out_dir(dataset: str, method: str, llm: str, options: dict[str, Any]) -> Path:
    name = f"{_slug(dataset)}-{_slug(method)}-{_slug(llm)}"
    if options:
        name += "-" + hashlib.sha1(json.dumps(options, sort_keys=True, default=str).encode()).hexdigest()[:6]
    return Path("runs") / "eval" / name


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds")


def machine_info() -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
    }


class EvalRun:
    """One evaluation run; `run()` returns the summary (also written to summary.json)."""

    def __init__(
        self,
        cfg: EvalConfig,
        settings: Settings,
        gaji: Any = None,
        judge_backend: Any = None,
        toq_factory: Callable | None = None,
        console: Any = None,
        build_index: Callable | None = None,
    ):
        self.cfg = cfg
        self.s = settings
        self._gaji = gaji
        self._judge_backend = judge_backend
        self._toq_factory = toq_factory
        self._build_index = build_index
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self.dataset: Dataset | None = None
        self.out: Path | None = None
        self.notes: list[str] = []
        self._uses_index = True  # set in setup: the method retrieves (always, or optionally and a corpus is there)
        self._concurrency: int | None = None
        self._built: Any = None  # the generator backend, once built
        self._opts: dict = {}
        self._fp: dict = {}
        self._owns_gaji = gaji is None
        self._owns_judge = False
        self._unindexed: set[str] = set()  # corpus ids left out of the auto-built index (records without text)
        self._retriever_options: dict[str, Any] = {}  # the retriever's checked options (Gaji.retriever_options)

    # -- setup ---------------------------------------------------------------
    @property
    def gaji(self):
        if self._gaji is None:
            from gaji.api import Gaji

            self._gaji = Gaji(settings=self.s)
        return self._gaji

    def _backend(self):
        """The generator backend; the response cache is dropped (with a note) if not installed."""
        if self._built is not None:
            return self._built
        g = self.gaji
        try:
            self._built = g.backend
        except ModuleNotFoundError as e:
            if e.name != "gaji.llm.cache":
                raise
            self.notes.append("LLM response cache unavailable (gaji.llm.cache missing): running without it")
            g.settings.cache = False
            self._built = g.backend
        return self._built

    def _judge(self):
        if self._judge_backend is not None:
            return self._judge_backend, False
        spec = self.cfg.judge_llm
        if not spec or spec == self.s.llm:
            return self._backend(), True
        from gaji.llm.factory import llm_from_settings

        self._owns_judge = True
        self._judge_backend = llm_from_settings(self.s, spec, cache=self.gaji.settings.cache)
        return self._judge_backend, False

    def close(self) -> None:
        """Release what this run built (the LLM backends); a Gaji passed in is left open."""
        if self._owns_judge and self._judge_backend is not None:
            self._judge_backend.close()
            self._judge_backend = None
        if self._owns_gaji and self._gaji is not None:
            self._gaji.close()

    def _resolve_index(self, ds: Dataset) -> str | None:
        """--index, else the dataset's corpus indexed once under .gaji/indexes/<dataset>."""
        if self.s.index:
            return self.s.index
        if getattr(self.gaji, "_retriever_obj", None) is not None:  # a retriever given in code (tests)
            return None
        if not ds.has_corpus:
            raise ConfigError(
                f"method {self.cfg.method!r} needs an index and dataset {ds.name!r} has no corpus: pass --index DIR"
            )
        fp = ds.corpus_fingerprint()
        from gaji.eval.datasets import KNOWN_DATASETS

        name = ds.corpus_name or (ds.name if ds.name in KNOWN_DATASETS else f"{ds.name}-{fp[:8]}")
        root = Path(self.cfg.index_cache)
        idx_dir = root / name
        marker = root / f"{name}.source.json"
        fresh = False
        if idx_dir.exists() and marker.exists():
            try:
                fresh = json.loads(marker.read_text(encoding="utf-8")).get("corpus_sha256") == fp
            except (OSError, json.JSONDecodeError):
                fresh = False
        if fresh:
            try:
                self._open_index(idx_dir)
                self._unindexed = set(json.loads(marker.read_text(encoding="utf-8")).get("unindexed_ids") or [])
                self._note_unindexed()
                return str(idx_dir)
            except GajiError:
                fresh = False
        build = self._build_index
        if build is None:
            from gaji.index.store import build_index as build
        self.console.print(f"building the index of {ds.name} in {idx_dir} (once; cached) …")
        # A published set is used as it is: its records without text (ODSum-Story has 52, ASQA 1) are left out of
        # the index and listed, and gold references to them leave the recall denominators. A user's own file
        # stays strict: its first bad record is an error naming the line.
        index = build(ds.corpus_source(), str(idx_dir), lexical=True, dense=True, progress=self.cfg.progress,
                      skip_bad=ds.name in KNOWN_DATASETS)
        report = getattr(index, "read_report", None)
        self._unindexed = {sk.record_id for sk in report.skipped if sk.record_id} if report is not None else set()
        if self._unindexed:
            self.console.print(f"{ds.name}: {len(self._unindexed)} corpus record(s) without text left out of the index "
                               "(gold references to them are not counted in recall)")
        atomic_write_json(marker, {"dataset": ds.name, "source": str(ds.corpus_path or ds.path), "corpus_sha256": fp,
                                   "built_at": now_iso(), "unindexed_ids": sorted(self._unindexed)})
        self._note_unindexed()
        return str(idx_dir)

    def _note_unindexed(self) -> None:
        if self._unindexed:
            self.notes.append(f"{len(self._unindexed)} corpus record(s) without text are not indexed; gold references "
                              "to them are left out of recall")

    def _open_index(self, idx_dir: Path) -> None:
        from gaji.index.store import open_index

        open_index(str(idx_dir))

    def _effective_k(self, opts: dict) -> int | None:
        """The k the method really uses: its own option when it has one (a method keeps its paper's default
        unless k was given), else the settings' k."""
        k = opts.get("k") if isinstance(opts, dict) else None
        return int(k) if isinstance(k, (int, float)) else self.s.k

    def _method_uses_index(self, ds: Dataset, method: Any) -> bool:
        """A method that needs a retriever always gets the index; one whose retriever is optional (chain: closed
        book without one) gets it when there is one to give (--index, or the dataset's corpus) and its options do
        not ask for closed book. Without this, `gaji eval --data hotpotqa --method chain` ran closed book."""
        if method.needs_retriever:
            return True
        if not method.wants_retriever():
            return False
        return bool(self.s.index) or ds.has_corpus or getattr(self.gaji, "_retriever_obj", None) is not None

    def _fingerprint(self, ds: Dataset, opts: dict) -> dict[str, Any]:
        needs = self._uses_index
        return {
            "dataset_sha256": ds.sha256,
            "method": self.cfg.method,
            "options": opts,
            "llm": self.s.llm,
            "retriever": self.s.retriever if needs else None,
            "k": self._effective_k(opts) if needs else None,
            "lang": self.s.lang,
            "ks": list(self.cfg.ks),
            "gold_match": self.cfg.gold_match,
            "judge": {"on": self.cfg.judge, "llm": self.cfg.judge_llm, "k": self.cfg.judge_k} if self.cfg.judge else None,
            "toq_eval": self.cfg.toq_eval,
            **({"ids": sorted(self.cfg.ids)} if self.cfg.ids else {}),
            **({"retriever_options": self._retriever_options} if needs and self._retriever_options else {}),
        }

    def items(self) -> list[EvalItem]:
        """The questions of this run: the first --limit, then only --ids if given."""
        assert self.dataset is not None
        items = self.dataset.limited(self.cfg.limit)
        if self.cfg.ids:
            wanted = set(self.cfg.ids)
            items = [it for it in items if it.id in wanted]
        return items

    def prepare(self) -> None:
        cfg = self.cfg
        if cfg.gold_match not in ("auto", "id", "title"):
            raise ConfigError(f"--gold-match must be auto, id or title, not {cfg.gold_match!r}")
        if cfg.concurrency is not None and cfg.concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")
        self.dataset = ds = load_dataset(cfg.data)
        if cfg.ids:
            known = {it.id for it in ds.limited(cfg.limit)}
            missing = [i for i in cfg.ids if i not in known]
            if missing:
                where = f"the first {cfg.limit} questions of " if cfg.limit else ""
                raise ConfigError(f"--ids: {len(missing)} id(s) not in {where}{ds.name}: {', '.join(missing[:5])}")
        if cfg.toq_eval and self._toq_factory is None:
            try:
                importlib.import_module("gaji.methods.toq.evaluator")  # fail now, not on the first answer
            except ImportError as e:
                raise ConfigError(f"--toq-eval needs the ToQ query evaluator (gaji.methods.toq.evaluator): {e}") from None
        method = self.gaji.make_method(cfg.method, cfg.options)  # bad options fail here, before any work
        opts = json.loads(json.dumps(dataclasses.asdict(method.opts), default=str))
        self._uses_index = self._method_uses_index(ds, method)
        if self._uses_index:
            self._retriever_options = self.gaji.retriever_options(self.s.retriever)  # bad ones fail here too
            idx = self._resolve_index(ds)
            if idx:
                self.gaji.settings.index = idx
                self.s.index = idx
        self.out = Path(cfg.out) if cfg.out else default_out_dir(ds.name, cfg.method, self.s.llm, cfg.options)
        self.out.mkdir(parents=True, exist_ok=True)
        fp = self._fingerprint(ds, opts)
        info_path = self.out / "run.json"
        if info_path.exists() and not cfg.overwrite:
            try:
                old = json.loads(info_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                old = {}
            diff = [k for k in fp if old.get("fingerprint", {}).get(k) != fp[k]]
            if old and diff:
                raise ConfigError(
                    f"{self.out} holds a run with another configuration ({', '.join(diff)} differ); "
                    f"use another --out, or {cfg.restart_flag} to start it again"
                )
        if cfg.overwrite:
            for name in ("results.jsonl", "traces.jsonl", "summary.json", "run.json"):
                (self.out / name).unlink(missing_ok=True)
        self._opts = opts
        self._fp = fp

    # -- run.json --------------------------------------------------------------
    def _run_info(self, status: str, summary: dict | None = None, previous: dict | None = None) -> dict:
        """run.json. When no question ran in this session (all done), the LLM was never built: the
        model description of the previous session is kept."""
        ds = self.dataset
        assert ds is not None
        prev = previous or {}
        backend = self._built
        model = backend.name if backend is not None else prev.get("model")
        described = _safe_describe(backend) if backend is not None else prev.get("backend")
        judge_info = prev.get("evaluator")
        if (self.cfg.judge or self.cfg.toq_eval) and backend is not None:
            jb, self_judge = self._judge()
            judge_info = {"llm": self.cfg.judge_llm or self.s.llm, "model": jb.name, "self_judging": self_judge,
                          "k": self.cfg.judge_k, "judge": self.cfg.judge, "toq_eval": self.cfg.toq_eval}
        needs = self._uses_index
        return {
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
            "method": self.cfg.method,
            "options": self._opts,
            "raw_options": self.cfg.options,
            "llm": self.s.llm,
            "model": model,
            "backend": described,
            "retriever": self.s.retriever if needs else None,
            "retriever_options": self._retriever_options if needs else {},
            "k": self._effective_k(self._opts) if needs else None,
            "index": self.s.index if needs else None,
            "lang": self.s.lang,
            "cache": bool(self.gaji.settings.cache),
            "limit": self.cfg.limit,
            "concurrency": self._concurrency,
            "ks": list(self.cfg.ks),
            "gold_match": self.cfg.gold_match,
            "evaluator": judge_info,
            "machine": machine_info(),
            "command": " ".join(["gaji"] + sys.argv[1:]) if sys.argv and sys.argv[0].endswith("gaji") else None,
            "notes": self.notes or prev.get("notes") or [],
            "fingerprint": self._fp,
            "summary": summary,
        }

    # -- one question ----------------------------------------------------------
    def evaluate_one(self, item: EvalItem) -> tuple[dict, dict | None]:
        """(result line, trace line). Never raises for a question's own failure."""
        ds = self.dataset
        assert ds is not None
        base = {
            "id": item.id,
            "question": item.question,
            "gold": item.answers,
            "gold_docs": [g.doc_id or g.title for g in item.gold],
            "lang": item.lang,
            "type": item.type,
        }
        t0 = time.perf_counter()
        try:
            trace = self.gaji.ask(item.question, self.cfg.method, self.cfg.options)
        except Exception as e:  # noqa: BLE001 - a crashed question is recorded, the run goes on
            metrics = self._answer_metrics("", item, ds)
            metrics["wall_s"] = round(time.perf_counter() - t0, 4)
            rec = {**base, "prediction": "", "status": "error", "error": f"{type(e).__name__}: {e}",
                   "metrics": metrics, "summary": None, "retrieved": [], "finished_at": now_iso()}
            return rec, None
        try:
            return self._score(item, trace, base)
        except ConfigError:
            raise  # a configuration problem (e.g. --toq-eval without the evaluator) stops the run
        except Exception as e:  # noqa: BLE001 - a scoring crash is recorded with the trace, the run goes on
            rec = {**base, "prediction": trace.answer, "status": "error", "error": f"scoring: {type(e).__name__}: {e}",
                   "metrics": self._answer_metrics("", item, ds), "summary": trace.summary(), "retrieved": [],
                   "finished_at": now_iso()}
            return rec, {"id": item.id, "trace": trace.to_dict(), "eval": []}

    def _score(self, item: EvalItem, trace: Trace, base: dict) -> tuple[dict, dict]:
        """Every metric of one answered question; (result line, trace line)."""
        ds = self.dataset
        assert ds is not None
        metrics = self._answer_metrics(trace.answer, item, ds)
        docs, passages = self._retrieved(trace)
        if trace.retriever or docs:
            gold = [g for g in item.gold if g.doc_id not in self._unindexed] if self._unindexed else item.gold
            r = retrieval_scores(docs, gold, self.cfg.ks, self.cfg.gold_match)
            if r is not None:
                metrics.update(r)
        metrics.update(cost_metrics(trace))
        eval_nodes: list[Node] = []
        if self.cfg.judge and passages:
            from gaji.eval.judge import RetrievalJudge
            from gaji.llm.tracked import TrackedLLM

            jb, _ = self._judge()
            res = RetrievalJudge(TrackedLLM(jb, retries=self.s.retries), k=self.cfg.judge_k).judge(
                item.question, passages, trace.lang or item.lang)
            metrics.update(res.metrics(tuple(sorted({1, self.cfg.judge_k}))))
            res.node.data["verdicts"] = res.verdicts
            eval_nodes.append(res.node)
        if self.cfg.toq_eval:
            from gaji.eval.toq_eval import ToQScorer
            from gaji.llm.tracked import TrackedLLM

            jb, _ = self._judge()
            try:
                scores, node = ToQScorer(TrackedLLM(jb, retries=self.s.retries), self._toq_factory).score(
                    item.question, trace.answer, trace.lang or item.lang, passages)
                metrics.update(scores)
                eval_nodes.append(node)
            except GajiError as e:
                if isinstance(e, ConfigError):
                    raise
                eval_nodes.append(Node(kind="toq_eval", status="failed", error=str(e)))
        if eval_nodes:
            ec = call_cost([c for n in eval_nodes for c in n.calls])
            metrics["eval_tokens"] = ec["tokens"]
            metrics["eval_calls"] = ec["calls"]
        rec = {
            **base,
            "prediction": trace.answer,
            "status": "ok" if trace.status == "ok" else "failed",
            "error": trace.error,
            "metrics": metrics,
            "summary": trace.summary(),
            "retrieved": [d.doc_id for d in docs[: max(self.cfg.ks, default=10)]],
            "finished_at": now_iso(),
        }
        trace_line = {"id": item.id, "trace": trace.to_dict(), "eval": [n.to_dict() for n in eval_nodes]}
        return rec, trace_line

    def _answer_metrics(self, prediction: str, item: EvalItem, ds: Dataset) -> dict[str, float]:
        m: dict[str, float] = {}
        a = answer_scores(prediction, item.answers, item.lang)
        if a is not None:
            m.update(a.to_dict())
        if ds.long_form:
            r = rouge_l(prediction, item.answers)
            if r is not None:
                m["rouge_l"] = r
        return m

    @staticmethod
    def _retrieved(trace: Trace) -> tuple[list[RetrievedDoc], list[Passage]]:
        """Retrieved documents in first-seen order, and the first passage of each."""
        docs: list[RetrievedDoc] = []
        first: dict[str, Passage] = {}
        for pid in trace.retrieved_ids():
            p = trace.passages.get(pid)
            doc_id = (p.doc_id if p and p.doc_id else pid)
            docs.append(RetrievedDoc(doc_id, p.title if p else ""))
            if p is not None:
                first.setdefault(doc_id, p)
        docs = dedupe_docs(docs)
        return docs, [first[d.doc_id] for d in docs if d.doc_id in first]

    # -- the loop --------------------------------------------------------------
    def run(self) -> dict:
        if self.dataset is None:
            self.prepare()
        ds, out = self.dataset, self.out
        assert ds is not None and out is not None
        items = self.items()
        results_path, traces_path = out / "results.jsonl", out / "traces.jsonl"
        done = latest_by_id(read_jsonl_tolerant(results_path))
        wanted = {it.id for it in items}
        todo = [it for it in items if it.id not in done or (self.cfg.retry_errors and done[it.id].get("status") == "error")]
        previous: dict = {}
        if (out / "run.json").exists():
            try:
                previous = json.loads((out / "run.json").read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                previous = {}
        if todo:
            backend = self._backend()  # build the LLM (and fail) before any thread starts
            if self._uses_index:
                self.gaji.retriever()  # open the index once, in this thread
            self._concurrency = self.cfg.concurrency or max(1, int(getattr(backend, "parallel_slots", 1) or 1))
            if (self.cfg.judge or self.cfg.toq_eval) and self._judge()[1]:
                from gaji.eval.judge import self_judging_note

                self.notes.append(self_judging_note())
        else:
            self._concurrency = self.cfg.concurrency or previous.get("concurrency")
        started = now_iso()
        previous.setdefault("created_at", started)
        atomic_write_json(out / "run.json", self._run_info("running", previous=previous))
        records = {k: v for k, v in done.items() if k in wanted}
        resumed = len(items) - len(todo)
        if resumed:
            self.console.print(f"resuming {out}: {resumed} of {len(items)} questions already done")
        t_start = time.perf_counter()
        # a sitting still "running" in run.json is one whose process was killed (its last update is kept)
        sittings = [({**x, "status": "killed"} if x.get("status") == "running" else x)
                    for x in previous.get("sittings", []) if isinstance(x, dict)]
        n_new = 0
        status = "interrupted"

        def this_sitting(state: str, elapsed_s: float) -> dict:
            return {"started": started, "ended": now_iso(), "questions": n_new,
                    "elapsed_s": round(elapsed_s, 2), "status": state}

        def save_progress() -> None:
            """run.json with this sitting so far, after every question: a killed run keeps its time."""
            previous["sittings"] = [*sittings, this_sitting("running", time.perf_counter() - t_start)]
            atomic_write_json(out / "run.json", self._run_info("running", previous=previous))
        try:
            with _Progress(self.console, len(items), resumed, self.cfg.progress) as prog:
                prog.update(records)
                ex = ThreadPoolExecutor(max_workers=self._concurrency, thread_name_prefix="gaji-eval")
                try:
                    pending: set[Future] = {ex.submit(self.evaluate_one, it) for it in todo}
                    while pending:
                        finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            rec, trace_line = fut.result()
                            if trace_line is not None:
                                append_jsonl(traces_path, trace_line)
                            append_jsonl(results_path, rec)
                            earlier = records.get(rec["id"])
                            records[rec["id"]] = rec
                            n_new += 1
                            prog.advance(records, rec, earlier)
                            save_progress()
                finally:
                    ex.shutdown(wait=False, cancel_futures=True)
            status = "finished"
        finally:
            elapsed = time.perf_counter() - t_start
            ordered_recs = [records[it.id] for it in items if it.id in records]
            summary = summarize(ordered_recs)
            if todo:  # a sitting that had questions to run (a resume of a finished run adds none)
                sittings.append(this_sitting(status, elapsed))
            previous["sittings"] = sittings
            # earlier sittings as recorded (rounded), this one unrounded: a sitting under 5 ms still counts
            earlier_sittings = sittings[:-1] if todo else sittings
            total_s = sum(float(x.get("elapsed_s") or 0) for x in earlier_sittings) + (elapsed if todo else 0.0)
            total_q = sum(int(x.get("questions") or 0) for x in sittings)
            summary.update({
                "elapsed_s": round(elapsed, 2),
                "questions_this_session": n_new,
                "questions_per_hour": round(n_new / elapsed * 3600, 1) if elapsed > 0 and n_new else None,
                # all sittings of a resumed run (run.json "sittings"); runs from before sittings were kept count
                # only the sittings since
                "elapsed_total_s": round(total_s, 2),
                "sittings": len(sittings),
                "questions_per_hour_total": round(total_q / total_s * 3600, 1) if total_s > 0 and total_q else None,
                "complete": len(ordered_recs) == len(items),
                "notes": self.notes,
            })
            atomic_write_json(out / "summary.json", summary)
            atomic_write_json(out / "run.json", self._run_info(status, summary, previous=previous))
        self.print_summary(summary)
        return summary

    # -- display ---------------------------------------------------------------
    def print_summary(self, summary: dict) -> None:
        from rich.table import Table

        ds = self.dataset
        assert ds is not None
        t = Table(title=f"{self.cfg.method} on {ds.name} ({self.s.llm})", title_justify="left")
        t.add_column("metric")
        t.add_column("value", justify="right")
        t.add_column("n", justify="right")
        for name, v in summary["metrics"].items():
            t.add_row(metric_label(name), format_value(name, v["mean"]), str(v["n"]))
        qph = summary.get("questions_per_hour")
        t.add_row("questions/hour", f"{qph:,.0f}" if qph else "–", str(summary.get("questions_this_session", 0)))
        t.add_row("errors / failed", f"{summary['errors']} / {summary['failed']}", str(summary["questions"]))
        self.console.print(t)
        for note in self.notes:
            self.console.print(f"[yellow]{note}[/yellow]")
        self.console.print(f"results in {self.out}")


def _safe_describe(backend: Any) -> dict:
    try:
        return json.loads(json.dumps(backend.describe(), default=str))
    except Exception:  # noqa: BLE001 - description is informational
        return {"name": getattr(backend, "name", "?")}


class RunningMeans:
    """Running metric means for the progress line (O(1) per finished question)."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.errors = 0

    def add(self, rec: dict, sign: int = 1) -> None:
        self.errors += sign * int(rec.get("status") == "error")
        for k, v in (rec.get("metrics") or {}).items():
            if isinstance(v, (int, float)):
                self.sums[k] = self.sums.get(k, 0.0) + sign * float(v)
                self.counts[k] = self.counts.get(k, 0) + sign

    def has(self, name: str) -> bool:
        return self.counts.get(name, 0) > 0

    def mean(self, name: str) -> float | None:
        n = self.counts.get(name, 0)
        return self.sums[name] / n if n else None


class _Progress:
    """The eval bar with running averages (EM, F1, …); plain lines every ~10 % when stderr is not a terminal."""

    def __init__(self, console: Any, total: int, done: int, enabled: bool):
        self._bars = Bars(enabled, console=console, lines=True)
        self._total, self._done = total, done
        self._task: Task | None = None
        self.means = RunningMeans()

    def __enter__(self) -> "_Progress":
        self._bars.__enter__()
        self._task = self._bars.task("eval", self._total, self._done)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._bars.__exit__(*exc)

    def stats(self, records: dict[str, dict]) -> str:
        m = self.means
        parts = [f"{metric_label(n)} {format_value(n, m.mean(n))}" for n in ("em", "f1", "rouge_l", "recall@5", "tokens") if m.has(n)]
        if m.errors:
            parts.append(f"errors {m.errors}")
        return "  ".join(parts)

    def update(self, records: dict[str, dict]) -> None:
        for r in records.values():
            self.means.add(r)
        if self._task is not None:
            self._task.status(self.stats(records))

    def advance(self, records: dict[str, dict], rec: dict, previous: dict | None = None) -> None:
        if previous is not None:
            self.means.add(previous, sign=-1)
        self.means.add(rec)
        if self._task is not None:
            self._task.advance(1, status=lambda _: self.stats(records))
