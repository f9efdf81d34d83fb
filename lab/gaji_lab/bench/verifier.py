"""`gaji bench verifier`: can ConTReGen's verification step (i) ever say "not needed"?

In a ConTReGen run the verifier kept 148 of 149 proposed sub-questions (benchmarks/contregen/NOTES.md, "ConTReGen on ASQA").
That is right if the planner only proposes useful sub-questions, and a rubber stamp if the verifier
cannot reject anything. This bench tells the two apart on a finished ConTReGen run, without any
gold labels to trust but one: a sub-question planned for *another* question is not needed.

  own      each level-1 sub-question the planner proposed, judged against its own main question
  foreign  the same number of sub-questions taken from the next question of the run (the run's
           questions in order, the last one borrowing from the first), judged against this one

Reported: the share judged needed for each kind. A verifier that discriminates keeps most own and
few foreign sub-questions; one that keeps both at ~100 % is a rubber stamp. Each call is the real
step-(i) prompt (`gaji.methods.contregen.verifier.judge_need`), with the main question's retrieved
passage titles as context, as inside the tree.

`--topic-gate T` also scores the topic gate (our extension, `gaji/methods/contregen/topic_gate.py`:
keep a sub-question when its E5 cosine to the main question is >= T) alone and combined with the LLM
(kept = kept by both, as in the tree, where the gate runs first). `--gate-only` skips the LLM: the
gate needs embeddings only. `--offset` skips the run's first questions, so a threshold chosen on one
part of a run can be checked on another.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gaji_lab.bench.probing import ProbeReport, map_calls
from gaji.errors import ConfigError, GajiError
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant
from gaji.io import log_exists

KINDS = ("own", "foreign")


@dataclass
class NeedProbe:
    qid: str
    kind: str  # own | foreign
    main: str
    sub: str
    titles: list[str]
    lang: str = "en"


@dataclass
class NeedVerdict:
    probe: NeedProbe
    needed: bool | None  # None: the call failed
    reason: str = ""  # the topics the verifier named
    query: str = ""
    error: str | None = None
    cosine: float | None = None  # the topic gate's E5 cosine (gate verdicts only)


def plans_from_run(run_dir: Path) -> list[dict[str, Any]]:
    """Per traced question (last trace per id, as every run reader: a torn line of an interrupted run is
    skipped): its main question, language, root passage titles and the level-1 sub-questions the planner
    proposed (verified or not)."""
    path = run_dir / "traces.jsonl"
    if not log_exists(path):
        raise ConfigError(f"{path}: no traces (run ConTReGen with `gaji eval` or `gaji bench run` first)")
    plans: dict[str, dict[str, Any]] = {}
    for qid, rec in latest_by_id(read_jsonl_tolerant(path)).items():
        trace = rec.get("trace")
        root = trace.get("root") if isinstance(trace, dict) else None
        if not isinstance(root, dict) or "question" not in root:
            raise ConfigError(f"{path}, question {qid}: not a trace record (no trace.root.question)")
        if trace.get("method") != "contregen":
            raise ConfigError(f"{path}, question {qid}: a {trace.get('method')!r} trace; this bench reads ConTReGen runs")
        stored = trace.get("passages") or {}  # {id: passage} (a list in older traces)
        by_id = stored if isinstance(stored, dict) else {p.get("id"): p for p in stored if isinstance(p, dict)}
        titles = [by_id[i].get("title", "") for i in root.get("passage_ids", []) if i in by_id]
        subs = [c["question"] for c in root.get("children", []) if c.get("question")]
        plans[qid] = {"id": qid, "main": root["question"], "lang": trace.get("lang") or "en",
                      "titles": list(dict.fromkeys(t for t in titles if t))[:8], "subs": subs}
    return [p for p in plans.values() if p["subs"]]


def build_probes(plans: list[dict[str, Any]]) -> list[NeedProbe]:
    """Own and foreign probes per plan (see the module docstring); deterministic."""
    probes: list[NeedProbe] = []
    if len(plans) < 2:
        return probes
    for i, plan in enumerate(plans):
        other = plans[(i + 1) % len(plans)]
        for sub in plan["subs"]:
            probes.append(NeedProbe(plan["id"], "own", plan["main"], sub, plan["titles"], plan["lang"]))
        for sub in other["subs"][: len(plan["subs"])]:
            probes.append(NeedProbe(plan["id"], "foreign", plan["main"], sub, plan["titles"], plan["lang"]))
    return probes


def run_probes(probes: list[NeedProbe], llm: Any, concurrency: int = 2) -> list[NeedVerdict]:
    from gaji.methods.base import RunContext
    from gaji.methods.contregen import verifier
    from gaji.types import Node

    def one(p: NeedProbe) -> NeedVerdict:
        ctx = RunContext(llm=llm, lang=p.lang)
        node = Node(kind="sub", question=p.sub)
        try:
            v = verifier.judge_need(ctx, node, p.main, p.main, p.sub, p.titles)
        except GajiError as e:
            return NeedVerdict(p, None, error=str(e))
        return NeedVerdict(p, v.needed, v.reason, v.query)

    return map_calls(one, probes, concurrency)


def score(verdicts: list[NeedVerdict]) -> dict[str, Any]:
    out: dict[str, Any] = {"kinds": {}}
    for kind in KINDS:
        vs = [v for v in verdicts if v.probe.kind == kind and v.needed is not None]
        if vs:
            out["kinds"][kind] = {"n": len(vs), "needed_pct": round(100.0 * sum(bool(v.needed) for v in vs) / len(vs), 1)}
    if len(out["kinds"]) == 2:
        out["gap_points"] = round(out["kinds"]["own"]["needed_pct"] - out["kinds"]["foreign"]["needed_pct"], 1)
    out["failed"] = sum(1 for v in verdicts if v.needed is None)
    return out


def gate_verdicts(probes: list[NeedProbe], gate: Any) -> list[NeedVerdict]:
    """The topic gate's verdict on every probe: needed = cosine(sub, main) >= the threshold."""
    subs: dict[str, list[str]] = {}  # main question -> its probes' sub-questions: one embedding batch each
    for p in probes:
        subs.setdefault(p.main, []).append(p.sub)
    by_main = {main: dict(zip(qs, gate.check(main, qs))) for main, qs in subs.items()}
    out = []
    for p in probes:
        v = by_main[p.main][p.sub]
        out.append(NeedVerdict(p, v.keep, reason=f"cos {v.cosine:.4f}", cosine=v.cosine))
    return out


