"""`gaji eval compare DIR…`: runs side by side, as a markdown table and two plots.

    metrics.png        one panel per metric, one bar per run
    cost_quality.png   ATC (x) against the main quality metric (y): F1, else ROUGE-L, EM, R@5 …

Columns are labelled from what differs between the runs' run.json (method, model, dataset,
options, retriever, k), so two methods on one set read "oner" / "ircot", and one method on two
models reads "oner · local" / "oner · local:small". Summaries are recomputed from results.jsonl,
so an interrupted run compares on the questions it finished (the table says how many); with `common`,
every run is cut to the questions all of them finished, so the columns average over the same questions.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from gaji.errors import ConfigError
from gaji.eval.summary import display_scale, format_value, is_quality, load_run, markdown_table, metric_label, ordered, summarize

QUALITY_PREFERENCE = ("f1", "rouge_l", "em", "recall@5", "top@5", "toq_oass", "judge_top@1")
PLOT_COST = ("tokens", "calls", "wall_s")


@dataclass
class RunView:
    path: Path
    info: dict
    summary: dict
    label: str = ""
    records: list[dict] = field(default_factory=list)

    def mean(self, metric: str) -> float | None:
        m = self.summary["metrics"].get(metric)
        return m["mean"] if m else None


def _short_options(info: dict) -> str:
    raw = info.get("raw_options") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(raw.items())) or "defaults"


_LABEL_FIELDS = (
    ("method", lambda i: i.get("method", "?")),
    ("model", lambda i: i.get("llm") or i.get("model") or "?"),
    ("dataset", lambda i: (i.get("dataset") or {}).get("name", "?")),
    ("options", _short_options),
    ("retriever", lambda i: f"{i.get('retriever')}@{i.get('k')}" if i.get("retriever") else "no retrieval"),
)


def label_runs(views: list[RunView]) -> None:
    """Set each view's label from the run.json fields that differ across the runs."""
    varying = [(n, f) for n, f in _LABEL_FIELDS if len({f(v.info) for v in views}) > 1]
    if not any(n == "method" for n, _ in varying):
        varying.insert(0, _LABEL_FIELDS[0])
    for v in views:
        v.label = " · ".join(str(f(v.info)) for _, f in varying)
    seen: dict[str, int] = {}
    for v in views:  # still identical: add the directory name
        seen[v.label] = seen.get(v.label, 0) + 1
    for v in views:
        if seen[v.label] > 1:
            v.label = f"{v.label} ({v.path.name})"


def load_views(dirs: list[str], common: bool = False) -> list[RunView]:
    views = []
    for d in dirs:
        p = Path(d)
        if not (p / "results.jsonl").exists() and not (p / "run.json").exists():
            raise ConfigError(f"{p}: not an eval run directory (no run.json / results.jsonl)")
        info, records = load_run(p)
        summary = summarize(records)
        sj = p / "summary.json"
        if sj.exists():
            try:
                summary["questions_per_hour"] = json.loads(sj.read_text(encoding="utf-8")).get("questions_per_hour")
            except json.JSONDecodeError:
                pass
        views.append(RunView(p, info, summary, records=records))
    if common:
        keep_common(views)
    label_runs(views)
    return views


def keep_common(views: list[RunView]) -> None:
    """Cut every run to the questions all runs finished (by id) and recompute its summary."""
    ids = set.intersection(*(set(str(r.get("id")) for r in v.records) for v in views))
    if not ids:
        raise ConfigError("--common: the runs have no question in common (" + ", ".join(str(v.path) for v in views) + ")")
    for v in views:
        v.records = [r for r in v.records if str(r.get("id")) in ids]
        qph = v.summary.get("questions_per_hour")
        v.summary = summarize(v.records)
        v.summary["questions_per_hour"] = qph
        v.summary["common"] = len(ids)


def markdown(views: list[RunView], metrics: list[str] | None = None) -> str:
    names = metrics or ordered(n for v in views for n in v.summary["metrics"])
    header = ["metric"] + [v.label for v in views]
    rows = [[metric_label(n)] + [format_value(n, v.mean(n)) for v in views] for n in names]
    rows.append(["questions"] + [str(v.summary["questions"]) for v in views])
    rows.append(["errors"] + [str(v.summary["errors"]) for v in views])
    rows.append(["questions/hour"] + [
        f"{v.summary['questions_per_hour']:,.0f}" if v.summary.get("questions_per_hour") else "–" for v in views])
    legend = []
    for v in views:
        i = v.info
        ds = i.get("dataset") or {}
        legend.append(
            f"- **{v.label}**: `{v.path}` — {i.get('method')} ({_short_options(i)}), model {i.get('llm')}, "
            f"dataset {ds.get('name')} (sha256 {str(ds.get('sha256', ''))[:12]}), "
            f"retriever {i.get('retriever') or '–'} k={i.get('k') or '–'}, gaji {i.get('gaji_version')}, "
            f"{i.get('created_at', '')}"
        )
    notes = sorted({n for v in views for n in (v.info.get("notes") or [])})
    text = markdown_table(header, rows)
    if any("common" in v.summary for v in views):
        text = f"On the {views[0].summary['common']} questions every run finished.\n\n" + text
    by_type = by_type_table(views)
    if by_type:
        text += "\n\n" + by_type
    text += "\n\n" + "\n".join(legend)
    if notes:
        text += "\n\n" + "\n".join(f"> {n}" for n in notes)
    return text + "\n"


