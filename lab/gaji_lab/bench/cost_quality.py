"""The cost–quality plot (`gaji bench plot`): F1 against tokens per question, one point per method and set, from
the recorded results, so a user sees at a glance which method to pick.

Each method is its recorded reference run on a set (METHOD_RUNS: the configurations BENCHMARKS.md reports; the
1.5B embedded model, hybrid retrieval unless the run says otherwise). A run is measured on the set's reference
questions (those of its OneR run: the dev half's first 50, KoBLEX 50) that it has; a run that covers fewer (the
chain's 20, the Table 2 trees' 20-30) is marked with its n. `auto` is drawn from benchmarks/auto/report.json:
a replay estimate (lab/gaji_lab/learn/auto_router.py), drawn hollow and labelled as such; on the Korean set (komultihop,
its report part) every point, auto's included, is a live run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaji.errors import InputError
from gaji_lab.learn.auto_router import KOMH, read_results

SETS = ("hotpotqa", "2wikimultihopqa", "musique", "koblex", "komultihop")
# method label -> set -> run directory (relative to the repository root), or several: one configuration recorded in
# sittings over disjoint ids
METHOD_RUNS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "nor": {s: f"benchmarks/results/nor-{s}-local" for s in SETS},
    "oner": {s: f"benchmarks/results/oner-{s}-local" for s in SETS},
    "cot": {s: f"benchmarks/results/cot-{s}-local" for s in SETS},
    "ircot": {s: f"benchmarks/results/ircot-{s}-local" for s in SETS},
    "iter_retgen": {s: f"benchmarks/results/iter-retgen-{s}-local" for s in SETS},
    "self_ask": {s: f"benchmarks/results/self-ask-{s}-local" for s in SETS},
    "chain": {s: f"benchmarks/results/chain-l6-repeat-{s}-local" for s in SETS},
    "toq": {"hotpotqa": "benchmarks/results/toq-routed-hotpotqa-local",
            "musique": "benchmarks/toq/table2-musique/toq-routed",
            "koblex": "benchmarks/results/toq-long-koblex-local",
            "komultihop": f"{KOMH}/toq-reask-report6"},  # auto's tree route as it ships (intersect, reask)
    # on the Korean set the points are its report part's live runs, auto included (not a replay): the router and
    # routes that ship, without the response cache
    "auto": {"komultihop": "benchmarks/auto/live-komultihop-report-24-v2"},
}
TITLES = {"komultihop": "komultihop, report part"}  # a panel's heading when not the set's name
METHOD_RUNS["oner"]["komultihop"] = f"{KOMH}/oner-report6-v3"  # the same replies as oner-report6, today's span shaping
METHOD_RUNS["ircot"]["komultihop"] = (f"{KOMH}/ircot-report2", f"{KOMH}/ircot-report-extra", f"{KOMH}/ircot-report-rest")
METHOD_RUNS["nor"]["komultihop"] = f"{KOMH}/nor-report6"
REPORT = "benchmarks/auto/report.json"


@dataclass
class Point:
    method: str
    set: str
    f1: float  # mean F1 in [0, 1]
    tokens: float  # mean tokens per question
    n: int  # questions measured
    replay: bool = False  # an estimate from recorded results, not a run


def run_results(root: Path, runs: str | tuple[str, ...]) -> dict[str, dict]:
    """The per-question results of a run, or of a run's sittings (the first one recording an id wins)."""
    out: dict[str, dict] = {}
    for d in (runs,) if isinstance(runs, str) else runs:
        for q, r in read_results(root / d).items():
            out.setdefault(q, r)
    return out


