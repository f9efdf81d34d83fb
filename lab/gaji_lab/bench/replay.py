"""`gaji bench replay RUN_DIR`: re-run a recorded run's questions with today's code, the model's outputs replayed.

A recorded run (benchmarks/results/<run>/: run.json, results.jsonl, traces.jsonl[.xz]) holds, per question, every
LLM call's full prompt and raw output. Replaying asks each question again through `Gaji.ask` with the run's method,
options, retriever, k and language, over the index the run used, with a `ReplayLLM` that answers each call with the
recorded output of the call whose prompt is the same. Without a model, this shows whether today's code does what the
recorded code did: the same searches, the same prompts, the same parsing of the same outputs, the same answer.

Each question gets a verdict:
- same: the replayed answer is the recorded one;
- different: every call was answered from the recording, yet the answer differs (parsing / span / post-processing);
- diverged: today's code asked a prompt the recording does not hold; the cause is "retrieval differs" when a search
  returned other passages than the recorded search with the same query, else "prompt differs" (the first differing
  character and both prompts around it are kept);
- crashed: the method raised without having diverged.

    run = load_recorded("benchmarks/results/oner-hotpotqa-local")
    report = replay_run(run, open_retriever(run, index=None).retriever, limit=10, counter=counter)
    write_report(report, Path(".gaji/bench/replay/oner-hotpotqa-local"))
"""
from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gaji.errors import ConfigError
from gaji.io import LineProblem, atomic_write_text, log_exists, read_jsonl_tolerant
from gaji.types import Passage, Retriever
from gaji_lab.bench.replay_llm import RecordedCall, ReplayLLM

VERDICTS = ("same", "different", "diverged", "crashed")


# -- the recorded run ---------------------------------------------------------------------------------------------
@dataclass
class RecordedRun:
    dir: Path
    run: dict[str, Any]  # run.json
    results: list[dict[str, Any]]  # results.jsonl, in file order
    traces: dict[str, dict[str, Any]]  # question id -> its recorded trace
    problems: list[LineProblem] = field(default_factory=list)  # unreadable lines, skipped

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def backend(self) -> dict[str, Any]:
        return self.run.get("backend") or {}


