import pytest

from gaji.eval.compare import compare, load_views, main_quality


def test_compare_two_runs_table_and_plots(make_run, qfile, tmp_path):
    make_run(qfile, out=str(tmp_path / "runs" / "plain")).run()
    make_run(qfile, out=str(tmp_path / "runs" / "fancy"), options={"style": "fancy"}).run()
    dirs = [str(tmp_path / "runs" / "plain"), str(tmp_path / "runs" / "fancy")]
    views = load_views(dirs)
    assert [v.label for v in views] == ["eval_fake · defaults", "eval_fake · style=fancy"]
    assert main_quality(views) == "f1"
    md, files = compare(dirs)
    header = md.splitlines()[0]
    assert header == "| metric | eval_fake · defaults | eval_fake · style=fancy |"
    assert "| EM | 66.7 | 66.7 |" in md and "| ATC |" in md and "| questions | 4 | 4 |" in md
    assert "sha256" in md  # the legend says what each column ran
    names = sorted(f.name for f in files)
    assert names == ["compare.md", "cost_quality.png", "metrics.png"]
    for f in files:
        assert f.parent == tmp_path / "runs" / "compare" and f.stat().st_size > 100
    assert (tmp_path / "runs" / "compare" / "metrics.png").read_bytes()[:4] == b"\x89PNG"


def test_compare_without_plots_and_selected_metrics(make_run, qfile, tmp_path):
    make_run(qfile, out=str(tmp_path / "a")).run()
    md, files = compare([str(tmp_path / "a")], out_dir=str(tmp_path / "cmp"), metrics=["em", "tokens"], plots=False)
    first_cells = [r.split("|")[1].strip() for r in md.splitlines() if r.startswith("| ")]
    assert first_cells[:4] == ["metric", "---", "EM", "ATC"] and first_cells[4] == "questions"
    assert [f.name for f in files] == ["compare.md"]


def _hand_run(d, method, rows):
    import json

    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"method": method}))
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_compare_adds_quality_by_question_type(tmp_path):
    from gaji.eval.compare import by_type_table

    def row(i, t, f1):
        return {"id": str(i), "type": t, "metrics": {"f1": f1, "em": float(f1 == 1.0)}}

    _hand_run(tmp_path / "a", "oner", [row(1, "bridge", 0.0), row(2, "bridge", 1.0), row(3, "comparison", 1.0),
                                       row(4, "", 0.5)])
    _hand_run(tmp_path / "b", "cot", [row(1, "bridge", 1.0), row(2, "bridge", 1.0), row(3, "comparison", 0.0),
                                      row(4, "", 0.5)])
    md, _ = compare([str(tmp_path / "a"), str(tmp_path / "b")], plots=False)
    assert "F1 by question type:" in md
    assert "| bridge (2) | 50.0 | 100.0 |" in md and "| comparison (1) | 100.0 | 0.0 |" in md
    assert "| untyped (1) | 50.0 | 50.0 |" in md
    # runs that finished different questions: each cell carries its own count
    _hand_run(tmp_path / "c", "ircot", [row(1, "bridge", 1.0), row(3, "comparison", 1.0)])
    views = load_views([str(tmp_path / "a"), str(tmp_path / "c")])
    assert "| bridge | 50.0 (2) | 100.0 (1) |" in by_type_table(views)
    # one type only (or none): no table
    _hand_run(tmp_path / "d", "nor", [row(1, "bridge", 1.0), row(2, "", 0.0)])
    assert by_type_table(load_views([str(tmp_path / "d")])) == ""


def test_compare_common_cuts_every_run_to_the_shared_questions(tmp_path):
    from gaji.errors import ConfigError

    def row(i, f1):
        return {"id": str(i), "metrics": {"f1": f1, "calls": 2}}

    _hand_run(tmp_path / "a", "oner", [row(1, 0.0), row(2, 1.0), row(3, 1.0)])
    _hand_run(tmp_path / "b", "cot", [row(2, 0.5), row(3, 0.5)])
    md, _ = compare([str(tmp_path / "a"), str(tmp_path / "b")], plots=False)
    assert "| F1 | 66.7 | 50.0 |" in md and "every run finished" not in md
    md, _ = compare([str(tmp_path / "a"), str(tmp_path / "b")], plots=False, common=True)
    assert md.startswith("On the 2 questions every run finished.")
    assert "| F1 | 100.0 | 50.0 |" in md and "| questions | 2 | 2 |" in md
    _hand_run(tmp_path / "c", "nor", [row(9, 1.0)])
    with pytest.raises(ConfigError, match="no question in common"):
        compare([str(tmp_path / "a"), str(tmp_path / "c")], plots=False, common=True)
