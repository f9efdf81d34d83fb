"""The cost–quality plot (`gaji bench plot`): F1 against tokens per question, one point per method and set, from
the recorded results, so a user sees at a glance which method to pick.

Each method is its recorded reference run on a set (METHOD_RUNS: the configurations BENCHMARKS.md reports; the
1.5B embedded model, hybrid retrieval unless the run says otherwise). A run is measured on the set's reference
questions (those of its OneR run: the dev half's first 50, KoBLEX 50) that it has; a run that covers fewer (the
chain's 20, the Table 2 trees' 20-30) is marked with its n.

`auto` (the cascade: one retrieval, then a deeper route when the safety model says the answer is unsafe) gets one
point per effort setting:
- replay: the shipped safety model's held-out replay (CASCADE, `held_out.by_set[<set>][low|medium|high]`, written by
  `gaji classifier train-cascade`) on the questions it was trained on, its sets' dev parts, each question's P(right)
  from a model that never saw it. Drawn hollow, the three efforts of a set joined by a thin line.
- live: every recorded run of auto under LIVE_RUNS (`auto-*`; its set, part and effort from its run.json), drawn
  filled, on its own questions (which may be another part than the panel's other points: the label says which).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaji.errors import GajiError, InputError
from gaji.methods.auto.method import Auto
from gaji.methods.safety import EFFORTS, SafetyModel
from gaji_lab.learn.auto_router import KOMH, read_results

SETS = ("hotpotqa", "2wikimultihopqa", "musique", "koblex", "komultihop")
# method label -> set -> run directory (relative to the repository root), or several: one configuration recorded in
# sittings over disjoint ids. auto is not here: its points come from CASCADE and LIVE_RUNS
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
}
TITLES = {"komultihop": "komultihop, report part"}  # a panel's heading when not the set's name
METHOD_RUNS["oner"]["komultihop"] = f"{KOMH}/oner-report6-v3"  # the same replies as oner-report6, today's span shaping
METHOD_RUNS["ircot"]["komultihop"] = (f"{KOMH}/ircot-report2", f"{KOMH}/ircot-report-extra", f"{KOMH}/ircot-report-rest")
METHOD_RUNS["nor"]["komultihop"] = f"{KOMH}/nor-report6"
CASCADE = "gaji/methods/auto/data/cascade.json"  # the shipped safety model, its held-out replay in its meta
LIVE_RUNS = "benchmarks/auto/cascade/runs"  # recorded runs of auto: the directories auto-*
PARTS = ("dev", "report")  # a set's parts: dev tunes, report reports
AUTO = "auto"


@dataclass
class Point:
    method: str
    set: str
    f1: float  # mean F1 in [0, 1]
    tokens: float  # mean tokens per question
    n: int  # questions measured
    replay: bool = False  # an estimate from recorded results, not a run
    effort: str = ""  # auto's effort setting (low | medium | high); "" for a fixed method
    part: str = ""  # the set's part the point is measured on ("dev", "report"), when it says
    escalated: float | None = None  # auto: the share of questions escalated past one retrieval, when known
    source: str = ""  # auto: the file or run directory it is read from, relative to the root
    date: str = ""  # a live run: the day it started (run.json's created_at)
    tag: str = ""  # what tells the point from another with the same label in its set (a live run's source)

    @property
    def label(self) -> str:
        """The point's name on the figure and in the table."""
        if self.method != AUTO or not self.effort:
            return self.method
        if self.replay:
            return f"auto {self.effort} (replay{', ' + self.part if self.part else ''})"
        return (f"auto (live, effort {self.effort}{', ' + self.part + ' part' if self.part else ''}"
                f"{', ' + self.tag if self.tag else ''})")


def run_results(root: Path, runs: str | tuple[str, ...]) -> dict[str, dict]:
    """The per-question results of a run, or of a run's sittings (the first one recording an id wins)."""
    out: dict[str, dict] = {}
    for d in (runs,) if isinstance(runs, str) else runs:
        for q, r in read_results(root / d).items():
            out.setdefault(q, r)
    return out


