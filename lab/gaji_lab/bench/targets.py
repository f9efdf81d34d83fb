"""`auto`'s targets, computed from recorded runs (`gaji bench targets`): for each row of a targets file
(benchmarks/auto/targets.yaml) the live runs of auto and the fixed methods recorded on the same questions, and
from them every number the targets are judged by. Nothing is typed in by hand: a row names run directories only.

A row:
- `runs`: auto's runs of one configuration, each a list of directories. Within a list a later directory's answer
  to a question replaces an earlier one's (a part re-run for some of its questions). Several runs of the same code
  give a mean and a range: the model reads some steps differently between runs.
- `fixed`: method -> its directories, recorded on the same questions. A method that lacks any of the row's
  questions is left out (and listed as such), so every number of a row is over the same questions.
- `oracle` (optional): the fixed methods the oracle picks among (default: all of `fixed`): the routes auto can
  take (closed book, one retrieval, a chain, the tree), where other methods were recorded too.
- `types` (optional): only the questions of these types (the set's `type` field: "bridging", …).
- `ids` (optional): only the questions listed in this file (one id a line, relative to the root).
- `checks`: which targets the row is judged by:
  - `best`: auto's F1 is at least the best fixed method's;
  - `oracle`: within ORACLE_GAP F1 of the oracle that picks the best fixed method per question;
  - `cost`: auto's tokens per question at most COST_SHARE of the best fixed method's;
  - `one_call`: at least ONE_CALL_SHARE of the questions answered in exactly one LLM call;
  - `latency`: the median wall time per question at most LATENCY_S for the row's language. Runs record how many
    questions were in flight (run.json `concurrency`); the table says it, since two in flight roughly double it.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gaji.errors import InputError
from gaji.eval.metrics.answer import answer_scores
from gaji.io import log_exists, read_jsonl_tolerant
from gaji_lab.learn.auto_router import read_results

TARGETS = "benchmarks/auto/targets.yaml"
ORACLE_GAP = 5.0  # F1 points
COST_SHARE = 0.40  # of the best fixed method's tokens per question
ONE_CALL_SHARE = 0.90
LATENCY_S = {"en": 15.0, "ko": 20.0}  # median seconds per question on the idle 2-core machine
# the cascade's decisions that keep its first answer as the final one (the one-retrieval answer stood; a question
# that wants a paragraph got one in its first call): there the first answer scores what the final one does. Other
# decisions' first answers are scored as the trace recorded them (`cascade.first_answer`), which some runs kept as
# the model's sentence before the answer's span was cut from it
FIRST_STOOD = ("stand", "long")
CHECKS = ("best", "oracle", "cost", "one_call", "latency")
DEFAULT_CHECKS = ("best", "oracle", "cost", "latency")  # a row that names none


@dataclass
class Row:
    """One row of the targets file."""

    name: str
    runs: list[list[str]]
    fixed: dict[str, list[str]] = field(default_factory=dict)
    types: list[str] = field(default_factory=list)
    ids: str = ""  # a file of question ids: only these
    oracle: list[str] = field(default_factory=list)  # the methods the oracle picks among; [] = all of `fixed`
    checks: list[str] = field(default_factory=lambda: list(DEFAULT_CHECKS))
    note: str = ""


@dataclass
class Method:
    """A fixed method's numbers over a row's questions."""

    name: str
    f1: float  # mean, in points
    tokens: float  # per question


@dataclass
class Group:
    """auto's answers of one question type or one cascade decision, over every run of a row."""

    name: str
    n: int  # answers (questions x runs)
    f1: float  # auto, in points
    first_f1: float | None  # auto's first answers, over the `first_n` that had one (a code rung may start first)
    first_n: int
    best_f1: float | None  # the row's best fixed method on the same questions
    oracle_f1: float | None  # the row's oracle on the same questions


@dataclass
class Verdict:
    check: str
    met: bool
    text: str  # what was compared, in a few words


@dataclass
class Result:
    """A row's numbers, every one computed from its runs."""

    row: Row
    n: int
    f1_runs: list[float]  # auto's F1 per run, in points
    tokens: float  # auto's mean tokens per question, over its runs
    one_call: float  # share of answers given in exactly one call, over its runs
    p50_s: float  # median wall seconds per question, over every answer of its runs
    in_flight: list[int]  # concurrency of each run, as its run.json records it
    lang: str
    fixed: list[Method]
    missing: list[str]  # fixed methods left out: they lack some of the row's questions
    oracle: float | None  # in points; None without a fixed method
    oracle_of: int  # how many methods the oracle picked among
    verdicts: list[Verdict]
    by_type: list[Group] = field(default_factory=list)
    by_decision: list[Group] = field(default_factory=list)

    @property
    def f1(self) -> float:
        return statistics.fmean(self.f1_runs)

    @property
    def flight(self) -> str:
        """How many questions its runs had in flight: "1", "2", or "1/2" when they differ."""
        return "/".join(str(c) for c in sorted(set(self.in_flight)))

    @property
    def best(self) -> Method | None:
        return max(self.fixed, key=lambda m: (m.f1, -m.tokens)) if self.fixed else None


