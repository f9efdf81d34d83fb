"""gaji.eval.record: run.json's fingerprint and sittings, and the resume state, on their own."""
from __future__ import annotations

import json

import pytest

from evalfakes import QUESTIONS, write_jsonl
from gaji.errors import ConfigError
from gaji.eval.datasets import load_dataset
from gaji.eval.record import Retrieval, RunRecord, RunSetup, Sittings, default_out_dir, slug


def setup_of(tmp_path, **kw) -> RunSetup:
    ds = load_dataset(str(write_jsonl(tmp_path / "tiny.jsonl", QUESTIONS)))
    kw = {"dataset": ds, "method": "oner", "options": {"k": 5}, "raw_options": {}, "llm": "scripted", "lang": None,
          "limit": None, "ids": None, "ks": (2, 5), "gold_match": "auto", "judge": None, "toq_eval": False,
          "retrieval": None, **kw}
    return RunSetup(**kw)


def test_fingerprint_names_retrieval_only_when_the_method_retrieves(tmp_path):
    closed = setup_of(tmp_path).fingerprint()
    assert closed["retriever"] is None and closed["k"] is None and "retriever_options" not in closed
    assert "ids" not in closed and closed["ks"] == [2, 5]
    fp = setup_of(tmp_path, ids=("q2", "q1"), retrieval=Retrieval("bm25", {"b": 0.5}, 5, "idx")).fingerprint()
    assert fp["retriever"] == "bm25" and fp["k"] == 5 and fp["retriever_options"] == {"b": 0.5}
    assert fp["ids"] == ["q1", "q2"]


def test_another_configuration_is_refused_and_clear_starts_again(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    a = RunRecord(out, setup_of(tmp_path))
    a.refuse_another_configuration("--overwrite")  # nothing there yet
    a.write("finished", backend=None, evaluator=None, cache=False, concurrency=1, notes=[])
    RunRecord(out, setup_of(tmp_path)).refuse_another_configuration("--overwrite")  # the same run
    b = RunRecord(out, setup_of(tmp_path, options={"k": 3}))
    with pytest.raises(ConfigError, match=r"options differ.*--fresh"):
        b.refuse_another_configuration("--fresh")
    (out / "results.jsonl").write_text("{}\n", encoding="utf-8")
    b.clear()
    assert not any(out.iterdir())
    (out / "run.json").write_text('{"torn', encoding="utf-8")  # not JSON: nothing to compare with
    b.refuse_another_configuration("--fresh")



def test_an_option_added_since_at_its_default_resumes_the_run(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    RunRecord(out, setup_of(tmp_path)).write("finished", backend=None, evaluator=None, cache=False, concurrency=1,
                                             notes=[])
    defaults = {"k": 5, "reask": False}
    same = setup_of(tmp_path, options={"k": 5, "reask": False}, option_defaults=defaults)
    RunRecord(out, same).refuse_another_configuration("--overwrite")
    for options in ({"k": 5, "reask": True}, {"k": 5, "other": 1}, {"reask": False}):
        with pytest.raises(ConfigError, match=r"options differ"):
            RunRecord(out, setup_of(tmp_path, options=options, option_defaults=defaults)).refuse_another_configuration("-x")

def test_run_json_keeps_the_previous_model_when_no_question_ran(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    r = RunRecord(out, setup_of(tmp_path))
    r.previous = {"model": "qwen", "backend": {"name": "qwen"}, "evaluator": {"k": 3}, "created_at": "then",
                  "notes": ["old note"]}
    r.write("finished", backend=None, evaluator=None, cache=True, concurrency=None, notes=[])
    info = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (info["model"], info["backend"], info["evaluator"]) == ("qwen", {"name": "qwen"}, {"k": 3})
    assert info["created_at"] == "then" and info["notes"] == ["old note"] and info["fingerprint"] == r.fingerprint
    assert list(info)[:5] == ["gaji_version", "created_at", "updated_at", "sittings", "status"]
    assert list(info)[-4:] == ["command", "notes", "fingerprint", "summary"]


def test_resume_state_keeps_this_runs_results_and_retries_errors_on_request(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    r = RunRecord(out, setup_of(tmp_path))
    items = r.setup.dataset.items
    rows = [{"id": "q1", "status": "ok"}, {"id": "q2", "status": "error"}, {"id": "zz", "status": "ok"}]
    (out / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows) + '{"id": "q3", "st',
                                       encoding="utf-8")
    state = r.resume(items, retry_errors=False)
    assert sorted(state.records) == ["q1", "q2"] and [it.id for it in state.todo] == ["q3", "q4"]
    assert [it.id for it in r.resume(items, retry_errors=True).todo] == ["q2", "q3", "q4"]


def test_a_sitting_left_running_was_killed_and_still_counts():
    s = Sittings([{"questions": 2, "elapsed_s": 10.0, "status": "running"}, "junk",
                  {"questions": 1, "elapsed_s": 5.0, "status": "finished"}], started="now")
    assert [x["status"] for x in s.earlier] == ["killed", "finished"]
    s.questions = 3
    assert s.so_far()[-1]["status"] == "running" and s.so_far()[-1]["questions"] == 3
    sittings, totals = s.end("finished", ran=True)
    assert [x["status"] for x in sittings] == ["killed", "finished", "finished"] and totals["sittings"] == 3
    assert totals["elapsed_total_s"] >= 15.0 and totals["questions_this_session"] == 3
    assert totals["questions_per_hour_total"] > 0
    sittings, totals = Sittings([], "now").end("finished", ran=False)  # nothing to run: no sitting
    assert sittings == [] and totals["sittings"] == 0 and totals["questions_per_hour_total"] is None


def test_default_out_dir_is_a_safe_name():
    assert slug("a b/c") == "a-b-c" and slug("///") == "x"
    assert default_out_dir("hotpot qa", "toq", "openai:m", {}).as_posix() == "runs/eval/hotpot-qa-toq-openai-m"
    assert default_out_dir("h", "toq", "local", {"k": 1}).name.startswith("h-toq-local-")