def split_set(name: str) -> tuple[str, str]:
    """A dataset or replay set name -> (set, part): "komultihop-report" -> ("komultihop", "report")."""
    for part in PARTS:
        if name.endswith(f"-{part}"):
            return name[: -len(part) - 1], part
    return name, ""


def replay_points(path: Path, root: Path) -> list[Point]:
    """auto's held-out replay, one point per set and effort, from the safety model's file (none when it is absent).
    Every replayed set is a dev part: the model was trained and its thresholds chosen on those questions."""
    if not path.is_file():
        return []
    try:
        model = SafetyModel.load(path)
    except GajiError as e:
        raise InputError(f"not a safety model: {e}", path=str(path)) from None
    held = model.meta.get("held_out")
    by_set = held.get("by_set") if isinstance(held, dict) else None
    if not isinstance(by_set, dict):
        raise InputError("no held-out replay (retrain with `gaji classifier train-cascade`)", path=str(path),
                         field="held_out.by_set")
    questions = held.get("questions") or {}
    out: list[Point] = []
    for name, row in by_set.items():
        s, _ = split_set(str(name))
        try:
            n = int(questions[name])
        except (KeyError, TypeError, ValueError):
            raise InputError("missing or not a count", path=str(path), field=f"held_out.questions.{name}") from None
        for effort in EFFORTS:
            try:
                r = row[effort]
                f1, tokens, up = float(r["f1"]), float(r["tokens"]), float(r["escalated"])
            except (KeyError, TypeError, ValueError) as e:
                raise InputError(f"missing or malformed {e}", path=str(path),
                                 field=f"held_out.by_set.{name}.{effort}") from None
            out.append(Point(AUTO, s, f1 / 100, tokens, n, replay=True, effort=effort, part="dev", escalated=up,
                             source=_rel(path, root)))
    return out


def live_points(runs: Path, root: Path) -> list[Point]:
    """One point per recorded run of auto (runs/auto-*): its set and part from run.json's dataset name (else the
    directory's name, auto-<set>-<part>), its effort from run.json's options; F1 and tokens over every question it
    recorded. A run with no result yet is left out."""
    out: list[Point] = []
    for d in sorted(runs.glob("auto-*")) if runs.is_dir() else ():
        meta_path = d / "run.json"
        if not d.is_dir() or not meta_path.is_file():
            continue
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            method, dataset = meta["method"], str(meta["dataset"]["name"])
            effort = str((meta.get("options") or {}).get("effort") or Auto.Options.effort)
            date = str(meta.get("created_at") or "")[:10]
        except (ValueError, KeyError, TypeError) as e:
            raise InputError(f"not a run's run.json: {e}", path=str(meta_path)) from None
        if method != AUTO:
            raise InputError(f"a run of {method!r} among auto's runs", path=str(meta_path), field="method")
        if effort not in EFFORTS:
            raise InputError(f"effort {effort!r} is not one of {', '.join(EFFORTS)}", path=str(meta_path),
                             field="options.effort")
        res = read_results(d)
        if not res:
            continue
        s, part = split_set(dataset)
        if not part:
            part = next((p for p in PARTS if d.name.endswith(f"-{p}")), "")
        out.append(Point(AUTO, s, sum(float(r["metrics"]["f1"]) for r in res.values()) / len(res),
                         sum(float(r["metrics"].get("tokens", 0)) for r in res.values()) / len(res), len(res),
                         effort=effort, part=part, escalated=_escalated(d), source=_rel(d, root), date=date))
    return out


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _escalated(run: Path) -> float | None:
    """The share of a live run's questions that went past one retrieval (escalated, or a code rung looked more
    up), from its traces (None without them)."""
    from gaji_lab.learn.cascade import live_report

    if not any((run / f).is_file() for f in ("traces.jsonl", "traces.jsonl.xz")):
        return None
    try:
        a = live_report(run)["all"]
    except GajiError:  # no finished question with a trace
        return None
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise InputError(f"a trace or result without what auto records: {e}", path=str(run)) from None
    return a["past_one"] / a["questions"]