def load(path: Path | str) -> list[Row]:
    """The rows of a targets file; a malformed one is an InputError naming the file, the row and the field."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise InputError(f"{path}: cannot read the targets file: {e}") from None
    items = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise InputError(f"{path}: expected a top-level `rows:` list of targets")
    rows = []
    for i, item in enumerate(items, 1):
        where = f"{path}: row {i}"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InputError(f"{where}: each row needs a `name`")
        where = f"{path}: row {i} ({item['name']})"
        runs = item.get("runs")
        if not isinstance(runs, list) or not runs or not all(_dirs(r) for r in runs):
            raise InputError(f"{where}: `runs` must be a list of runs, each a list of directories")
        fixed = item.get("fixed") or {}
        if not isinstance(fixed, dict) or not all(isinstance(k, str) and _dirs(v) for k, v in fixed.items()):
            raise InputError(f"{where}: `fixed` must map each method to a list of directories")
        checks = item.get("checks", list(DEFAULT_CHECKS))
        unknown = [c for c in checks if c not in CHECKS] if isinstance(checks, list) else [checks]
        if unknown:
            raise InputError(f"{where}: unknown check(s) {unknown}; known: {', '.join(CHECKS)}")
        if {"best", "oracle", "cost"} & set(checks) and not fixed:
            raise InputError(f"{where}: checks {sorted({'best', 'oracle', 'cost'} & set(checks))} need `fixed` runs")
        types = item.get("types") or []
        if not isinstance(types, list):
            raise InputError(f"{where}: `types` must be a list")
        oracle = item.get("oracle") or []
        if not isinstance(oracle, list) or any(m not in fixed for m in oracle):
            raise InputError(f"{where}: `oracle` must list methods of `fixed`")
        if not isinstance(item.get("ids", ""), str):
            raise InputError(f"{where}: `ids` must be a file's path")
        rows.append(Row(item["name"], [list(r) for r in runs], {k: list(v) for k, v in fixed.items()},
                        [str(t) for t in types], str(item.get("ids") or ""), [str(m) for m in oracle],
                        list(checks), str(item.get("note") or "")))
    return rows


def _dirs(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(d, str) for d in v)


def _read(root: Path, dirs: list[str], where: str) -> dict[str, dict]:
    """The answers of one run: its directories' results, a later directory's answer replacing an earlier one's."""
    out: dict[str, dict] = {}
    for d in dirs:
        got = read_results(root / d)
        if not got:
            raise InputError(f"{where}: {d} holds no results.jsonl with scored answers")
        out.update(got)
    return out


def _traces(root: Path, dirs: list[str]) -> dict[str, dict]:
    """The cascade record of each question of one run ({} for a run recorded without traces)."""
    out: dict[str, dict] = {}
    for d in dirs:
        path = root / d / "traces.jsonl"
        if log_exists(path):
            for t in read_jsonl_tolerant(path):
                if "id" in t and isinstance(t.get("trace"), dict):
                    out[str(t["id"])] = ((t["trace"].get("root") or {}).get("data") or {}).get("cascade") or {}
    return out


def _ids(root: Path, row: Row) -> set[str]:
    path = root / row.ids
    try:
        return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    except OSError as e:
        raise InputError(f"row {row.name!r}: cannot read its ids file {row.ids}: {e.strerror}") from None


def _concurrency(root: Path, dirs: list[str]) -> int:
    """How many questions the run had in flight (its last directory's run.json; 1 when it does not say)."""
    try:
        return int(json.loads((root / dirs[-1] / "run.json").read_text(encoding="utf-8")).get("concurrency") or 1)
    except (OSError, ValueError, TypeError):
        return 1