def both(llm: list[NeedVerdict], gate: list[NeedVerdict]) -> list[NeedVerdict]:
    """Kept by the gate and the LLM (a gate rejection needs no LLM call, so it stands when the call failed)."""
    out = []
    for a, g in zip(llm, gate):
        needed = False if not g.needed else a.needed
        out.append(NeedVerdict(a.probe, needed, f"{g.reason}; {a.reason}", a.query, a.error if needed is None else None,
                               g.cosine))
    return out


def render(result: dict, title: str) -> str:
    lines = [f"**{title}**", "", "| sub-question | n | judged needed % |", "|---|---:|---:|"]
    for kind in KINDS:
        k = result["kinds"].get(kind)
        if k:
            label = "planned for this question" if kind == "own" else "planned for another question (never needed)"
            lines.append(f"| {label} | {k['n']} | {k['needed_pct']} |")
    lines += ["", f"Gap: {result.get('gap_points', '–')} points (0 = the verdict ignores the main question). "
              f"Failed calls: {result['failed']}."]
    return "\n".join(lines)


def render_judges(results: dict[str, dict], title: str) -> str:
    """One row per judge (the LLM, the topic gate, both)."""
    lines = [f"**{title}**", "", "| judge | own kept % | another question's kept % | gap (points) | failed |",
             "|---|---:|---:|---:|---:|"]
    for name, r in results.items():
        k = r["kinds"]
        cell = lambda kind: f"{k[kind]['needed_pct']} (n={k[kind]['n']})" if kind in k else "–"  # noqa: E731
        lines.append(f"| {name} | {cell('own')} | {cell('foreign')} | {r.get('gap_points', '–')} | {r['failed']} |")
    return "\n".join(lines)


def run_bench(run: str, settings: Any, *, limit: int = 20, offset: int = 0, topic_gate: float | None = None,
              gate_only: bool = False, concurrency: int | None = None) -> ProbeReport:
    """Judge questions offset+1 … offset+limit of the ConTReGen run directory `run`: the LLM step (i) on the LLM
    the settings name, and with `topic_gate` T also the E5 topic gate at cosine T alone and with the LLM;
    `gate_only` skips the LLM."""
    from gaji_lab.bench.probing import with_llm
    from gaji.methods.contregen.topic_gate import make_gate

    if limit < 2:
        raise ConfigError("--limit must be >= 2 (foreign sub-questions come from another question)")
    if offset < 0:
        raise ConfigError("--offset must be >= 0")
    if gate_only and not topic_gate:
        raise ConfigError("--gate-only needs --topic-gate T (the cosine threshold to score)")
    gate = make_gate(topic_gate or 0.0)
    plans = plans_from_run(Path(run))[offset: offset + limit]
    probes = build_probes(plans)
    if not probes:
        raise ConfigError(f"{run}: fewer than 2 traced questions with proposed sub-questions"
                          + (f" after --offset {offset}" if offset else ""))
    part = f"questions {offset + 1}–{offset + len(plans)}"
    judged: dict[str, list[NeedVerdict]] = {}
    used: dict[str, str] = {"llm": "none", "model": "none"}
    if not gate_only:
        verdicts, used = with_llm(settings, concurrency, lambda llm, n: run_probes(probes, llm, n))
        judged[f"LLM step (i), {used['model']}"] = verdicts
    if gate is not None:
        gv = gate_verdicts(probes, gate)
        judged[f"topic gate, E5 cosine >= {gate.threshold}"] = gv
        if not gate_only:
            judged["both (the tree with the gate on)"] = both(verdicts, gv)
    results = {name: score(vs) for name, vs in judged.items()}
    first = next(iter(results.values()))
    result = {**first, "run": str(run), "offset": offset, "questions": len(plans), **used,
              "probes": len(probes)}
    if gate is not None:
        result["topic_gate"] = gate.threshold
        result["judges"] = results
        md = render_judges(results, f"{run}: {part}, {len(probes)} probes")
    else:
        md = render(first, f"{run}: {len(plans)} questions, verifier {used['model']}")
    main_verdicts = next(iter(judged.values()))
    payload = {**result, "verdicts": [
        {**asdict(v.probe), "needed": v.needed, "reason": v.reason, "query": v.query, "error": v.error}
        for v in main_verdicts]}  # the LLM's verdicts (the gate's with --gate-only)
    if gate is not None:
        payload["gate_verdicts"] = [{"qid": v.probe.qid, "kind": v.probe.kind, "sub": v.probe.sub,
                                     "keep": v.needed, "cosine": v.cosine} for v in gv]
    return ProbeReport(md, payload)