def points(root: Path | str = ".") -> list[Point]:
    """Every (method, set) with a recorded run, plus auto's points: its replay per effort from the shipped safety
    model and its live runs."""
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
    out += replay_points(root / CASCADE, root)
    lives = live_points(root / LIVE_RUNS, root)
    names = [(p.set, p.label) for p in lives]
    for p, name in zip(lives, names):  # two runs of one effort on one part of a set: each named by its directory
        if names.count(name) > 1:
            p.tag = Path(p.source).name
    out += lives
    if not out:
        raise InputError("no recorded results to plot", path=str(root / "benchmarks/results"))
    return out


def set_order(pts: list[Point]) -> list[str]:
    """The sets with a point: SETS' order first, then any other set a replay or a live run names."""
    have = dict.fromkeys(p.set for p in pts)
    return [s for s in SETS if s in have] + [s for s in have if s not in SETS]


def panel_size(pts: list[Point], s: str) -> int:
    """A set's question count: its fixed methods' reference questions (auto's points may be on another part)."""
    fixed = [p.n for p in pts if p.set == s and p.method != AUTO]
    return max(fixed or [p.n for p in pts if p.set == s])


def curves(pts: list[Point]) -> dict[tuple[str, bool, str], list[Point]]:
    """auto's points of one set, kind (replay or live) and part, in effort order: the knob as a curve."""
    out: dict[tuple[str, bool, str], list[Point]] = {}
    for p in sorted((p for p in pts if p.method == AUTO and p.effort), key=lambda p: EFFORTS.index(p.effort)):
        out.setdefault((p.set, p.replay, p.part), []).append(p)
    # a curve joins different efforts only: two live runs at one effort are two points, not a line
    return {k: ps for k, ps in out.items() if len({p.effort for p in ps}) == len(ps)}


FOOTNOTE = ("n = questions, when fewer than the panel's. chain: BM25, 400-character passages. KoBLEX is long-form "
            "(answers in sentences; its toq writes long answers). auto is the cascade (one retrieval; a deeper route "
            "when the safety model finds the answer unsafe), one point per effort. Hollow stars joined by a "
            "line: auto low/medium/high replayed on the questions its safety model was trained on (the dev parts: "
            "on komultihop the dev part, not the report part the panel's other points are on), each question's "
            "P(right) from a model that never saw it, an escalated question credited with its route's recorded "
            "result (benchmarks/auto/cascade/README.md). Filled black dots: live runs of auto, on the part their label "
            "names (a report part: no threshold was tuned on it; benchmarks/auto/cascade/NOTES.md).")


# where a point's label may go, in points from the point (dx, dy, horizontal alignment, vertical alignment), tried
# in order: the first that overlaps no other label, no marker and stays inside the panel wins. Beyond the first
# NEAR spots a thin line joins the label to its point
SPOTS = ((6, 4, "left", "bottom"), (6, -4, "left", "top"), (-6, 4, "right", "bottom"), (-6, -4, "right", "top"),
         (0, 9, "center", "bottom"), (0, -9, "center", "top"), (10, 14, "left", "bottom"), (10, -14, "left", "top"),
         (-10, 14, "right", "bottom"), (-10, -14, "right", "top"), (0, 20, "center", "bottom"),
         (0, -20, "center", "top"), (16, 24, "left", "bottom"), (16, -24, "left", "top"), (-16, 24, "right", "bottom"),
         (-16, -24, "right", "top"))
NEAR = 6


