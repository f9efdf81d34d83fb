"""Recorded benchmarks: `gaji bench run CONFIG [--record] [--fresh]`, `gaji bench check`, `gaji bench report`.

`bench run` resumes an interrupted run of the same configuration in .gaji/bench/<name> (`--fresh` starts
again); `bench check` always measures afresh.

A benchmark is a YAML file under benchmarks/configs/ naming an eval run and the scores measured
when it was recorded:

    # hand-written comments are kept
    dataset: hotpotqa          # name or path (see `gaji eval --help`)
    method: oner               # or, instead, `recipe: NAME[@VERSION]` (gaji/recipes.py; `method` may stay
    options: {}                #   beside it if it names the recipe's method); options go over the recipe's
    retriever: hybrid
    k: 5
    model: local               # LLM spec
    llm_settings: {}           # optional: pin LLM settings for the run, e.g. {prompt_cache: false, parallel: 1}
                               #   (prompt_cache, parallel, ctx_size, threads, retries, timeout_s)
    limit: 50
    cheap: false               # `gaji bench check` re-runs the cheap ones
    tolerance:                 # allowed drift: a number is absolute (0.05 = 5 points of EM),
      default: 0.05            #   "10%" is relative to the recorded value; `default` covers the
      tokens: 10%              #   quality metrics not listed (EM, F1, ROUGE-L, R@k, Top@k, …)
    recorded:                  # written by --record (keep it the last key: it is regenerated)
      date: …
      scores: {em: …, f1: …, tokens: …}

`run` evaluates into .gaji/bench/<name> (a fresh run each time) and prints the scores next to the
recorded ones; `--record` then writes the scores into the YAML (atomically, only the `recorded:`
block is rewritten) and copies the run files to benchmarks/results/<name>/. `check` runs the cheap
configs within `--max-minutes` and exits 1 when a score drifts beyond its tolerance. `report`
regenerates the block between `<!-- bench:begin -->` and `<!-- bench:end -->` in BENCHMARKS.md.
The LLM response cache is off for benchmarks (they measure time and cost), unless `--cache`.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gaji import __version__
from gaji.errors import ConfigError
from gaji.eval.summary import format_value, is_quality, markdown_table, means, metric_label
from gaji.io import XZ, atomic_write_text

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
_KEYS = {"name", "description", "dataset", "method", "recipe", "options", "retriever", "k", "model", "limit", "cheap",
         "concurrency", "tolerance", "recorded", "toq_eval", "judge", "judge_llm", "ks",
         "retriever_options", "llm_settings"}
# settings a config may pin for its LLM (cost A/B runs: prompt cache off, one slot, ...); others come from the user
LLM_SETTINGS = ("prompt_cache", "parallel", "ctx_size", "threads", "retries", "timeout_s")
REPORT_COLUMNS = ("em", "f1", "rouge_l", "recall@5", "tokens", "calls", "wall_s")
LICENCES = {
    "hotpotqa": "HotpotQA (CC BY-SA 4.0)",
    "2wikimultihopqa": "2WikiMultihopQA (Apache-2.0 per its card)",
    "musique": "MuSiQue (CC BY 4.0)",
    "bamboogle": "Bamboogle (licence unstated; released with Self-Ask)",
    "asqa": "ASQA (Apache-2.0)",
    "odsum_story": "ODSum-Story (MIT; stories from SQuALITY)",
    "koblex": "KoBLEX (CC BY-NC 4.0)",
    "korquad": "KorQuAD 1.0 (CC BY-ND 2.0 KR)",
}


@dataclass
class BenchConfig:
    path: Path
    name: str
    dataset: str
    method: str
    options: dict[str, Any] = field(default_factory=dict)
    retriever: str | None = None
    k: int | None = None
    model: str = "local"
    limit: int | None = None
    cheap: bool = False
    concurrency: int | None = None
    tolerance: dict[str, Any] = field(default_factory=dict)
    recorded: dict[str, Any] | None = None
    description: str = ""
    toq_eval: bool = False
    judge: bool = False
    judge_llm: str | None = None
    ks: tuple[int, ...] = (2, 5, 10)  # recall@k / Top@k cut-offs (long-form sets want deeper ones: 5,10,20,50)
    retriever_options: dict[str, Any] = field(default_factory=dict)  # e.g. {max_depth: 1} for contre
    llm_settings: dict[str, Any] = field(default_factory=dict)  # e.g. {prompt_cache: false}; keys in LLM_SETTINGS
    recipe: str = ""  # the recipe the config names, "name@version"; `options` then holds its options and the config's
    given_options: dict[str, Any] = field(default_factory=dict)  # the config's own options (over the recipe's)


def load_config(path: str | Path) -> BenchConfig:
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"benchmark config not found: {p}")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{p}: cannot parse YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: a benchmark config is a mapping")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{p}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}")
    if not data.get("dataset"):
        raise ConfigError(f"{p}: missing 'dataset'")
    if not data.get("method") and not data.get("recipe"):
        raise ConfigError(f"{p}: missing 'method' (or 'recipe')")
    tol = data.get("tolerance") or {}
    if not isinstance(tol, dict):
        raise ConfigError(f"{p}: tolerance must be a mapping of metric -> number or 'N%'")
    for m, v in tol.items():
        _parse_tolerance(v, f"{p}: tolerance of {m!r}")
    opts = data.get("options") or {}
    if not isinstance(opts, dict):
        raise ConfigError(f"{p}: options must be a mapping")
    method, given = str(data.get("method") or ""), {str(k): v for k, v in opts.items()}
    recipe_ref, merged = "", dict(given)
    if data.get("recipe"):
        method, merged, recipe_ref = _recipe(data["recipe"], method, given, p)
    ks = data.get("ks", [2, 5, 10])
    if not isinstance(ks, list) or not ks or not all(isinstance(k, int) and not isinstance(k, bool) and k > 0 for k in ks):
        raise ConfigError(f"{p}: ks must be a list of positive integers, e.g. [5, 10, 20]")
    if not isinstance(data.get("retriever_options") or {}, dict):
        raise ConfigError(f"{p}: retriever_options must be a mapping, e.g. {{max_depth: 1}}")
    llm_settings = _llm_settings(data.get("llm_settings"), p)
    rec = data.get("recorded")
    if rec is not None and not isinstance(rec, dict):
        raise ConfigError(f"{p}: recorded must be a mapping (or absent)")
    try:
        return BenchConfig(
            path=p,
            name=str(data.get("name") or p.stem),
            dataset=str(data["dataset"]),
            method=method,
            options=merged,
            retriever=data.get("retriever"),
            k=int(data["k"]) if data.get("k") is not None else None,
            model=str(data.get("model") or "local"),
            limit=int(data["limit"]) if data.get("limit") is not None else None,
            cheap=bool(data.get("cheap", False)),
            concurrency=int(data["concurrency"]) if data.get("concurrency") is not None else None,
            tolerance=dict(tol),
            recorded=rec,
            description=str(data.get("description") or ""),
            toq_eval=bool(data.get("toq_eval", False)),
            judge=bool(data.get("judge", False)),
            judge_llm=data.get("judge_llm"),
            ks=tuple(ks),
            retriever_options={str(k): v for k, v in (data.get("retriever_options") or {}).items()},
            llm_settings=llm_settings,
            recipe=recipe_ref,
            given_options=given,
        )
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{p}: bad value: {e}") from None


def _recipe(value: Any, method: str, given: dict[str, Any], p: Path) -> tuple[str, dict[str, Any], str]:
    """(method, options, "name@version") for a config's `recipe:`; the config's options go over the recipe's."""
    from gaji import recipes

    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{p}: recipe must be a recipe name, e.g. toq-paper; "
                          f"known: {', '.join(recipes.RECIPES.names())}")
    name, version = recipes.parse_ref(value.strip())
    if name not in recipes.RECIPES:
        raise ConfigError(f"{p}: recipe: unknown recipe {name!r}; known: {', '.join(recipes.RECIPES.names())}")
    r = recipes.get(name)
    if version is not None and version != r.version:
        raise ConfigError(f"{p}: recipe: {name!r} is at version {r.version}, not {version}")
    if method and method != r.method:
        raise ConfigError(f"{p}: recipe {name!r} runs method {r.method!r}, but the config says method {method!r}")
    return r.method, {**r.options, **given}, r.ref


