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
