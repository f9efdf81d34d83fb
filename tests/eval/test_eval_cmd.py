import json

from gaji.cli.main import build_parser, main


def test_argparse_accepts_both_forms():
    p = build_parser()
    a = p.parse_args(["eval", "--data", "hotpotqa", "--method", "oner", "--limit", "3", "-o", "k=2", "--ks", "5,2"])
    assert a.eval_action is None and a.data == "hotpotqa" and a.limit == 3 and a.options == ["k=2"] and a.ks == (2, 5)
    assert a.func.__name__ == "run_cmd"
    c = p.parse_args(["eval", "compare", "runs/a", "runs/b", "--out", "cmp"])
    assert c.eval_action == "compare" and c.dirs == ["runs/a", "runs/b"] and c.plot_dir == "cmp"
    assert c.func.__name__ == "compare_cmd"


def test_cli_run_and_compare(qfile, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "home"))
    out = tmp_path / "r1"
    rc = main(["eval", "--data", str(qfile), "--method", "eval_fake", "--llm", "scripted:the Battle of Guam.",
               "--out", str(out), "--quiet", "--limit", "3"])
    assert rc == 0
    info = json.loads((out / "run.json").read_text())
    assert info["cache"] is True and info["llm"] == "scripted:the Battle of Guam."  # cache on by default for eval
    err = capsys.readouterr().err
    assert "EM" in err and "questions/hour" in err
    rc = main(["eval", "--data", str(qfile), "--method", "eval_fake", "--llm", "scripted:nope", "--out",
               str(tmp_path / "r2"), "--quiet", "--no-cache", "--limit", "3"])
    assert rc == 0 and json.loads((tmp_path / "r2" / "run.json").read_text())["cache"] is False
    capsys.readouterr()
    assert main(["eval", "compare", str(out), str(tmp_path / "r2"), "--no-plots"]) == 0
    md = capsys.readouterr().out
    assert "scripted:the Battle of Guam." in md.splitlines()[0] and "scripted:nope" in md.splitlines()[0]


def test_cli_errors_are_messages(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--data", "nosuchset", "--method", "nor"]) == 2
    assert "known: 2wikimultihopqa" in capsys.readouterr().err
    assert main(["eval", "--method", "nor"]) == 2
    assert "--data" in capsys.readouterr().err
    assert main(["eval", "compare", str(tmp_path)]) == 2
    assert "not an eval run directory" in capsys.readouterr().err


def test_cli_score_adds_toq_evaluator_scores(qfile, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "home"))
    out = tmp_path / "r"
    assert main(["eval", "--data", str(qfile), "--method", "eval_fake", "--llm", "scripted:the Battle of Guam.",
                 "--out", str(out), "--quiet", "--limit", "2"]) == 0
    judge = json.dumps({"asks_for": "a battle", "response_gives": "a battle", "semantic_coherence": 9,
                        "answerability": 90, "response_validity": True})
    capsys.readouterr()
    assert main(["eval", "score", str(out), "--toq-eval", "--llm", "scripted:" + judge, "--quiet"]) == 0
    line = capsys.readouterr().out
    assert "scored 2" in line and "R.Val" not in line and "toq_rval 100.0 (n=2)" in line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["toq_oass"]["mean"] == 9.0
    # a judge whose output is not the schema's JSON: reported per question, exit code 1, nothing scored
    out2 = tmp_path / "r2"
    assert main(["eval", "--data", str(qfile), "--method", "eval_fake", "--llm", "scripted:x", "--out", str(out2),
                 "--quiet", "--limit", "1"]) == 0
    assert main(["eval", "score", str(out2), "--toq-eval", "--llm", "scripted:not json", "--quiet"]) == 1
    assert main(["eval", "score", str(tmp_path / "nothing"), "--toq-eval"]) == 2