def _llm_settings(value: Any, p: Path) -> dict[str, Any]:
    """The config's llm_settings, each checked and coerced like the same setting from a flag."""
    from gaji.config import coerce_setting

    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{p}: llm_settings must be a mapping, e.g. {{prompt_cache: false}}")
    out = {}
    for k, v in value.items():
        if k not in LLM_SETTINGS:
            raise ConfigError(f"{p}: llm_settings: unknown setting {k!r}; known: {', '.join(LLM_SETTINGS)}")
        out[k] = coerce_setting(k, v, f"{p}: llm_settings.{k}")
    return out


def _parse_tolerance(v: Any, what: str) -> tuple[float, bool]:
    """(amount, relative)."""
    if isinstance(v, bool):
        raise ConfigError(f"{what}: must be a number or 'N%'")
    if isinstance(v, (int, float)):
        return float(v), False
    if isinstance(v, str) and v.strip().endswith("%"):
        try:
            return float(v.strip()[:-1]) / 100.0, True
        except ValueError:
            pass
    raise ConfigError(f"{what}: must be a number or 'N%', not {v!r}")


# -- paths -----------------------------------------------------------------------
def project_root() -> Path:
    """The folder holding benchmarks/: the cwd or a parent of it, else the source checkout."""
    for base in (Path.cwd(), *Path.cwd().parents):
        if (base / "benchmarks" / "configs").is_dir():
            return base
    return Path(__file__).resolve().parents[3]