def points(root: Path | str = ".") -> list[Point]:
    """Every (method, set) with a recorded run, plus auto's replay estimates when the report exists."""
    root = Path(root)
    out: list[Point] = []
    for s in SETS:
        ref = set(run_results(root, METHOD_RUNS["oner"][s]))
        for method, by_set in METHOD_RUNS.items():
            d = by_set.get(s)
            res = run_results(root, d) if d else {}
            if not res:
                continue
            ids = [q for q in res if q in ref] if ref else list(res)
            if not ids:
                continue
            out.append(Point(method, s, sum(float(res[q]["metrics"]["f1"]) for q in ids) / len(ids),
                             sum(float(res[q]["metrics"].get("tokens", 0)) for q in ids) / len(ids), len(ids)))
    rep_path = root / REPORT
    if rep_path.is_file():
        try:
            rep = json.loads(rep_path.read_text(encoding="utf-8"))
            for s, v in rep["held_out"]["replay"].items():
                if s in METHOD_RUNS["auto"]:  # a live run stands for auto there (the replay is of another part)
                    continue
                out.append(Point("auto", s, float(v["auto"]["f1"]), float(v["auto"]["tokens"]), int(v["questions"]),
                                 replay=True))
        except (ValueError, KeyError, TypeError) as e:
            raise InputError(f"not an auto router report: {e}", path=str(rep_path)) from None
    if not out:
        raise InputError("no recorded results to plot", path=str(root / "benchmarks/results"))
    return out


def plot(pts: list[Point], out: Path | str, title: str = "") -> Path:
    """A 2×2 figure, one panel per set: F1 (%) against tokens per question (log scale), one point per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    methods = [m for m in dict.fromkeys(p.method for p in pts) if m != "auto"]
    cmap = plt.get_cmap("tab10")
    color = {m: cmap(i % 10) for i, m in enumerate(methods)}
    color["auto"] = "black"  # the default method stands out
    sets = [s for s in SETS if any(p.set == s for p in pts)]
    cols = 2
    rows = (len(sets) + 1) // 2
    fig, axes = plt.subplots(rows, cols, figsize=(11, 4.3 * rows), squeeze=False)
    full = {s: max(p.n for p in pts if p.set == s) for s in sets}
    for ax, s in zip(axes.flat, sets):
        for p in (p for p in pts if p.set == s):
            y = 100 * p.f1
            style: dict[str, Any] = {"s": 170, "marker": "*", "facecolors": "none", "edgecolors": color[p.method],
                                     "linewidths": 1.8} if p.replay else {"s": 60, "color": color[p.method]}
            ax.scatter([p.tokens], [y], zorder=3, **style)
            label = p.method + (" (replay)" if p.replay else "") + (f" n={p.n}" if p.n < full[s] else "")
            ax.annotate(label, (p.tokens, y), textcoords="offset points", xytext=(6, 4), fontsize=8,
                        color=color[p.method])
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # a narrow range would label its minor ticks on top of each other
        ax.set_title(f"{TITLES.get(s, s)} ({full[s]} questions)", fontsize=11)
        ax.set_xlabel("tokens per question (log scale)")
        ax.set_ylabel("F1 (%)")
        ax.grid(alpha=0.3, which="both")
        ax.margins(x=0.15, y=0.12)
    for ax in list(axes.flat)[len(sets):]:
        ax.axis("off")
    fig.suptitle(title or "Cost against quality: recorded runs, 1.5B embedded model (auto: replay estimate)",
                 fontsize=12)
    fig.text(0.01, 0.005, "n = questions, when fewer than the set's. chain: BM25, 400-character passages. KoBLEX is "
             "long-form (answers in sentences; its toq writes long answers). auto (hollow star) is estimated by "
             "replaying the recorded results of the route it picks (benchmarks/auto/README.md); on komultihop it is a live "
             "run (filled dot).", fontsize=7.5,
             wrap=True)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.tmp{out.suffix}")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(out)  # atomic: a reader never sees half a PNG
    return out


def table(pts: list[Point]) -> str:
    """The plotted numbers as markdown (set, method, F1, tokens/q, n)."""
    lines = ["| set | method | F1 | tokens/q | n |", "|---|---|---:|---:|---:|"]
    for p in sorted(pts, key=lambda p: (SETS.index(p.set), p.tokens)):
        name = f"{p.method} (replay estimate)" if p.replay else p.method
        lines.append(f"| {p.set} | {name} | {100 * p.f1:.1f} | {p.tokens:,.0f} | {p.n} |")
    return "\n".join(lines) + "\n"