def evaluate(row: Row, root: Path | str = ".") -> Result:
    """A row's numbers and verdicts over the questions of its first run (of the row's types)."""
    root = Path(root)
    runs = [_read(root, dirs, f"row {row.name!r}") for dirs in row.runs]
    listed = _ids(root, row) if row.ids else None
    ids = [q for q, r in runs[0].items() if (not row.types or str(r.get("type") or "") in row.types)
           and (listed is None or q in listed)]
    if not ids:
        raise InputError(f"row {row.name!r}: its first run has none of the row's questions")
    for k, run in enumerate(runs[1:], 2):
        lacking = [q for q in ids if q not in run]
        if lacking:
            raise InputError(f"row {row.name!r}: run {k} lacks {len(lacking)} of the row's questions ({lacking[0]}, …)")
    fixed, missing, answers_of = [], [], {}  # answers_of: each fixed method kept -> its answers
    for name, dirs in row.fixed.items():
        got = _read(root, dirs, f"row {row.name!r}, fixed {name}")
        if any(q not in got for q in ids):
            missing.append(name)
            continue
        fixed.append(Method(name, 100 * statistics.fmean(_f1(got[q]) for q in ids),
                            statistics.fmean(_m(got[q], "tokens") for q in ids)))
        answers_of[name] = got
    picked = [got for name, got in answers_of.items() if not row.oracle or name in row.oracle]
    oracle = {q: max(_f1(got[q]) for got in picked) for q in ids} if picked else None
    answers = [run[q] for run in runs for q in ids]
    walls = [_m(a, "wall_s") for a in answers if "wall_s" in a.get("metrics", {})]
    langs = {str(a.get("lang") or "en") for a in answers}
    res = Result(
        row=row, n=len(ids),
        f1_runs=[100 * statistics.fmean(_f1(run[q]) for q in ids) for run in runs],
        tokens=statistics.fmean(_m(a, "tokens") for a in answers),
        one_call=sum(1 for a in answers if _m(a, "calls") == 1) / len(answers),
        p50_s=statistics.median(walls) if walls else float("nan"),
        in_flight=[_concurrency(root, dirs) for dirs in row.runs],
        lang="ko" if langs == {"ko"} else "en" if langs == {"en"} else "mixed",
        fixed=fixed, missing=missing,
        oracle=100 * statistics.fmean(oracle.values()) if oracle else None,
        oracle_of=len(picked),
        verdicts=[])
    res.verdicts = [v for c in row.checks if (v := _judge(c, res)) is not None]
    if any(not v.met for v in res.verdicts if v.check in ("best", "oracle", "one_call")):
        best = answers_of[res.best.name] if res.best else None
        res.by_type, res.by_decision = _groups(root, row, runs, ids, best, oracle)
    return res


def _groups(root: Path, row: Row, runs: list[dict[str, dict]], ids: list[str],
            best: dict[str, dict] | None, oracle: dict[str, float] | None) -> tuple[list[Group], list[Group]]:
    """auto's answers grouped by question type and by the cascade's decision."""
    answers = []  # (type, decision, f1, first-answer f1 or None, qid)
    for dirs, run in zip(row.runs, runs):
        cascade = _traces(root, dirs)
        for q in ids:
            r, c = run[q], cascade.get(q)
            first = _f1(r) if c and c.get("decision") in FIRST_STOOD else None
            if c and first is None and c.get("first_answer") is not None:
                s = answer_scores(str(c["first_answer"]), r.get("gold") or [], str(r.get("lang") or ""))
                first = s.f1 if s else None
            decision = (c.get("decision") or "-") if q in cascade else "(no trace)"
            answers.append((str(r.get("type") or "-"), decision, _f1(r), first, q))

    def group(name: str, rows: list[tuple]) -> Group:
        firsts = [a[3] for a in rows if a[3] is not None]
        return Group(name, len(rows), 100 * statistics.fmean(a[2] for a in rows),
                     100 * statistics.fmean(firsts) if firsts else None, len(firsts),
                     100 * statistics.fmean(_f1(best[a[4]]) for a in rows) if best else None,
                     100 * statistics.fmean(oracle[a[4]] for a in rows) if oracle else None)

    types = sorted({a[0] for a in answers})
    decisions = sorted({a[1] for a in answers}, key=lambda d: -sum(1 for a in answers if a[1] == d))
    return ([group(t, [a for a in answers if a[0] == t]) for t in types] if len(types) > 1 else [],
            [group(d, [a for a in answers if a[1] == d]) for d in decisions])


def _f1(r: dict) -> float:
    return float(r["metrics"]["f1"])


def _m(r: dict, key: str) -> float:
    return float(r.get("metrics", {}).get(key, 0.0) or 0.0)


def _judge(check: str, r: Result) -> Verdict | None:
    """One target's verdict for a row; None when the row has nothing to judge it by."""
    best = r.best
    if check == "best" and best:
        return Verdict(check, r.f1 >= best.f1 - 1e-9, f"{r.f1:.1f} vs {best.name} {best.f1:.1f}")
    if check == "oracle" and r.oracle is not None:
        gap = r.oracle - r.f1
        where = f"{gap:.1f} below" if gap >= 0 else f"{-gap:.1f} above"
        return Verdict(check, gap <= ORACLE_GAP + 1e-9, f"{where} the oracle's {r.oracle:.1f}")
    if check == "cost" and best and best.tokens > 0:
        share = r.tokens / best.tokens
        return Verdict(check, share <= COST_SHARE, f"{100 * share:.0f} % of {best.name}'s tokens")
    if check == "one_call":
        return Verdict(check, r.one_call >= ONE_CALL_SHARE, f"{100 * r.one_call:.0f} % in one call")
    if check == "latency" and r.p50_s == r.p50_s and r.lang in LATENCY_S:
        return Verdict(check, r.p50_s <= LATENCY_S[r.lang],
                       f"p50 {r.p50_s:.1f} s ({r.flight} in flight) vs {LATENCY_S[r.lang]:.0f} s")
    return None