def configs_dir(root: Path | None = None) -> Path:
    return (root or project_root()) / "benchmarks" / "configs"


def find_config(spec: str, root: Path | None = None) -> Path:
    p = Path(spec)
    if p.exists():
        return p
    cand = configs_dir(root) / (spec if spec.endswith((".yaml", ".yml")) else f"{spec}.yaml")
    if cand.exists():
        return cand
    names = ", ".join(sorted(x.stem for x in configs_dir(root).glob("*.y*ml"))) or "(none)"
    raise ConfigError(f"no benchmark config {spec!r}; known: {names}")


def all_configs(root: Path | None = None) -> list[BenchConfig]:
    d = configs_dir(root)
    return [load_config(p) for p in sorted(list(d.glob("*.yaml")) + list(d.glob("*.yml")))]


# -- running ---------------------------------------------------------------------
def run_config(cfg: BenchConfig, out_dir: Path, *, cache: bool = False, progress: bool = True,
               console: Any = None, fresh: bool = True) -> dict:
    """Run the benchmark's eval in out_dir and return the eval summary. fresh=False resumes an interrupted
    run of the same configuration (questions already answered are kept; a different configuration is refused)."""
    from gaji.config import load_settings
    from gaji.eval.runner import EvalConfig, EvalRun

    flags: dict[str, Any] = {"llm": cfg.model, "method": cfg.method, "cache": cache}
    if cfg.retriever:
        flags["retriever"] = cfg.retriever
    if cfg.k is not None:
        flags["k"] = cfg.k
    if cfg.retriever_options:
        flags["retriever_options"] = cfg.retriever_options
    flags.update(cfg.llm_settings)
    settings = load_settings(flags)
    ecfg = EvalConfig(
        data=cfg.dataset, method=cfg.method, options={k: str(v) for k, v in cfg.options.items()},
        out=str(out_dir), limit=cfg.limit, concurrency=cfg.concurrency, toq_eval=cfg.toq_eval,
        judge=cfg.judge, judge_llm=cfg.judge_llm, overwrite=fresh, progress=progress, restart_flag="--fresh",
        ks=cfg.ks,
    )
    run = EvalRun(ecfg, settings, console=console)
    try:
        return run.run()
    finally:
        run.close()