def place_labels(fig, ax, items: list[tuple[float, float, str, Any, float]],
                 lines: list[list[tuple[float, float]]] = ()) -> None:
    """Annotate (x, y, text, colour, marker radius in points) in `ax`, each at the first of SPOTS where it covers no
    marker, no label already placed and no line of `lines` (data coordinates) and stays inside the panel; when
    every spot covers something, the one covering least (a marker counts most): labels of close points stay
    readable."""
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    px_per_pt = fig.dpi / 72

    def box(x: float, y: float, r: float) -> Bbox:
        px, py = ax.transData.transform((x, y))
        return Bbox.from_extents(px - r, py - r, px + r, py + r)

    # (box, weight): markers, then points every few pixels along the lines, then each label as it is placed
    taken = [(box(x, y, radius * px_per_pt), 4.0) for x, y, _, _, radius in items]
    for line in lines:
        for (x0, y0), (x1, y1) in zip(line, line[1:]):
            (a0, b0), (a1, b1) = ax.transData.transform([(x0, y0), (x1, y1)])
            steps = max(1, int(((a1 - a0) ** 2 + (b1 - b0) ** 2) ** 0.5 / 4))
            for k in range(steps + 1):
                px, py = a0 + (a1 - a0) * k / steps, b0 + (b1 - b0) * k / steps
                taken.append((Bbox.from_extents(px - 1, py - 1, px + 1, py + 1), 2.0))

    def cost(bb: Bbox) -> float:
        inside = Bbox.intersection(bb, frame)
        c = 8.0 * (bb.width * bb.height - (inside.width * inside.height if inside else 0.0))
        for t, w in taken:
            i = Bbox.intersection(bb, t)
            if i is not None:
                c += w * max(i.width * i.height, 1.0)
        return c

    for x, y, text, colour, radius in items:
        best = None
        for n, (dx, dy, ha, va) in enumerate(SPOTS):
            leader = {"arrowprops": {"arrowstyle": "-", "color": colour, "linewidth": 0.6, "shrinkA": 1,
                                     "shrinkB": radius}} if n >= NEAR else {}
            t = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha, va=va, fontsize=8,
                            color=colour, **leader)
            t.update_positions(renderer)
            bb = Text.get_window_extent(t, renderer).padded(1)  # the text alone, not its leader
            c = cost(bb) + n  # the nearer spot when two cover as much
            if best is None or c < best[0]:
                if best is not None:
                    best[1].remove()
                best = (c, t, bb)
            else:
                t.remove()
            if c == n:
                break
        taken.append((best[2], 1.0))


def legend(fig, ax) -> None:
    """What the markers mean: in `ax` (an empty panel) when there is one, else under the figure's title."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", color="grey", linestyle="", markersize=7,
                      label="a fixed method: its recorded run"),
               Line2D([], [], marker="*", markerfacecolor="none", markeredgecolor="black", color="black",
                      linestyle="--", linewidth=0.8, markersize=12,
                      label="auto low/medium/high (replay, dev): held-out replay\non the safety model's training questions"),
               Line2D([], [], marker="o", color="black", linestyle="", markersize=7,
                      label="auto (live, effort X, part): a recorded run")]
    if ax is not None:
        ax.legend(handles=handles, loc="center", fontsize=9, frameon=False)
    else:
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.97), ncol=3, fontsize=8,
                   frameon=False)


def plot(pts: list[Point], out: Path | str, title: str = "") -> Path:
    """One panel per set, two to a row: F1 (%) against tokens per question (log scale), one point per method, and
    one per effort setting for auto (its replay's efforts joined by a thin line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    methods = [m for m in dict.fromkeys(p.method for p in pts) if m != AUTO]
    cmap = plt.get_cmap("tab10")
    color = {m: cmap(i % 10) for i, m in enumerate(methods)}
    color[AUTO] = "black"  # the default method stands out
    sets = set_order(pts)
    cols = 2
    rows = (len(sets) + 1) // 2
    fig, axes = plt.subplots(rows, cols, figsize=(11, 4.3 * rows), squeeze=False)
    full = {s: panel_size(pts, s) for s in sets}
    lines = curves(pts)
    for ax, s in zip(axes.flat, sets):
        for (cs, replay, _), ps in lines.items():
            if cs == s and len(ps) > 1:
                ax.plot([p.tokens for p in ps], [100 * p.f1 for p in ps], color="black", linewidth=0.8,
                        linestyle="--" if replay else "-", alpha=0.7, zorder=2)
        for p in (p for p in pts if p.set == s):
            style: dict[str, Any] = {"s": 170, "marker": "*", "facecolors": "none", "edgecolors": color[p.method],
                                     "linewidths": 1.8} if p.replay else {"s": 60, "color": color[p.method]}
            ax.scatter([p.tokens], [100 * p.f1], zorder=3, **style)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # a narrow range would label its minor ticks on top of each other
        ax.set_title(f"{TITLES.get(s, s)} ({full[s]} questions)", fontsize=11)
        ax.set_xlabel("tokens per question (log scale)")
        ax.set_ylabel("F1 (%)")
        ax.grid(alpha=0.3, which="both")
        ax.margins(x=0.15, y=0.12)
    spare = list(axes.flat)[len(sets):]
    for ax in spare:
        ax.axis("off")
    fig.suptitle(title or "Cost against quality: recorded runs, 1.5B embedded model (auto: one point per effort; "
                 "hollow = replay on dev questions, filled = live)", fontsize=12)
    legend(fig, spare[0] if spare else None)
    fig.text(0.01, 0.005, FOOTNOTE, fontsize=7.5, wrap=True)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97 if spare else 0.94))
    for ax, s in zip(axes.flat, sets):  # labels last: their room is measured on the final layout
        # auto's labels first: they are the longest and the ones this figure is about
        mine = sorted((p for p in pts if p.set == s), key=lambda p: p.method != AUTO)
        place_labels(fig, ax, [(p.tokens, 100 * p.f1, p.label + (f" n={p.n}" if p.n != full[s] else ""),
                                color[p.method], 6.5 if p.replay else 4.0) for p in mine],
                     [[(p.tokens, 100 * p.f1) for p in ps] for (cs, _, _), ps in lines.items() if cs == s])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.tmp{out.suffix}")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(out)  # atomic: a reader never sees half a PNG
    return out