HEADER = ("<!-- generated by `gaji bench targets` from benchmarks/auto/targets.yaml and the run directories it "
          "names: edit those, not this file -->")


def table(results: list[Result]) -> str:
    """The targets as markdown: one line per row, its numbers, then each target met or missed."""
    lines = [HEADER, "", "# auto's targets, from the recorded runs", "",
             "Each row is judged from the run directories `benchmarks/auto/targets.yaml` names, over the same "
             "questions for auto and every fixed method; a method that lacks some of them is left out and named. "
             "Each run's command, date, code and per-question evidence: `benchmarks/auto/cascade/NOTES.md`.",
             "", "| row | n | auto F1 | best fixed (F1 @ tokens) | oracle | auto tokens | one call | "
             "p50 s (in flight) | targets |", "|---|---:|---:|---|---:|---:|---:|---:|---|"]
    for r in results:
        f1 = f"{r.f1:.1f}" + (f" (mean of {len(r.f1_runs)}: {min(r.f1_runs):.1f}-{max(r.f1_runs):.1f})"
                               if len(r.f1_runs) > 1 else "")
        best = r.best
        b = f"{best.name} {best.f1:.1f} @ {best.tokens:,.0f}" if best else "—"
        if r.missing:
            b += f" ({', '.join(r.missing)} lack some questions)"
        verdicts = "; ".join(f"{v.check} **{'met' if v.met else 'missed'}** ({v.text})" for v in r.verdicts)
        oracle = (f"{r.oracle:.1f}" + (f" (of {r.oracle_of})" if r.oracle_of > 1 else " (1 method)")
                  if r.oracle is not None else "—")
        p50 = f"{r.p50_s:.1f} ({r.flight})" if r.p50_s == r.p50_s else "—"
        lines.append(f"| {r.row.name} | {r.n} | {f1} | {b} | {oracle} | {r.tokens:,.0f} | {100 * r.one_call:.0f} % "
                     f"| {p50} | {verdicts} |")
    notes = [f"- {r.row.name}: {r.row.note}" for r in results if r.row.note]
    if notes:
        lines += ["", *notes]
    lines += ["", f"Targets: `best` auto F1 ≥ the best fixed method's; `oracle` within {ORACLE_GAP:.0f} F1 of the "
              "oracle over the fixed methods listed; `cost` at most "
              f"{100 * COST_SHARE:.0f} % of the best fixed method's tokens; `one_call` at least "
              f"{100 * ONE_CALL_SHARE:.0f} % of the questions in one LLM call; `latency` median wall time per "
              f"question at most {LATENCY_S['en']:.0f} s in English and {LATENCY_S['ko']:.0f} s in Korean, on the "
              "idle machine (a run with two questions in flight is slower per question)."]
    for r in results:
        if r.by_decision:
            lines += ["", f"## {r.row.name}: where it stands", "", *_group_table("type", r.by_type, r),
                      *_group_table("decision", r.by_decision, r)]
    return "\n".join(lines) + "\n"


def _group_table(what: str, groups: list[Group], r: Result) -> list[str]:
    if not groups:
        return []
    best = r.best.name if r.best else "best fixed"
    runs = f" (questions x {len(r.f1_runs)} runs)" if len(r.f1_runs) > 1 else ""
    out = [f"| {what} | answers{runs} | auto F1 | its first answers, as recorded (n) | {best} | oracle |",
           "|---|---:|---:|---:|---:|---:|"]
    for g in groups:
        first = f"{g.first_f1:.1f} ({g.first_n})" if g.first_f1 is not None else "—"
        out.append(f"| {g.name} | {g.n} | {g.f1:.1f} | {first} | "
                   f"{_num(g.best_f1)} | {_num(g.oracle_f1)} |")
    return out + [""]


def _num(x: float | None) -> str:
    return f"{x:.1f}" if x is not None else "—"


def run(path: Path | str = TARGETS, root: Path | str = ".") -> tuple[list[Result], str]:
    """Every row of the targets file evaluated, and the markdown table."""
    results = [evaluate(row, root) for row in load(Path(root) / path if not Path(path).is_absolute() else path)]
    return results, table(results)
