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

This module is the loop; around it, `record.py` keeps run.json (fingerprint, sittings) and the resume
state, `scoring.py` turns an answer into its result line, `corpus_index.py` builds a dataset's index once,
and `display.py` draws the progress bar and the summary table.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gaji.config import Settings
from gaji.errors import ConfigError
from gaji.eval.corpus_index import corpus_index
from gaji.eval.datasets import Dataset, EvalItem
from gaji.eval.sets import load_dataset
from gaji.eval.display import EvalProgress, print_summary
from gaji.eval.metrics.retrieval import DEFAULT_KS
from gaji.eval.record import Retrieval, RunRecord, RunSetup, Sittings, default_out_dir
from gaji.eval.scoring import Scorer
from gaji.eval.summary import summarize
from gaji.io import append_jsonl, atomic_write_json

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
        self.record: RunRecord | None = None
        self.scorer: Scorer | None = None
        self.notes: list[str] = []
        self._concurrency: int | None = None
        self._built: Any = None  # the generator backend, once built
        self._owns_gaji = gaji is None
        self._owns_judge = False
        self._unindexed: set[str] = set()  # corpus ids left out of the auto-built index (records without text)

    # -- the LLMs ------------------------------------------------------------
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
        self._built = self.gaji.backend
        return self._built

    def _judge(self):
        """(the judges' backend, whether it is the generator itself)."""
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

    # -- the index -----------------------------------------------------------
    def _resolve_index(self, ds: Dataset) -> str | None:
        """--index, else the dataset's corpus indexed once under .gaji/indexes/<dataset>."""
        if self.s.index:
            return self.s.index
        if self.gaji.given_retriever is not None:  # a retriever given in code (tests)
            return None
        if not ds.has_corpus:
            raise ConfigError(
                f"method {self.cfg.method!r} needs an index and dataset {ds.name!r} has no corpus: pass --index DIR"
            )
        cached = corpus_index(ds, self.cfg.index_cache, open_index=self._open_index, build=self._build_index,
                              progress=self.cfg.progress, say=self.console.print)
        self._unindexed = cached.unindexed
        if self._unindexed:
            self.notes.append(f"{len(self._unindexed)} corpus record(s) without text are not indexed; gold "
                              "references to them are left out of recall")
        return cached.path

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
        return bool(self.s.index) or ds.has_corpus or self.gaji.given_retriever is not None

    # -- setup ---------------------------------------------------------------
    def items(self) -> list[EvalItem]:
        """The questions of this run: the first --limit, then only --ids if given, in the order --ids gives them
        (a run stopped early then holds the questions asked for first, e.g. a few of every type)."""
        assert self.dataset is not None
        items = self.dataset.limited(self.cfg.limit)
        if self.cfg.ids:
            rank = {qid: i for i, qid in enumerate(dict.fromkeys(self.cfg.ids))}  # a repeated id keeps its first place
            items = sorted((it for it in items if it.id in rank), key=lambda it: rank[it.id])
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
        opts = _json_values(method.opts)
        retrieval = None
        if self._method_uses_index(ds, method):
            retriever_options = self.gaji.retriever_options(self.s.retriever)  # bad ones fail here too
            idx = self._resolve_index(ds)
            if idx:
                self.gaji.settings.index = idx
                self.s.index = idx
            retrieval = Retrieval(self.s.retriever, retriever_options, self._effective_k(opts), self.s.index)
        setup = RunSetup(
            dataset=ds, method=cfg.method, options=opts, raw_options=cfg.options, llm=self.s.llm, lang=self.s.lang,
            limit=cfg.limit, ids=cfg.ids, ks=cfg.ks, gold_match=cfg.gold_match,
            judge={"on": cfg.judge, "llm": cfg.judge_llm, "k": cfg.judge_k} if cfg.judge else None,
            toq_eval=cfg.toq_eval, retrieval=retrieval,
            option_defaults=_json_values(type(method.opts)()),
        )
        self.out = Path(cfg.out) if cfg.out else default_out_dir(ds.name, cfg.method, self.s.llm, cfg.options)
        self.out.mkdir(parents=True, exist_ok=True)
        self.record = RunRecord(self.out, setup)
        if cfg.overwrite:
            self.record.clear()
        else:
            self.record.refuse_another_configuration(cfg.restart_flag)
        self.scorer = Scorer(ds, ks=cfg.ks, gold_match=cfg.gold_match, unindexed=self._unindexed,
                             judge_k=cfg.judge_k if cfg.judge else None, toq_eval=cfg.toq_eval,
                             judge_llm=lambda: self._judge()[0], retries=self.s.retries,
                             toq_factory=self._toq_factory)

    def _get_ready(self) -> None:
        """Build the LLM (and fail) and open the index once, in this thread, before any question starts."""
        backend = self._backend()
        assert self.record is not None
        if self.record.setup.retrieval is not None:
            self.gaji.retriever()
        self._concurrency = self.cfg.concurrency or max(1, int(getattr(backend, "parallel_slots", 1) or 1))
        if (self.cfg.judge or self.cfg.toq_eval) and self._judge()[1]:
            from gaji.eval.judge import self_judging_note

            self.notes.append(self_judging_note())

    def _write_record(self, status: str, summary: dict | None = None) -> None:
        assert self.record is not None
        evaluator = None
        if (self.cfg.judge or self.cfg.toq_eval) and self._built is not None:
            jb, self_judge = self._judge()
            evaluator = {"llm": self.cfg.judge_llm or self.s.llm, "model": jb.name, "self_judging": self_judge,
                         "k": self.cfg.judge_k, "judge": self.cfg.judge, "toq_eval": self.cfg.toq_eval}
        self.record.write(status, backend=self._built, evaluator=evaluator, cache=bool(self.gaji.settings.cache),
                          concurrency=self._concurrency, notes=self.notes, summary=summary)

    # -- one question ----------------------------------------------------------
    def evaluate_one(self, item: EvalItem) -> tuple[dict, dict | None]:
        """(result line, trace line). Never raises for a question's own failure."""
        assert self.scorer is not None
        t0 = time.perf_counter()
        try:
            trace = self.gaji.ask(item.question, self.cfg.method, self.cfg.options)
        except Exception as e:  # noqa: BLE001 - a crashed question is recorded, the run goes on
            return self.scorer.crashed(item, e, time.perf_counter() - t0), None
        return self.scorer.answered(item, trace)

    # -- the loop --------------------------------------------------------------
    def run(self) -> dict:
        if self.dataset is None:
            self.prepare()
        record, out = self.record, self.out
        assert record is not None and out is not None
        items = self.items()
        state = record.resume(items, self.cfg.retry_errors)
        todo, records = state.todo, state.records
        record.load()
        if todo:
            self._get_ready()
        else:
            self._concurrency = self.cfg.concurrency or record.previous.get("concurrency")
        started = record.begin()
        self._write_record("running")
        resumed = len(items) - len(todo)
        if resumed:
            self.console.print(f"resuming {out}: {resumed} of {len(items)} questions already done")
        sittings = Sittings(record.previous.get("sittings", []), started)
        status = "interrupted"
        try:
            with EvalProgress(self.console, len(items), resumed, self.cfg.progress) as prog:
                prog.update(records)
                ex = ThreadPoolExecutor(max_workers=self._concurrency, thread_name_prefix="gaji-eval")
                try:
                    pending: set[Future] = {ex.submit(self.evaluate_one, it) for it in todo}
                    while pending:
                        finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            rec, trace_line = fut.result()
                            if trace_line is not None:
                                append_jsonl(out / "traces.jsonl", trace_line)
                            append_jsonl(out / "results.jsonl", rec)
                            earlier = records.get(rec["id"])
                            records[rec["id"]] = rec
                            sittings.questions += 1
                            prog.advance(rec, earlier)
                            # after every question: a killed sitting keeps its time
                            record.previous["sittings"] = sittings.so_far()
                            self._write_record("running")
                finally:
                    ex.shutdown(wait=False, cancel_futures=True)
            status = "finished"
        finally:
            ordered = [records[it.id] for it in items if it.id in records]
            summary = summarize(ordered)
            record.previous["sittings"], totals = sittings.end(status, ran=bool(todo))
            summary.update({**totals, "complete": len(ordered) == len(items), "notes": self.notes})
            atomic_write_json(out / "summary.json", summary)
            self._write_record(status, summary)
        self.print_summary(summary)
        return summary

    def print_summary(self, summary: dict) -> None:
        assert self.dataset is not None
        print_summary(self.console, f"{self.cfg.method} on {self.dataset.name} ({self.s.llm})", summary, self.notes,
                      self.out)


def _json_values(options: Any) -> dict[str, Any]:
    """A method's options dataclass as the JSON values run.json records."""
    return json.loads(json.dumps(dataclasses.asdict(options), default=str))
