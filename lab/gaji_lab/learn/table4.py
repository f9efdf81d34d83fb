"""Paper 003's Table 4 from `gaji eval` runs of the chain method: EM, F1, ATC per dataset for
L = 1, L = 6 and L = 6 + classifier (and any other configuration given), and Δ of the early-stopped
run against L = 6 (EM/F1 in points, ATC in %).

Every configuration of one dataset is scored on the *same* questions: those every run finished
without error (runs are resumable and may have been cut at different points).

    gaji classifier table4 --run hotpotqa:L1=runs/eval/chain/hotpotqa-L1 --run hotpotqa:L6=... \\
        --run hotpotqa:L6+classifier=... --base L6 --out benchmarks/chain
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from gaji.errors import ConfigError
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant
from gaji.io import atomic_write_json, atomic_write_text


def read_results(run_dir: str | Path) -> dict[str, dict]:
    p = Path(run_dir) / "results.jsonl"
    if not p.exists():
        raise ConfigError(f"{run_dir}: no results.jsonl (not a `gaji eval` run directory)")
    # the last finished line per question (a torn or failed line does not replace a good one)
    return {str(r["id"]): r for r in read_jsonl_tolerant(p)
            if "id" in r and r.get("status") == "ok" and not r.get("error")}


EARLY_STOPS = ("classifier_sufficient", "evaluator_sufficient", "repeat")  # chain stop reasons before L


def read_chain_ends(run_dir: str | Path) -> dict[str, dict]:
    """Per question, how the chain ended: {"steps": chain length, "early": ended by its stop policy or
    stop_on_repeat (EARLY_STOPS), not by L or the call budget},
    from the root of each trace in traces.jsonl (empty when the run kept no traces)."""
    out: dict[str, dict] = {}
    for qid, rec in latest_by_id(read_jsonl_tolerant(Path(run_dir) / "traces.jsonl")).items():
        data = ((rec.get("trace") or {}).get("root") or {}).get("data") or {}
        if isinstance(data.get("steps"), int):
            out[qid] = {"steps": data["steps"], "early": data.get("stop_reason") in EARLY_STOPS}
    return out


def table4(runs: dict[str, dict[str, str]], base: str = "L6", compare: str = "") -> dict[str, Any]:
    """runs: dataset -> {config label -> run dir}. Returns per dataset the common question count and
    per config em/f1 (×100), atc, calls, and (when the runs kept traces) the mean chain length `steps`
    and `early`, the questions that stopped before L (EARLY_STOPS); Δ of `compare` (default: the last
    config) vs `base`."""
    table: dict[str, Any] = {}
    for ds, confs in runs.items():
        res = {label: read_results(d) for label, d in confs.items()}
        common = set.intersection(*(set(r) for r in res.values())) if res else set()
        rows: dict[str, dict] = {}
        for label, r in res.items():
            xs = [r[i] for i in sorted(common)]
            n = len(xs) or 1
            rows[label] = {
                "em": round(100 * sum(x["metrics"].get("em", 0.0) for x in xs) / n, 1),
                "f1": round(100 * sum(x["metrics"].get("f1", 0.0) for x in xs) / n, 1),
                "atc": round(sum(x["metrics"].get("tokens", 0) for x in xs) / n, 1),
                "calls": round(sum(x["metrics"].get("calls", 0) for x in xs) / n, 2),
            }
            ends = read_chain_ends(confs[label])
            if common and all(i in ends for i in common):
                rows[label]["steps"] = round(sum(ends[i]["steps"] for i in common) / len(common), 2)
                rows[label]["early"] = sum(ends[i]["early"] for i in common)
        entry: dict[str, Any] = {"questions": len(common), "configs": rows}
        other = compare or (list(confs)[-1] if confs else "")
        if base in rows and other in rows and other != base and common:
            b, c = rows[base], rows[other]
            entry["delta"] = {"of": other, "vs": base, "em_points": round(c["em"] - b["em"], 1),
                              "f1_points": round(c["f1"] - b["f1"], 1),
                              "atc_pct": round(100 * (c["atc"] - b["atc"]) / b["atc"], 1) if b["atc"] else None}
        table[ds] = entry
    return table


def markdown(table: dict[str, Any]) -> str:
    datasets = list(table)
    configs: list[str] = []
    for ds in datasets:
        for c in table[ds]["configs"]:
            if c not in configs:
                configs.append(c)
    steps = any("steps" in r for ds in datasets for r in table[ds]["configs"].values())
    cols = ["EM", "F1", "ATC"] + (["steps"] if steps else [])
    head = "| | " + " | ".join(f"{ds} (n={table[ds]['questions']}) " + " | ".join(cols) for ds in datasets) + " |"
    sep = "|---|" + "---:|" * len(cols) * len(datasets)
    lines = [head, sep]
    for c in configs:
        cells = []
        for ds in datasets:
            r = table[ds]["configs"].get(c)
            cells += [f"{r['em']:.1f}", f"{r['f1']:.1f}", f"{r['atc']:,.0f}"] if r else ["–"] * 3
            if steps:
                cells.append(f"{r['steps']:.2f}" if r and "steps" in r else "–")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    cells = []
    for ds in datasets:
        d = table[ds].get("delta")
        if d:
            atc = f"{d['atc_pct']:+.1f} %" if d["atc_pct"] is not None else "–"
            cells += [f"{d['em_points']:+.1f}", f"{d['f1_points']:+.1f}", atc]
        else:
            cells += ["–"] * 3
        if steps:
            cells.append("")
    if any(table[ds].get("delta") for ds in datasets):
        of = next(table[ds]["delta"] for ds in datasets if table[ds].get("delta"))
        lines.append(f"| Δ ({of['of']} vs {of['vs']}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_table4(runs: dict[str, dict[str, str]], out_dir: str | Path, base: str = "L6", compare: str = "") -> dict:
    t = table4(runs, base, compare)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "table4.json", {"runs": runs, "base": base, "table": t})
    atomic_write_text(out / "table4.md", markdown(t))
    return t