@dataclass
class Drift:
    metric: str
    recorded: float
    measured: float | None
    allowed: float  # absolute allowed difference
    ok: bool


def tolerance_for(metric: str, tol: dict[str, Any]) -> tuple[float, bool] | None:
    if metric in tol:
        return _parse_tolerance(tol[metric], f"tolerance of {metric!r}")
    if "default" in tol and is_quality(metric):
        return _parse_tolerance(tol["default"], "default tolerance")
    return None


def check_drift(recorded: dict[str, float], measured: dict[str, float], tol: dict[str, Any]) -> list[Drift]:
    """One Drift per recorded metric that has a tolerance; a metric that disappeared is a drift."""
    out = []
    for m, r in recorded.items():
        t = tolerance_for(m, tol)
        if t is None or not isinstance(r, (int, float)):
            continue
        amount, relative = t
        allowed = amount * abs(float(r)) if relative else amount
        v = measured.get(m)
        ok = v is not None and abs(float(v) - float(r)) <= allowed + 1e-12
        out.append(Drift(m, float(r), v, allowed, ok))
    return out


def _git_commit(root: Path) -> str | None:
    try:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0 or not r.stdout.strip():
        return None
    commit = r.stdout.strip()
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        dirty = ""
    return commit + ("-dirty" if dirty else "")


def recorded_block(summary: dict, minutes: float, root: Path, commit: str | None = None) -> dict[str, Any]:
    """The `recorded:` block; `commit` is the code the run started with (default: the tree's commit now)."""
    from gaji.eval.record import machine_info, now_iso

    scores = {}
    for k, v in means(summary).items():
        scores[k] = round(v, 4) if is_quality(k) else round(v, 2)
    return {
        "date": now_iso(),
        "gaji_version": __version__,
        "commit": commit or _git_commit(root),
        "machine": machine_info(),
        "questions": summary.get("questions"),
        "errors": summary.get("errors"),
        "minutes": round(minutes, 2),
        "sittings": summary.get("sittings"),
        "questions_per_hour": summary.get("questions_per_hour_total") or summary.get("questions_per_hour"),
        "scores": scores,
    }


_TOP_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:")


def write_recorded(path: Path, recorded: dict[str, Any]) -> None:
    """Replace (or append) the top-level `recorded:` block of a config, keeping every other line and
    comment as written; atomic, and checked to parse back to the same config."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if re.match(r"^recorded\s*:", ln)), None)
    if start is None:
        head, tail = lines, []
    else:
        end = start + 1
        while end < len(lines) and not _TOP_KEY.match(lines[end]):
            end += 1
        head, tail = lines[:start], lines[end:]
    if head and not head[-1].endswith("\n"):
        head[-1] += "\n"
    block = yaml.safe_dump({"recorded": recorded}, sort_keys=False, allow_unicode=True, default_flow_style=False)
    new = "".join(head) + block + "".join(tail)
    before = yaml.safe_load(text) or {}
    after = yaml.safe_load(new) or {}
    before["recorded"] = recorded
    if yaml.safe_dump(before, sort_keys=True) != yaml.safe_dump(after, sort_keys=True):
        raise ConfigError(f"{path}: could not rewrite the recorded block safely; edit the file by hand")
    atomic_write_text(path, new)


def copy_results(run_dir: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("run.json", "summary.json", "results.jsonl", "traces.jsonl"):
        src = run_dir / name
        if src.exists():
            tmp = dest / f".{name}.tmp"
            shutil.copyfile(src, tmp)
            tmp.replace(dest / name)
            # a compressed copy recorded earlier would now be a stale second version of this file
            (dest / f"{name}{XZ}").unlink(missing_ok=True)


def drift_table(drifts: list[Drift]) -> str:
    rows = [[metric_label(d.metric), format_value(d.metric, d.recorded), format_value(d.metric, d.measured),
             format_value(d.metric, d.allowed), "ok" if d.ok else "DRIFT"] for d in drifts]
    return markdown_table(["metric", "recorded", "measured", "± allowed", ""], rows)


# -- run, check, report ----------------------------------------------------------
@dataclass
class BenchRun:
    """One `gaji bench run`: the config, the run directory and the eval summary of what it holds."""

    config: BenchConfig
    out: Path
    summary: dict
    minutes: float  # this invocation's, plus the earlier sittings' of a resumed run
    commit: str | None  # the code the run started with
    root: Path

    @property
    def kept(self) -> int:
        """Questions kept from an earlier run of the same configuration (0 for a fresh run)."""
        return max(0, self.summary.get("questions", 0) - self.summary.get("questions_this_session", 0))

    @property
    def drifts(self) -> list[Drift] | None:
        """The scores against the recorded ones (None: nothing recorded yet)."""
        rec = self.config.recorded
        if not (rec and rec.get("scores")):
            return None
        return check_drift(rec["scores"], means(self.summary), self.config.tolerance)

    @property
    def nothing_new(self) -> bool:
        """Recorded already and nothing measured in this sitting: re-recording would stamp old results with
        today's date and commit."""
        return bool(self.config.recorded) and self.summary.get("questions_this_session", 0) == 0