def by_type_table(views: list[RunView]) -> str:
    """The main quality metric by question type (HotpotQA's bridge/comparison, KoBLEX's hops, …), when the
    records carry at least two types; "" otherwise. Questions without a type count as "untyped"."""
    q = main_quality(views)
    types = sorted({str(r.get("type") or "untyped") for v in views for r in v.records})
    if q is None or len([t for t in types if t != "untyped"]) < 2:
        return ""
    rows = []
    for t in types:
        cells, ns = [], []
        for v in views:
            vals = [r["metrics"][q] for r in v.records
                    if str(r.get("type") or "untyped") == t and isinstance((r.get("metrics") or {}).get(q), (int, float))]
            ns.append(len(vals))
            cells.append(format_value(q, sum(vals) / len(vals)) if vals else "–")
        if len(set(ns)) > 1:  # the runs finished different questions: give each cell its count
            cells = [f"{c} ({n})" for c, n in zip(cells, ns)]
            rows.append([t] + cells)
        else:
            rows.append([f"{t} ({ns[0]})"] + cells)
    return f"{metric_label(q)} by question type:\n\n" + markdown_table(["type"] + [v.label for v in views], rows)


def main_quality(views: list[RunView]) -> str | None:
    for name in QUALITY_PREFERENCE:
        if all(v.mean(name) is not None for v in views):
            return name
    for name in QUALITY_PREFERENCE:
        if any(v.mean(name) is not None for v in views):
            return name
    return None


def write_plots(views: list[RunView], out_dir: str | Path) -> list[Path]:
    """metrics.png and cost_quality.png in out_dir; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    names = [n for n in ordered(n for v in views for n in v.summary["metrics"]) if is_quality(n) or n in PLOT_COST]
    labels = [v.label for v in views]
    colors = [plt.get_cmap("tab10")(i % 10) for i in range(len(views))]
    if names:
        cols = min(4, len(names))
        rows = (len(names) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows), squeeze=False)
        for ax, name in zip(axes.flat, names):
            vals = [v.mean(name) for v in views]
            ax.bar(range(len(views)), [(x or 0.0) * display_scale(name) for x in vals], color=colors)
            ax.set_title(metric_label(name), fontsize=10)
            ax.set_xticks(range(len(views)))
            ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        for ax in list(axes.flat)[len(names):]:
            ax.axis("off")
        fig.tight_layout()
        p = out / "metrics.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    q = main_quality(views)
    if q is not None:
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for v, c in zip(views, colors):
            x, y = v.mean("tokens"), v.mean(q)
            if x is None or y is None:
                continue
            y = y * display_scale(q)
            ax.scatter([x], [y], color=c, s=60, label=v.label)
            ax.annotate(v.label, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
        ax.set_xlabel("ATC (tokens per question)")
        ax.set_ylabel(metric_label(q))
        ax.set_title(f"cost vs quality: {metric_label(q)} against ATC")
        ax.grid(alpha=0.3)
        if len(views) > 1:
            ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        p = out / "cost_quality.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    return written


def default_plot_dir(dirs: list[str]) -> Path:
    parents = {Path(d).resolve().parent for d in dirs}
    base = parents.pop() if len(parents) == 1 else Path.cwd()
    return base / "compare"


def compare(dirs: list[str], out_dir: str | None = None, metrics: list[str] | None = None,
            plots: bool = True, common: bool = False) -> tuple[str, list[Path]]:
    """The markdown table (also written as compare.md) and the plot files."""
    if not dirs:
        raise ConfigError("gaji eval compare needs at least one run directory")
    views = load_views(dirs, common=common)
    md = markdown(views, metrics)
    out = Path(out_dir) if out_dir else default_plot_dir(dirs)
    out.mkdir(parents=True, exist_ok=True)
    from gaji.io import atomic_write_text

    atomic_write_text(out / "compare.md", md)
    files = [out / "compare.md"]
    if plots:
        files += write_plots(views, out)
    return md, files