def load_recorded(run_dir: str | Path) -> RecordedRun:
    d = Path(run_dir)
    if not (d / "run.json").is_file():
        raise ConfigError(f"{d}: no run.json; a recorded run is a folder with run.json, results.jsonl and "
                          "traces.jsonl[.xz] (benchmarks/results/<run>/)")
    try:
        run = json.loads((d / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"{d / 'run.json'}: cannot read it as JSON: {e}") from None
    if not isinstance(run, dict):
        raise ConfigError(f"{d / 'run.json'}: not a JSON object")
    for key in ("method", "options"):
        if key not in run:
            raise ConfigError(f"{d / 'run.json'}: missing field {key!r}")
    if not log_exists(d / "traces.jsonl"):
        raise ConfigError(f"{d}: no traces.jsonl[.xz]; replaying needs the recorded prompts and outputs")
    problems: list[LineProblem] = []
    results = read_jsonl_tolerant(d / "results.jsonl", problems)
    traces = {str(t["id"]): t["trace"] for t in read_jsonl_tolerant(d / "traces.jsonl", problems)
              if "id" in t and isinstance(t.get("trace"), dict) and isinstance(t["trace"].get("root"), dict)}
    return RecordedRun(d, run, results, traces, problems)


def walk(node: dict[str, Any]):
    yield node
    for c in node.get("children") or []:
        yield from walk(c)


def answered(call: dict[str, Any]) -> bool:
    """Whether the model answered the call: ok, or refused afterwards by its caller (invalid JSON, an invalid split:
    the output is there and was read); a backend failure has no finish reason and no output to replay."""
    return bool(call.get("ok", True) or call.get("finish_reason"))


def recorded_calls(trace: dict[str, Any]) -> list[RecordedCall]:
    """The trace's answered calls with their prompts, in tree order."""
    return [RecordedCall.from_dict(c) for n in walk(trace["root"]) for c in n.get("calls") or []
            if answered(c) and c.get("prompt") is not None]


def recorded_searches(trace: dict[str, Any]) -> dict[str, list[list[str]]]:
    """query -> the passage ids each node searched with it returned, in rank order (a node's first search)."""
    out: dict[str, list[list[str]]] = {}
    for n in walk(trace["root"]):
        scores = (n.get("data") or {}).get("passage_scores")
        if n.get("query") and scores:
            ranked = [pid for pid, s in sorted(scores.items(), key=lambda kv: kv[1].get("rank", 0))]
            out.setdefault(n["query"], []).append(ranked)
        elif n.get("query") and n.get("passage_ids"):
            out.setdefault(n["query"], []).append(list(n["passage_ids"]))
    return out


# -- the replay's parts -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Search:
    query: str
    k: int
    ids: tuple[str, ...]


class RecordingRetriever(Retriever):
    """The run's retriever, with every search it answers kept (for telling a retrieval change from a prompt change)."""

    def __init__(self, inner: Retriever):
        self.inner = inner
        self.name = inner.name
        self.searches: list[Search] = []

    def search(self, query: str, k: int = 5) -> list[Passage]:
        got = self.inner.search(query, k)
        self.searches.append(Search(query, k, tuple(p.id for p in got)))
        return got

    def describe(self) -> dict:
        return self.inner.describe()


class RecordedPassages(Retriever):
    """Answers each search with the passages the recorded search with the same query returned (the index's
    embedder or contents may have changed since the run; this isolates the method's code). A query the recording
    does not hold goes to `fallback` (None: no passages), and is kept in `unrecorded`."""

    name = "recorded"

    def __init__(self, trace: dict[str, Any], fallback: Retriever | None = None):
        self.passages = {pid: Passage.from_dict(p) for pid, p in (trace.get("passages") or {}).items()}
        self.by_query: dict[str, list[list[Passage]]] = {}
        for n in walk(trace["root"]):
            scores = (n.get("data") or {}).get("passage_scores") or {}
            ranked = recorded_searches({"root": {**n, "children": []}}).get(n.get("query") or "", [[]])[0]
            if n.get("query") and ranked and all(pid in self.passages for pid in ranked):
                self.by_query.setdefault(n["query"], []).append([dataclasses.replace(
                    self.passages[pid], score=float(scores.get(pid, {}).get("score", self.passages[pid].score)),
                    rank=int(scores.get(pid, {}).get("rank", i + 1))) for i, pid in enumerate(ranked)])
        self.fallback = fallback
        self.unrecorded: list[str] = []

    def search(self, query: str, k: int = 5) -> list[Passage]:
        runs = self.by_query.get(query)
        if runs:
            return list(runs[0][:k])
        self.unrecorded.append(query)
        return self.fallback.search(query, k) if self.fallback is not None else []


def retrieval_difference(searches: list[Search], recorded: dict[str, list[list[str]]]) -> str:
    """'' when every search whose query was recorded returned what the recorded one did; else the first that did not."""
    for s in searches:
        runs = recorded.get(s.query)
        if not runs:
            continue
        if any(r[:len(s.ids)] == list(s.ids) or (len(r) > len(s.ids) and set(s.ids) <= set(r)) for r in runs):
            continue
        was, now = runs[0][:len(s.ids)], list(s.ids)
        i = next((j for j, (a, b) in enumerate(zip(was, now)) if a != b), min(len(was), len(now)))
        return f"search {s.query[:60]!r} from rank {i + 1}: recorded {', '.join(was[i:])}; now {', '.join(now[i:])}"
    return ""


def method_options(method: str, recorded: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The recorded options today's method (or recipe's method) knows, and the names of those it no longer has."""
    from gaji.registry import METHODS, resolve_method

    name, _, _ = resolve_method(method, {})
    known = {f.name for f in dataclasses.fields(METHODS.get(name).Options)}
    kept = {k: v for k, v in recorded.items() if k in known}
    return kept, sorted(set(recorded) - known)


# -- one question, one run ----------------------------------------------------------------------------------------
@dataclass
class QuestionReplay:
    id: str
    question: str
    recorded: str  # the recorded answer
    replayed: str  # today's answer ("" when the question diverged or crashed before one)
    verdict: str  # one of VERDICTS
    cause: str = ""  # for a difference: "retrieval differs" | "prompt differs" | "parsing/span differs" | the error
    detail: str = ""  # the first differing search, or the first differing prompt around where it differs
    calls: int = 0  # recorded calls
    matched: int = 0  # calls answered from the recording
    unused: int = 0  # recorded calls today's code did not ask
    divergence: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class ReplayReport:
    run: str
    method: str
    options: dict[str, Any]
    dropped_options: list[str]
    index: str
    rows: list[QuestionReplay]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS}


def settings_for(run: RecordedRun, index: str | None) -> Any:
    """The settings the run answered with: its retriever, k, language (and index)."""
    from gaji.config import load_settings

    r = run.run
    flags: dict[str, Any] = {"llm": "scripted", "method": r["method"], "lang": r.get("lang") or "auto"}
    if r.get("retriever"):
        flags["retriever"] = r["retriever"]
    if r.get("retriever_options"):
        flags["retriever_options"] = r["retriever_options"]
    if r.get("k") is not None:
        flags["k"] = int(r["k"])
    if index:
        flags["index"] = index
    return load_settings(flags, env={})


def replay_question(run: RecordedRun, result: dict[str, Any], retriever: Retriever | None,
                    counter: Callable[[str], int] | None, options: dict[str, Any],
                    recorded_passages: bool = False) -> QuestionReplay:
    """One question again through `Gaji.ask`. recorded_passages: searches are answered with the recorded search's
    passages (the index only for a query the recording does not hold)."""
    from gaji.api import Gaji

    qid = str(result.get("id"))
    trace = run.traces.get(qid)
    question = str(result.get("question") or (trace or {}).get("question") or "")
    if trace is None:
        return QuestionReplay(qid, question, str(result.get("prediction") or ""), "", "crashed",
                              "no recorded trace", "the recorded question has no trace line to replay")
    calls = recorded_calls(trace)
    b = run.backend
    llm = ReplayLLM(calls, name=str(run.run.get("model") or b.get("name") or "replay"),
                    context_size=int(b.get("context_size") or 4096), parallel_slots=int(b.get("parallel_slots") or 1),
                    counter=counter)
    searcher = RecordedPassages(trace, retriever) if recorded_passages else retriever
    recording = RecordingRetriever(searcher) if searcher is not None else None
    g = Gaji(settings=settings_for(run, None), llm=llm, retriever=recording)
    recorded = str(trace.get("answer") or "")
    row = QuestionReplay(qid, question, recorded, "", "crashed", calls=len(calls))
    error = ""
    try:
        # one branch at a time: siblings a method runs in parallel would race to the first divergence
        now = g.ask(question, run.run["method"], options, parallel=False)
        row.replayed = str(now.answer or "")
    except Exception as e:  # noqa: BLE001 - a question that fails is reported, the replay goes on
        error = f"{type(e).__name__}: {e}"
    row.matched, row.unused = llm.matched, len(llm.unused())
    searched = retrieval_difference(recording.searches if recording else [], recorded_searches(trace))
    if llm.divergence is not None:
        row.verdict, row.divergence = "diverged", llm.divergence.to_dict()
        row.cause = "retrieval differs" if searched else "prompt differs"
        row.detail = searched or llm.divergence.describe()
    elif error:
        row.verdict, row.cause, row.detail = "crashed", "crashed", error
    elif row.replayed == recorded:
        row.verdict = "same"
        if searched:
            row.detail = f"(retrieval differs, answer the same) {searched}"
    else:
        row.verdict = "different"
        row.cause = "retrieval differs" if searched else "parsing/span differs"
        row.detail = searched or f"all {row.matched} calls replayed; the answer is read differently from them"
    if recorded_passages and searcher.unrecorded:
        row.detail = (row.detail + "; " if row.detail else "") + (
            f"{len(searcher.unrecorded)} search(es) not in the recording, answered by the index: "
            f"{searcher.unrecorded[0][:80]!r}")
    return row


def replay_run(run: RecordedRun, retriever: Retriever | None, *, limit: int | None = None,
               counter: Callable[[str], int] | None = None, recorded_passages: bool = False,
               progress: Callable[[QuestionReplay], Any] | None = None) -> ReplayReport:
    """Replay the run's first `limit` questions (results.jsonl order)."""
    t0 = time.perf_counter()
    options, dropped = method_options(run.run["method"], run.run.get("options") or {})
    notes = [str(p) for p in run.problems]
    if dropped:
        notes.append(f"recorded option(s) today's {run.run['method']} no longer has, left out: {', '.join(dropped)}")
    if recorded_passages:
        notes.append("searches answered with the recorded passages of the same query (the method's code alone)")
    if counter is None:
        notes.append("token counts are estimated (no tokenizer of the recorded model): prompt budgets may differ")
    rows = []
    for result in run.results[:limit] if limit else run.results:
        row = replay_question(run, result, retriever, counter, options, recorded_passages)
        rows.append(row)
        if progress is not None:
            progress(row)
    return ReplayReport(run.name, run.run["method"], options, dropped, str(run.run.get("index") or ""), rows, notes,
                        time.perf_counter() - t0)


# -- the index, the tokenizer -------------------------------------------------------------------------------------
@dataclass
class OpenedIndex:
    retriever: Retriever | None
    path: str
    note: str  # how the index was found (or that it was built)


def open_retriever(run: RecordedRun, index: str | None, *, index_cache: str = ".gaji/indexes",
                   say: Callable[[str], Any] = print, build: bool = True) -> OpenedIndex:
    """The run's retriever over `index`, else over the index run.json names when it exists, else over the run's
    dataset's corpus index under `index_cache` (built there when missing, and said so; build=False: no retriever
    then, for a replay whose searches the recording answers)."""
    from gaji.api import Gaji

    named = str(run.run.get("index") or "")
    if run.run.get("retriever") is None and not named:
        return OpenedIndex(None, "", "the run used no retriever")
    if index:
        path, note = index, f"index {index} (given; the run used {named or 'none'})"
    elif named and Path(named).is_dir():
        path, note = named, f"index {named} (the run's)"
    elif not build and not (Path(index_cache) / str((run.run.get("dataset") or {}).get("name") or "")).is_dir():
        return OpenedIndex(None, "", f"no index (the run's {named or 'index'} is not here): a search the recording "
                                     "does not hold gets no passages")
    else:
        from gaji.eval.corpus_index import corpus_index
        from gaji.eval.sets import load_dataset
        from gaji.index.store import open_index

        ds = load_dataset(str((run.run.get("dataset") or {}).get("name") or ""))
        built = corpus_index(ds, index_cache, open_index=lambda p: open_index(str(p)), say=say)
        path, note = built.path, f"index {built.path} (the run's {named or 'index'} was missing: opened or built there)"
    g = Gaji(settings=settings_for(run, path))
    return OpenedIndex(g.retriever(), path, note)


def recorded_model_counter(run: RecordedRun, model_file: str | None = None) -> tuple[Callable[[str], int] | None, str]:
    """(count, note): the recorded model's own tokenizer, read from its GGUF file (no weights loaded), when found."""
    from gaji_lab.bench.gguf_tokens import gguf_counter

    b = run.backend
    path = model_file or b.get("model_path")
    if not path or not Path(str(path)).expanduser().is_file():
        from gaji.llm.models import MODELS, model_path

        if str(run.run.get("model") or "") in MODELS:  # the same model assembled on this machine
            path = str(model_path(str(run.run["model"])))
    if not path or not Path(str(path)).expanduser().is_file():
        return None, f"the recorded model's file was not found ({path or 'none named'}); token counts estimated"
    return gguf_counter(str(path)), f"token counts: the tokenizer of {path} (vocabulary only)"


# -- the report ---------------------------------------------------------------------------------------------------
def _cell(text: str, n: int = 60) -> str:
    t = " ".join(str(text).split()).replace("|", "\\|")
    return t if len(t) <= n else t[: n - 1] + "…"


def report_markdown(report: ReplayReport) -> str:
    c = report.counts()
    lines = [f"## {report.run}", "",
             f"method `{report.method}`, {len(report.rows)} question(s), index `{report.index}`: "
             + ", ".join(f"{v} {c[v]}" for v in VERDICTS if c[v] or v == "same") + f" ({report.seconds:.0f} s)", ""]
    lines += [f"- {n}" for n in report.notes]
    if report.notes:
        lines.append("")
    lines += ["| id | recorded answer | replayed answer | verdict | first diverging call |", "|---|---|---|---|---|"]
    for r in report.rows:
        where = "" if r.verdict == "same" and not r.detail else f"{r.cause}: {_cell(r.detail, 160)}".strip(": ")
        lines.append(f"| {r.id[:24]} | {_cell(r.recorded)} | {_cell(r.replayed)} | {r.verdict} | {where} |")
    return "\n".join(lines) + "\n"


def write_report(report: ReplayReport, out: Path) -> tuple[Path, Path]:
    """replay.md (the table) and replay.jsonl (one row per question) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    md, rows = out / "replay.md", out / "replay.jsonl"
    atomic_write_text(md, report_markdown(report))
    atomic_write_text(rows, "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in report.rows))
    return md, rows


__all__ = ["RecordedRun", "load_recorded", "recorded_calls", "recorded_searches", "RecordingRetriever",
           "retrieval_difference", "method_options", "QuestionReplay", "ReplayReport", "replay_question",
           "replay_run", "open_retriever", "recorded_model_counter", "report_markdown", "write_report"]
