import json
from pathlib import Path

import pytest
import yaml

from benchfakes import write_questions
from gaji_lab.bench.runner import (
    BEGIN,
    END,
    all_configs,
    check_drift,
    copy_results,
    load_config,
    report_block,
    update_report,
    write_recorded,
)
from gaji.cli.main import main
from gaji.errors import ConfigError

REPO = Path(__file__).resolve().parents[3]

CONFIG = """# a hand-written comment that must survive
dataset: {data}
method: bench_fake   # inline comment
options: {{}}
model: "scripted:Battle of Guam"
limit: 2
cheap: true
tolerance:
  default: 0.01
  tokens: 10%
"""


def test_repo_configs_are_valid():
    configs = [load_config(p) for p in sorted((REPO / "benchmarks" / "configs").glob("*.yaml"))]
    names = {c.name for c in configs}
    assert {"nor-hotpotqa-local", "oner-hotpotqa-local", "nor-koblex-local", "oner-koblex-local"} <= names
    cheap = [c for c in configs if c.cheap]
    assert len(cheap) >= 1 and all(c.limit <= 5 and c.model == "local:small" for c in cheap)
    for c in configs:
        assert c.tolerance and (c.limit or 0) > 0


def test_committed_benchmarks_table_is_the_generated_one():
    text = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")
    b, e = text.find(BEGIN), text.find(END)
    assert 0 <= b < e, "BENCHMARKS.md lost its generated-table markers"
    assert text[b:e + len(END)] == report_block(all_configs(REPO)), \
        "BENCHMARKS.md's table is out of date: run `gaji bench report`"


def test_copy_results_replaces_a_compressed_recording(tmp_path):
    run, dest = tmp_path / "run", tmp_path / "dest"
    run.mkdir()
    dest.mkdir()
    (run / "traces.jsonl").write_text('{"id": "new"}\n')
    (dest / "traces.jsonl.xz").write_bytes(b"an older recording")
    copy_results(run, dest)
    assert (dest / "traces.jsonl").read_text() == '{"id": "new"}\n' and not (dest / "traces.jsonl.xz").exists()


