"""Table 4 over chain runs: chain lengths and early stops read from the runs' traces."""
import json

from gaji_lab.learn.table4 import markdown, read_chain_ends, table4


def write_run(d, rows, traces=True):
    """rows: (id, em, tokens, steps, stop_reason)."""
    d.mkdir(parents=True)
    with open(d / "results.jsonl", "w") as f:
        for qid, em, tok, _, _ in rows:
            f.write(json.dumps({"id": qid, "status": "ok", "error": None,
                                "metrics": {"em": em, "f1": em, "tokens": tok, "calls": 3}}) + "\n")
    if traces:
        with open(d / "traces.jsonl", "w") as f:
            for qid, _, _, steps, reason in rows:
                root = {"kind": "root", "data": {"steps": steps, "stop_reason": reason}}
                f.write(json.dumps({"id": qid, "trace": {"root": root}}) + "\n")
            f.write('{"torn')


def test_steps_and_early_stops_come_from_the_traces(tmp_path):
    write_run(tmp_path / "l6", [("a", 1, 600, 6, "max_length"), ("b", 0, 600, 6, "max_length")])
    write_run(tmp_path / "cl", [("a", 1, 200, 2, "classifier_sufficient"), ("b", 0, 600, 6, "max_length"),
                                ("c", 1, 100, 1, "classifier_sufficient")])
    assert read_chain_ends(tmp_path / "cl")["a"] == {"steps": 2, "early": True}
    t = table4({"toy": {"L6": str(tmp_path / "l6"), "L6+classifier": str(tmp_path / "cl")}})["toy"]
    assert t["questions"] == 2
    assert t["configs"]["L6"]["steps"] == 6.0 and t["configs"]["L6"]["early"] == 0
    assert t["configs"]["L6+classifier"]["steps"] == 4.0  # c is not common to both runs
    assert t["configs"]["L6+classifier"]["early"] == 1
    assert t["delta"]["atc_pct"] == -33.3
    md = markdown({"toy": t})
    assert "EM | F1 | ATC | steps |" in md and "| L6+classifier | 50.0 | 50.0 | 400 | 4.00 |" in md


def test_runs_without_traces_have_no_steps_column(tmp_path):
    write_run(tmp_path / "l6", [("a", 1, 600, 6, "max_length")], traces=False)
    write_run(tmp_path / "cl", [("a", 1, 300, 3, "classifier_sufficient")])
    t = table4({"toy": {"L6": str(tmp_path / "l6"), "L6+classifier": str(tmp_path / "cl")}})["toy"]
    assert "steps" not in t["configs"]["L6"] and t["configs"]["L6+classifier"]["steps"] == 3.0
    md = markdown({"toy": t})
    assert "| L6 | 100.0 | 100.0 | 600 | – |" in md
