"""`gaji bench verifier`: can ConTReGen's verification step (i) ever say "not needed"?

In a ConTReGen run the verifier kept 148 of 149 proposed sub-questions (BENCHMARKS.md, ConTReGen on ASQA).
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
"""
from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gaji.bench.probing import map_calls
from gaji.errors import ConfigError, GajiError
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant

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


def plans_from_run(run_dir: Path) -> list[dict[str, Any]]:
    """Per traced question (last trace per id, as every run reader: a torn line of an interrupted run is
    skipped): its main question, language, root passage titles and the level-1 sub-questions the planner
    proposed (verified or not)."""
    path = run_dir / "traces.jsonl"
    if not path.exists():
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


def register(bsub) -> None:
    from gaji.bench.probing import add_probe_flags

    p = bsub.add_parser("verifier", help="ConTReGen verification step (i): own vs another question's sub-questions")
    p.add_argument("run", help="a finished ConTReGen run directory (traces.jsonl)")
    p.add_argument("--limit", type=int, default=20, help="questions of the run used (default 20)")
    add_probe_flags(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from gaji.bench.probing import report, with_llm

    if args.limit < 2:
        raise ConfigError("--limit must be >= 2 (foreign sub-questions come from another question)")
    plans = plans_from_run(Path(args.run))[: args.limit]
    probes = build_probes(plans)
    if not probes:
        raise ConfigError(f"{args.run}: fewer than 2 traced questions with proposed sub-questions")
    verdicts, used = with_llm(args, lambda llm, n: run_probes(probes, llm, n))
    result = score(verdicts)
    result.update(run=str(args.run), questions=len(plans), **used, probes=len(probes))
    md = render(result, f"{args.run}: {len(plans)} questions, verifier {used['model']}")
    report(args.out, md, {**result, "verdicts": [
        {**asdict(v.probe), "needed": v.needed, "reason": v.reason, "query": v.query, "error": v.error}
        for v in verdicts]})
    return 0