def test_config_errors_name_the_file(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text("dataset: hotpotqa\nmethod: nor\nlimt: 5\n")
    with pytest.raises(ConfigError, match="x.yaml: unknown key"):
        load_config(p)
    p.write_text("dataset: hotpotqa\n")
    with pytest.raises(ConfigError, match="missing 'method'"):
        load_config(p)
    p.write_text("dataset: hotpotqa\nmethod: nor\ntolerance: {em: lots}\n")
    with pytest.raises(ConfigError, match="tolerance"):
        load_config(p)
    p.write_text("dataset: hotpotqa\nmethod: nor\nks: [5, twenty]\n")
    with pytest.raises(ConfigError, match="x.yaml: ks must be"):
        load_config(p)


def test_config_ks_default_and_given(tmp_path):
    p = tmp_path / "y.yaml"
    p.write_text("dataset: asqa\nmethod: oner\n")
    assert load_config(p).ks == (2, 5, 10)
    p.write_text("dataset: asqa\nmethod: oner\nks: [5, 10, 20, 50]\n")
    assert load_config(p).ks == (5, 10, 20, 50)


def test_drift_absolute_relative_default_and_missing():
    recorded = {"em": 0.40, "f1": 0.50, "tokens": 1000.0, "wall_s": 3.0, "rouge_l": 0.3}
    measured = {"em": 0.44, "f1": 0.58, "tokens": 1090.0, "wall_s": 9.0}
    d = {x.metric: x for x in check_drift(recorded, measured, {"default": 0.05, "tokens": "10%"})}
    assert d["em"].ok and not d["f1"].ok and d["tokens"].ok and d["tokens"].allowed == pytest.approx(100.0)
    assert "wall_s" not in d  # time is not checked unless asked
    assert not d["rouge_l"].ok and d["rouge_l"].measured is None  # a metric that vanished is a drift


def test_write_recorded_keeps_comments_and_other_keys(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(CONFIG.format(data="x.jsonl") + "recorded:\n  scores: {em: 0.1}\n")
    write_recorded(p, {"date": "today", "scores": {"em": 0.5, "f1": 0.6}})
    text = p.read_text()
    assert "# a hand-written comment that must survive" in text and "# inline comment" in text
    cfg = load_config(p)
    assert cfg.recorded == {"date": "today", "scores": {"em": 0.5, "f1": 0.6}} and cfg.method == "bench_fake"
    # a recorded block in the middle: the keys after it are kept
    p.write_text("recorded: null\n# note\ndataset: d\nmethod: m\n")
    write_recorded(p, {"scores": {"em": 1.0}})
    assert yaml.safe_load(p.read_text()) == {"dataset": "d", "method": "m", "recorded": {"scores": {"em": 1.0}}}
    assert not list(tmp_path.glob(".*.tmp"))


def test_report_regenerates_only_the_marked_block(tmp_path):
    cfg_path = tmp_path / "c.yaml"
    cfg_path.write_text(CONFIG.format(data="hotpotqa"))
    write_recorded(cfg_path, {"date": "2025-01-02T00:00:00", "questions": 2,
                              "machine": {"cores": 2, "platform": "Linux"}, "scores": {"em": 0.5, "tokens": 12.0}})
    cfg = load_config(cfg_path)
    md = tmp_path / "BENCHMARKS.md"
    md.write_text(f"# Benchmarks\n\nhand text above\n\n{BEGIN}\nold stuff\n{END}\n\nhand text below\n")
    update_report(md, [cfg])
    text = md.read_text()
    assert text.startswith("# Benchmarks\n\nhand text above\n\n" + BEGIN) and text.endswith(END + "\n\nhand text below\n")
    assert "old stuff" not in text and "| `c` | hotpotqa | bench_fake |" in text and "| 50.0 |" in text
    assert "2025-01-02" in text and "HotpotQA (CC BY-SA 4.0)" in text
    update_report(md, [cfg])
    assert md.read_text() == text  # idempotent
    fresh = tmp_path / "NEW.md"
    update_report(fresh, [cfg])
    assert BEGIN in fresh.read_text() and END in fresh.read_text()
    md.write_text(f"{BEGIN}\nno end marker\n")
    with pytest.raises(ConfigError, match="markers"):
        update_report(md, [cfg])
    unrecorded = tmp_path / "fresh.yaml"
    unrecorded.write_text("dataset: hotpotqa\nmethod: nor\nmodel: local\nlimit: 50\n", encoding="utf-8")
    assert "not recorded" in report_block([load_config(unrecorded)])


def test_bench_run_record_check_and_report_end_to_end(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "home"))
    data = write_questions(tmp_path / "mini.jsonl")
    cdir = tmp_path / "benchmarks" / "configs"
    cdir.mkdir(parents=True)
    cfg_path = cdir / "tiny.yaml"
    cfg_path.write_text(CONFIG.format(data=data))

    assert main(["bench", "check", "--quiet"]) == 0  # not recorded yet: skipped, not failed
    assert "not recorded yet" in capsys.readouterr().out

    assert main(["bench", "run", "tiny", "--record", "--quiet"]) == 0
    cfg = load_config(cfg_path)
    assert cfg.recorded["scores"]["em"] == 0.5 and cfg.recorded["questions"] == 2
    assert cfg.recorded["machine"]["cores"] >= 1 and cfg.recorded["gaji_version"]
    assert "# a hand-written comment that must survive" in cfg_path.read_text()
    res = tmp_path / "benchmarks" / "results" / "tiny"
    assert {p.name for p in res.iterdir()} >= {"run.json", "results.jsonl", "summary.json", "traces.jsonl"}

    assert main(["bench", "run", "tiny", "--quiet"]) == 0  # the same configuration again: resumed, nothing redone
    assert "resumed" in capsys.readouterr().out
    before = cfg_path.read_text()
    assert main(["bench", "run", "tiny", "--quiet", "--record"]) == 0  # nothing measured: the record is not restamped
    assert "nothing new measured" in capsys.readouterr().out and cfg_path.read_text() == before
    run_dir = tmp_path / ".gaji" / "bench" / "tiny"
    assert json.loads((run_dir / "summary.json").read_text())["questions_this_session"] == 0
    assert main(["bench", "run", "tiny", "--quiet", "--fresh"]) == 0
    assert "resumed" not in capsys.readouterr().out
    assert json.loads((run_dir / "summary.json").read_text())["questions_this_session"] == 2

    assert main(["bench", "check", "--quiet"]) == 0
    assert "tiny: ok" in capsys.readouterr().out

    rec = dict(cfg.recorded)
    rec["scores"] = {**rec["scores"], "em": 0.0}
    write_recorded(cfg_path, rec)
    assert main(["bench", "check", "--quiet"]) == 1
    assert "DRIFT" in capsys.readouterr().out

    assert main(["bench", "check", "--max-minutes", "0", "--quiet"]) == 0
    assert "skipped (over --max-minutes" in capsys.readouterr().out

    assert main(["bench", "report"]) == 0
    text = (tmp_path / "BENCHMARKS.md").read_text()
    assert BEGIN in text and "`tiny`" in text


def test_config_llm_settings_are_checked_and_reach_the_run(tmp_path, monkeypatch):
    p = tmp_path / "ab.yaml"
    p.write_text("dataset: hotpotqa\nmethod: toq\nllm_settings: {prompt_cache: false, parallel: '1'}\n")
    cfg = load_config(p)
    assert cfg.llm_settings == {"prompt_cache": False, "parallel": 1}
    assert "`local` (prompt_cache=False, parallel=1)" in report_block([cfg])
    for text, msg in (("llm_settings: {llm: openai:x}", "ab.yaml: llm_settings: unknown setting 'llm'"),
                      ("llm_settings: {parallel: many}", r"ab.yaml: llm_settings.parallel: setting 'parallel'"),
                      ("llm_settings: [prompt_cache]", "ab.yaml: llm_settings must be a mapping")):
        p.write_text(f"dataset: hotpotqa\nmethod: toq\n{text}\n")
        with pytest.raises(ConfigError, match=msg):
            load_config(p)

    import gaji.eval.runner as eval_runner
    from gaji_lab.bench.runner import run_config

    seen = {}

    class Capture:
        def __init__(self, ecfg, settings, console=None):
            seen["settings"] = settings

        def run(self):
            return {}

        def close(self):
            pass

    monkeypatch.setattr(eval_runner, "EvalRun", Capture)
    p.write_text("dataset: hotpotqa\nmethod: toq\nllm_settings: {prompt_cache: false}\n")
    run_config(load_config(p), tmp_path / "out", progress=False)
    assert seen["settings"].prompt_cache is False and seen["settings"].sources["prompt_cache"] == "flag"


def test_report_names_the_retrieval_a_config_runs_with(tmp_path):
    p = tmp_path / "chain-x.yaml"
    p.write_text("dataset: bamboogle\nmethod: chain\noptions: {closed_book: true}\nretriever: bm25\nk: 5\n")
    assert "| closed book |" in report_block([load_config(p)])
    p.write_text("dataset: hotpotqa\nmethod: chain\nretriever: bm25\nk: 5\n")
    assert "| bm25@5 |" in report_block([load_config(p)])
    p.write_text("dataset: hotpotqa\nmethod: nor\n")
    assert "| – |" in report_block([load_config(p)])


def test_a_config_may_name_a_recipe_and_its_options_go_over_it(tmp_path):
    p = tmp_path / "toq-r.yaml"
    p.write_text("dataset: hotpotqa\nrecipe: toq-paper\noptions: {evaluate_root: false}\n")
    c = load_config(p)
    assert c.method == "toq" and c.recipe == "toq-paper@1" and c.given_options == {"evaluate_root": False}
    assert c.options == {"respond": "json", "decomposer": "paper", "order_decide": False, "intersect_decide": False,
                         "evaluate_root": False}
    assert "| toq-paper@1 (evaluate_root=False) |" in report_block([c])
    p.write_text("dataset: hotpotqa\nmethod: toq\nrecipe: tree@1\n")  # the method may stay beside its recipe
    assert load_config(p).options["decomposer"] == "routed"


@pytest.mark.parametrize("body, message", [
    ("recipe: bogus\n", "toq-r.yaml: recipe: unknown recipe 'bogus'; known: .*tree"),
    ("recipe: tree@9\n", "toq-r.yaml: recipe: 'tree' is at version 1, not 9"),
    ("method: oner\nrecipe: tree\n", "toq-r.yaml: recipe 'tree' runs method 'toq', but the config says method 'oner'"),
    ("recipe: [tree]\n", "toq-r.yaml: recipe must be a recipe name"),
    ("options: {}\n", "toq-r.yaml: missing 'method' \\(or 'recipe'\\)"),
])
def test_a_bad_recipe_in_a_config_names_the_file(tmp_path, body, message):
    p = tmp_path / "toq-r.yaml"
    p.write_text("dataset: hotpotqa\n" + body)
    with pytest.raises(ConfigError, match=message):
        load_config(p)


def test_recorded_toq_configs_run_what_they_recorded():
    """Code deciding comparisons and intersections became ToQ's default after these runs: each pins it off, the
    paper's through its recipe."""
    for p in sorted((REPO / "benchmarks" / "configs").glob("toq-*.yaml")):
        c = load_config(p)
        assert c.method == "toq"
        assert c.options["order_decide"] is False and c.options["intersect_decide"] is False, p.name
    paper = load_config(REPO / "benchmarks" / "configs" / "toq-hotpotqa-local.yaml")
    assert paper.recipe == "toq-paper@1" and paper.options["respond"] == "json"