def run_benchmark(spec: str, out: str | None = None, *, cache: bool = False, progress: bool = True,
                  fresh: bool = False) -> BenchRun:
    """Run the benchmark config `spec` (file or name) in `out` (default .gaji/bench/<name>); fresh=False resumes
    an interrupted run of the same configuration."""
    root = project_root()
    cfg = load_config(find_config(spec, root))
    out_dir = Path(out) if out else Path(".gaji") / "bench" / cfg.name
    t0 = time.perf_counter()
    commit = _git_commit(root)  # the code this process runs; HEAD may move while a long run goes on
    summary = run_config(cfg, out_dir, cache=cache, progress=progress, fresh=fresh)
    minutes = (time.perf_counter() - t0) / 60
    # a resumed run: add the earlier sittings' time (this invocation's time includes its set-up)
    minutes += max(0.0, float(summary.get("elapsed_total_s") or 0) - float(summary.get("elapsed_s") or 0)) / 60
    return BenchRun(cfg, out_dir, summary, minutes, commit, root)


def record_run(run: BenchRun) -> Path:
    """Write the run's scores into its config's `recorded:` block and copy its files to
    benchmarks/results/<name>/ (returned)."""
    write_recorded(run.config.path, recorded_block(run.summary, run.minutes, run.root, run.commit))
    dest = run.root / "benchmarks" / "results" / run.config.name
    copy_results(run.out, dest)
    return dest


@dataclass
class CheckResult:
    cheap: int  # cheap configs found
    lines: list[str]  # one entry (and its drift table) per cheap config
    failed: list[str]  # names of the configs that drifted beyond tolerance


def check_benchmarks(max_minutes: float | None = None, *, cache: bool = False, progress: bool = True) -> CheckResult:
    """Re-run the cheap configs (afresh, in .gaji/bench/check-<name>), none started after `max_minutes`."""
    root = project_root()
    cheap = [c for c in all_configs(root) if c.cheap]
    budget = max_minutes * 60 if max_minutes is not None else None
    t0 = time.perf_counter()
    failed: list[str] = []
    lines: list[str] = []
    for cfg in cheap:
        if budget is not None and time.perf_counter() - t0 >= budget:
            lines.append(f"- {cfg.name}: skipped (over --max-minutes {max_minutes})")
            continue
        if not (cfg.recorded and cfg.recorded.get("scores")):
            lines.append(f"- {cfg.name}: not recorded yet (`gaji bench run {cfg.path} --record`); skipped")
            continue
        summary = run_config(cfg, Path(".gaji") / "bench" / f"check-{cfg.name}", cache=cache, progress=progress)
        drifts = check_drift(cfg.recorded["scores"], means(summary), cfg.tolerance)
        bad = [d for d in drifts if not d.ok]
        if bad:
            failed.append(cfg.name)
        lines.append(f"- {cfg.name}: {'DRIFT' if bad else 'ok'} ({len(drifts)} metric(s) checked)")
        if drifts:
            lines.append(drift_table(drifts))
    return CheckResult(len(cheap), lines, failed)