def table(pts: list[Point]) -> str:
    """The plotted numbers as markdown (set, method, F1, tokens/q, n, auto's escalated share), then what each auto
    point is."""
    order = set_order(pts)
    lines = ["| set | method | F1 | tokens/q | n | escalated |", "|---|---|---:|---:|---:|---:|"]
    for p in sorted(pts, key=lambda p: (order.index(p.set), p.tokens)):
        up = "" if p.escalated is None else f"{p.escalated:.0%}"
        lines.append(f"| {p.set} | {p.label} | {100 * p.f1:.1f} | {p.tokens:,.0f} | {p.n} | {up} |")
    replays = [p for p in pts if p.method == AUTO and p.replay]
    lives = [p for p in pts if p.method == AUTO and not p.replay]
    if replays or lives:
        lines += ["", "auto is the cascade: one retrieval, then a deeper route (a chain, the tree) when the safety "
                  "model finds the answer unsafe; its effort (low, medium, high) sets how unsure an answer must be "
                  "to escalate, and at medium and high the question shapes the model's `start` names begin on a "
                  "deeper route. escalated = the share of questions that went past one retrieval (an escalation, or "
                  "a code rung's look-ups: a choice decided by code, a Korean bridge split).", ""]
    if replays:
        srcs = ", ".join(f"`{x}`" for x in dict.fromkeys(p.source for p in replays))
        lines.append(f"- **auto low/medium/high (replay, dev)**: the safety model's held-out replay ({srcs}, "
                     "`held_out.by_set`) on the questions it was trained on, each set's dev part (on komultihop the "
                     "dev part, not the report part of the other rows). Each question's P(right) comes from a model "
                     "fitted without it; an escalated question takes its route's recorded F1 and tokens. An "
                     "estimate, not a run.")
    for p in lives:
        up = "" if p.escalated is None else f", {p.escalated:.0%} escalated"
        when = f", recorded {p.date} with the safety model of that day" if p.date else ""
        lines.append(f"- **{p.label}** on {p.set}: the recorded run `{p.source}`, {p.n} questions{up}{when}.")
    return "\n".join(lines) + "\n"