def _retrieval_label(c: BenchConfig) -> str:
    if c.method == "nor":
        return "–"
    if c.options.get("closed_book"):
        return "closed book"
    from gaji.config import Settings

    d = Settings()
    return f"{c.retriever or d.retriever}@{c.k or d.k}"


def _method_label(c: BenchConfig) -> str:
    """`toq (respond=json)`, or for a recipe `toq-paper@1 (evaluate_root=False)`: the recipe and the config's own
    options over it."""
    own = c.given_options if c.recipe else c.options
    return (c.recipe or c.method) + (f" ({', '.join(f'{k}={v}' for k, v in own.items())})" if own else "")


def report_block(configs: list[BenchConfig]) -> str:
    rows = []
    datasets = []
    for c in configs:
        rec = c.recorded or {}
        scores = rec.get("scores") or {}
        ds = c.dataset
        if ds not in datasets:
            datasets.append(ds)
        rows.append([
            f"`{c.name}`", ds, _method_label(c),
            f"`{c.model}`" + (f" ({', '.join(f'{k}={v}' for k, v in c.llm_settings.items())})" if c.llm_settings else ""),
            _retrieval_label(c),
            str(rec.get("questions") or c.limit or "all"),
            *[format_value(m, scores.get(m)) for m in REPORT_COLUMNS],
            (str(rec.get("date", ""))[:10] or "not recorded"),
        ])
    header = ["benchmark", "dataset", "method", "model", "retrieval", "n", *[metric_label(m) for m in REPORT_COLUMNS], "recorded"]
    machines = sorted({f"{(c.recorded or {}).get('machine', {}).get('cores', '?')} cores, "
                       f"{(c.recorded or {}).get('machine', {}).get('platform', '?')}"
                       for c in configs if c.recorded})
    out = [BEGIN,
           "<!-- generated by `gaji bench report` from benchmarks/configs/*.yaml: edit those, not this block -->",
           "", markdown_table(header, rows, align_right_from=5), "",
           "Reproduce one with `gaji bench run benchmarks/configs/<benchmark>.yaml` (add `--record` to update it); "
           "`gaji bench check` re-runs the cheap ones. EM/F1/ROUGE-L/R@5 in %, ATC = tokens per question "
           "(prompt + completion, every LLM call), calls and wall seconds per question. Full results: "
           "benchmarks/results/<benchmark>/."]
    if machines:
        out += ["", "Machines: " + "; ".join(machines) + "."]
    attrib = [LICENCES.get(d, d) for d in datasets]
    if attrib:
        out += ["", "Data: " + ", ".join(attrib) + "."]
    out += [END]
    return "\n".join(out)


def update_report(md_path: Path, configs: list[BenchConfig]) -> None:
    """Regenerate the marked block, leaving the text outside it alone (appended if absent)."""
    block = report_block(configs)
    if md_path.exists():
        text = md_path.read_text(encoding="utf-8")
    else:
        text = "# Benchmarks\n\nRecorded with `gaji bench run CONFIG --record`; the table below is generated.\n\n"
    b, e = text.find(BEGIN), text.find(END)
    if b >= 0 and e > b:
        new = text[:b] + block + text[e + len(END):]
    elif b >= 0 or e >= 0:
        raise ConfigError(f"{md_path}: only one of the markers {BEGIN} / {END} is present; fix the file")
    else:
        sep = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        new = text + sep + block + "\n"
    atomic_write_text(md_path, new)


def regenerate_report(file: str | None = None) -> Path:
    """Regenerate the recorded-benchmarks block of `file` (default BENCHMARKS.md at the project root)."""
    root = project_root()
    md = Path(file) if file else root / "BENCHMARKS.md"
    update_report(md, all_configs(root))
    return md
