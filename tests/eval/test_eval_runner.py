import argparse
import json
import os

import pytest

from evalfakes import DOCS, QUESTIONS, RULES, write_jsonl
from gaji.errors import ConfigError
from gaji.eval.summary import latest_by_id, read_jsonl_tolerant
from gaji.llm.scripted import ScriptedLLM


def lines(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_run_writes_results_traces_and_run_json(make_run, qfile, tmp_path):
    run = make_run(qfile, concurrency=2)
    summary = run.run()
    out = tmp_path / "run"
    res = {r["id"]: r for r in lines(out / "results.jsonl")}
    assert set(res) == {"q1", "q2", "q3", "q4"}
    q1, q2, q3, q4 = (res[k] for k in ("q1", "q2", "q3", "q4"))
    assert q1["prediction"] == "the Battle of Guam." and q1["metrics"]["em"] == 1.0 and q1["status"] == "ok"
    assert q1["metrics"]["calls"] == 1 and q1["metrics"]["tokens"] > 0 and q1["summary"]["method"] == "eval_fake"
    assert q2["metrics"]["em"] == 1.0 and q2["lang"] == "ko"  # 1989년 2월 15일에 vs 1989년 2월 15일
    assert "em" not in q3["metrics"] and "tokens" in q3["metrics"]  # no gold: cost metrics only
    assert q4["status"] == "error" and "method exploded" in q4["error"] and q4["metrics"]["em"] == 0.0
    assert "recall@5" not in q1["metrics"]  # the method does not retrieve
    traces = {t["id"]: t for t in lines(out / "traces.jsonl")}
    assert set(traces) == {"q1", "q2", "q3"} and traces["q1"]["trace"]["answer"] == "the Battle of Guam."
    info = json.loads((out / "run.json").read_text())
    assert info["status"] == "finished" and info["method"] == "eval_fake" and info["options"] == {"style": "plain"}
    assert info["dataset"]["sha256"] and info["dataset"]["questions"] == 4 and info["machine"]["cores"] >= 1
    assert info["gaji_version"] and info["created_at"] and info["concurrency"] == 2 and info["model"] == "scripted"
    assert summary["questions"] == 4 and summary["errors"] == 1
    assert summary["metrics"]["em"]["n"] == 3 and summary["metrics"]["em"]["mean"] == pytest.approx(2 / 3)
    assert summary["questions_per_hour"] > 0 and summary["atc"] > 0
    assert json.loads((out / "summary.json").read_text())["questions"] == 4


def test_resume_skips_finished_questions(make_run, qfile, tmp_path):
    llm = ScriptedLLM(RULES)
    make_run(qfile, llm=llm, limit=2).run()
    assert len(llm.requests) == 2
    llm2 = ScriptedLLM(RULES)
    summary = make_run(qfile, llm=llm2).run()
    assert len(llm2.requests) == 1  # q3 only: q1, q2 done; q4 crashes before calling the LLM
    assert summary["questions"] == 4 and summary["questions_this_session"] == 2
    assert len(lines(tmp_path / "run" / "results.jsonl")) == 4
    # each sitting that ran questions is kept; the totals cover both, created_at is the first sitting's
    info = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert [x["questions"] for x in info["sittings"]] == [2, 2] and summary["sittings"] == 2
    assert info["created_at"] == info["sittings"][0]["started"]
    assert summary["elapsed_total_s"] >= summary["elapsed_s"] and summary["questions_per_hour_total"] > 0
    make_run(qfile, llm=ScriptedLLM(RULES)).run()  # nothing left to run: no sitting added
    assert len(json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["sittings"]) == 2


def test_a_killed_sitting_keeps_its_time_and_questions(make_run, qfile, tmp_path):
    """A process killed mid-run (no `finally`) leaves run.json with its sitting so far; the resume counts it."""
    import multiprocessing
    import time

    class DiesOnSecondCall(ScriptedLLM):
        def generate(self, request):
            if len(self.requests) >= 1:
                time.sleep(1.0)  # the main thread records question 1 meanwhile
                os._exit(9)  # like SIGKILL/SIGTERM: nothing after this runs
            return super().generate(request)

    child = multiprocessing.get_context("fork").Process(
        target=lambda: make_run(qfile, llm=DiesOnSecondCall(RULES), concurrency=1).run())
    child.start()
    child.join(60)
    assert child.exitcode == 9
    info = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert [(x["questions"], x["status"]) for x in info["sittings"]] == [(1, "running")]
    assert info["sittings"][0]["elapsed_s"] >= 0
    summary = make_run(qfile, llm=ScriptedLLM(RULES)).run()
    info = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert [(x["questions"], x["status"]) for x in info["sittings"]] == [(1, "killed"), (3, "finished")]
    assert summary["sittings"] == 2 and summary["questions"] == 4


def test_resume_tolerates_a_torn_last_line_and_retries_errors(make_run, qfile, tmp_path):
    make_run(qfile).run()
    results = tmp_path / "run" / "results.jsonl"
    with open(results, "a", encoding="utf-8") as f:
        f.write('{"id": "q9", "trunc')
    assert len(read_jsonl_tolerant(results)) == 4
    llm = ScriptedLLM(RULES)
    summary = make_run(qfile, llm=llm).run()
    assert summary["questions_this_session"] == 0 and len(llm.requests) == 0
    summary = make_run(qfile, llm=llm, retry_errors=True).run()
    assert summary["questions_this_session"] == 1 and summary["errors"] == 1  # q4 crashes again


def test_resume_after_a_partial_utf8_character_runs_the_rest_without_a_traceback(make_run, qfile, tmp_path):
    make_run(qfile, limit=2).run()
    results = tmp_path / "run" / "results.jsonl"
    with open(results, "ab") as f:  # killed while writing q3's line, inside a Korean character
        f.write('{"id": "q3", "prediction": "훈민'.encode("utf-8")[:-1])
    summary = make_run(qfile).run()
    on_disk = latest_by_id(read_jsonl_tolerant(results))
    assert set(on_disk) == {"q1", "q2", "q3", "q4"} and summary["questions"] == 4
    assert results.read_bytes().endswith(b"\n") and len(lines(results)) == 4


def test_a_torn_last_line_does_not_swallow_the_next_result(make_run, qfile, tmp_path):
    make_run(qfile, limit=2).run()
    results = tmp_path / "run" / "results.jsonl"
    with open(results, "a", encoding="utf-8") as f:
        f.write('{"id": "q3", "status": "ok", "predic')  # no newline: the process died here
    summary = make_run(qfile).run()
    on_disk = latest_by_id(read_jsonl_tolerant(results))
    written = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert len(on_disk) == summary["questions"] == written["questions"] == 4
    assert len(lines(results)) == 4  # the torn bytes are gone, every complete line is kept


def test_a_torn_trace_line_alone_is_rewritten_on_resume(make_run, qfile, tmp_path):
    make_run(qfile).run()
    traces = tmp_path / "run" / "traces.jsonl"
    kept = traces.read_text(encoding="utf-8").splitlines()
    # results.jsonl is whole, but q3's trace line was cut (a crash or a full disk while it was written)
    torn = [x if json.loads(x)["id"] != "q3" else x[: len(x) // 2] for x in kept]
    traces.write_text("\n".join(torn), encoding="utf-8")
    llm = ScriptedLLM(RULES)
    summary = make_run(qfile, llm=llm).run()
    assert summary["questions_this_session"] == 1 and len(llm.requests) == 1  # q3 only
    by_id = {t["id"]: t for t in read_jsonl_tolerant(traces)}
    assert set(by_id) == {"q1", "q2", "q3"} and by_id["q3"]["trace"]["answer"]
    assert summary["questions"] == 4 and len(latest_by_id(read_jsonl_tolerant(tmp_path / "run" / "results.jsonl"))) == 4


def test_other_configuration_in_the_same_dir_is_refused(make_run, qfile):
    make_run(qfile, limit=1).run()
    with pytest.raises(ConfigError, match="options.*--overwrite"):
        make_run(qfile, options={"style": "fancy"}).run()
    with pytest.raises(ConfigError, match="--fresh"):  # gaji bench run names its own flag
        make_run(qfile, options={"style": "fancy"}, restart_flag="--fresh").run()
    s = make_run(qfile, options={"style": "fancy"}, overwrite=True, limit=1).run()
    assert s["questions"] == 1


def test_bad_method_option_fails_before_any_work(make_run, qfile, tmp_path):
    with pytest.raises(ConfigError, match="no option"):
        make_run(qfile, options={"nope": "1"}).run()
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_a_bad_option_value_checked_by_the_method_fails_before_any_question(make_run, qfile, tmp_path, scripted):
    with pytest.raises(ConfigError, match="reader must be one of cot, direct, not 'bogus'"):
        make_run(qfile, method="ircot", options={"reader": "bogus"}, llm=scripted).run()
    assert scripted.requests == [] and not (tmp_path / "run" / "results.jsonl").exists()


def test_retrieval_metrics_with_a_retrieving_method(make_run, qfile, tmp_path):
    summary = make_run(qfile, method="eval_fake_ret", ks=(1, 2)).run()
    res = {r["id"]: r for r in lines(tmp_path / "run" / "results.jsonl")}
    m1 = res["q1"]["metrics"]
    assert m1["recall@2"] == 1.0 and m1["top@1"] == 1.0 and res["q1"]["retrieved"][:2] in (["d-manila", "d-guam"], ["d-guam", "d-manila"])
    assert "recall@1" not in res["q3"]["metrics"]  # no gold passages
    assert summary["metrics"]["recall@2"]["n"] == 2
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["k"] == 3  # the method's own default k (settings.k is 5), not the unused settings value


def test_run_json_records_a_given_k(make_run, qfile, tmp_path):
    make_run(qfile, method="eval_fake_ret", options={"k": "2"}).run()
    assert json.loads((tmp_path / "run" / "run.json").read_text())["k"] == 2


def test_long_form_sets_get_rouge(make_run, tmp_path):
    rows = [{"id": "l1", "question": "Which battle was first?", "answers": ["the Battle of Guam was first, in 1944 " * 3]}]
    p = write_jsonl(tmp_path / "asqa_like.jsonl", rows)
    make_run(p).run()
    m = lines(tmp_path / "run" / "results.jsonl")[0]["metrics"]
    assert 0 < m["rouge_l"] < 1


class FakeEvaluator:
    def __init__(self, llm):
        self.llm = llm

    def evaluate(self, node, question, answer, lang, passages=None):
        self.llm.chat(node, "evaluate", [{"role": "user", "content": "EVAL " + question}])
        return {"semantic_coherence": 8, "answerability": 70, "overall": 7.5, "response_validity": True}


def test_judge_and_toq_eval_use_their_own_calls(make_run, qfile, tmp_path):
    judge = ScriptedLLM([(r"EVAL", "ok"), (r"Guam", "has it\npass\npass"), (r".*", "no\nfail\nfail")], name="judge-model")
    summary = make_run(qfile, method="eval_fake_ret", judge=True, judge_k=2, toq_eval=True, judge_backend=judge,
                       toq_factory=FakeEvaluator).run()
    res = {r["id"]: r for r in lines(tmp_path / "run" / "results.jsonl")}
    m = res["q1"]["metrics"]
    assert m["judge_top@2"] == 1.0 and m["toq_scoh"] == 8 and m["toq_rval"] == 1.0 and m["toq_oass"] == 7.5
    assert m["calls"] == 1 and m["eval_calls"] == 3  # 2 judged chunks + 1 evaluation, not in the method's ATC
    tr = {t["id"]: t for t in lines(tmp_path / "run" / "traces.jsonl")}
    assert [n["kind"] for n in tr["q1"]["eval"]] == ["judge", "toq_eval"]
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["evaluator"]["self_judging"] is False and not info["notes"]
    assert summary["metrics"]["toq_rval"]["mean"] == 1.0


def test_self_judging_is_flagged(make_run, qfile, tmp_path):
    make_run(qfile, toq_eval=True, toq_factory=FakeEvaluator, limit=1).run()
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["evaluator"]["self_judging"] is True
    assert any("self-judging is biased" in n for n in info["notes"])


def test_index_built_once_from_the_dataset_corpus(make_run, qfile, tmp_path, monkeypatch):
    from gaji.eval.runner import EvalRun

    built = []

    def fake_build(src, out_dir, lexical=True, dense=True, progress=True, skip_bad=False):
        built.append((src, out_dir))
        os.makedirs(out_dir, exist_ok=True)

    monkeypatch.setattr(EvalRun, "_open_index", lambda self, d: None)
    for _ in range(2):
        run = make_run(qfile, method="eval_fake_ret", index_cache=str(tmp_path / "cache"))
        run._build_index = fake_build
        run.gaji._retriever_obj = None  # as from the CLI: no retriever given in code
        from gaji.eval.datasets import load_dataset

        idx = run._resolve_index(load_dataset(str(qfile)))
        assert idx.startswith(str(tmp_path / "cache" / "tiny-"))  # not a known set: name + corpus hash
    assert len(built) == 1 and built[0][0] == [str(qfile.with_name("tiny.corpus.jsonl"))]


def test_a_method_with_an_optional_retriever_gets_the_datasets_index(make_run, qfile, tmp_path):
    """chain retrieves when there is an index: the runner must hand it the dataset's (it used to run closed book)."""
    from gaji.testing import ListRetriever

    run = make_run(qfile, method="eval_fake_opt", retriever=ListRetriever(DOCS), limit=1)
    run.run()
    info = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert info["retriever"] and "recall@5" in lines(tmp_path / "run" / "results.jsonl")[0]["metrics"]
    # asked for closed book: no index, none recorded
    make_run(qfile, method="eval_fake_opt", retriever=ListRetriever(DOCS), limit=1, options={"closed_book": "true"},
             out=str(tmp_path / "closed")).run()
    info = json.loads((tmp_path / "closed" / "run.json").read_text(encoding="utf-8"))
    assert info["retriever"] is None and "recall@5" not in lines(tmp_path / "closed" / "results.jsonl")[0]["metrics"]
    # a set without a corpus (Bamboogle) runs closed book instead of failing
    p = write_jsonl(tmp_path / "closed.jsonl", QUESTIONS[:1])
    run = make_run(p, method="eval_fake_opt", out=str(tmp_path / "nocorpus"))
    run.gaji._retriever_obj = None
    assert run.run()["questions"] == 1
    assert json.loads((tmp_path / "nocorpus" / "run.json").read_text(encoding="utf-8"))["retriever"] is None


def test_no_corpus_and_no_index_is_an_error(make_run, tmp_path):
    p = write_jsonl(tmp_path / "closed.jsonl", QUESTIONS[:1])
    run = make_run(p, method="eval_fake_ret")
    run.gaji._retriever_obj = None
    with pytest.raises(ConfigError, match="--index"):
        run.run()


def test_ids_run_only_that_subset(make_run, qfile, tmp_path):
    run = make_run(qfile, ids=("q2", "q1"))
    run.prepare()
    assert [it.id for it in run.items()] == ["q2", "q1"]  # asked in the order given
    run.run()
    assert sorted(r["id"] for r in lines(tmp_path / "run" / "results.jsonl")) == ["q1", "q2"]
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["fingerprint"]["ids"] == ["q1", "q2"]  # the order does not make another run


def test_unknown_ids_are_named(make_run, qfile):
    with pytest.raises(ConfigError, match=r"--ids: 1 id\(s\) not in .*nope"):
        make_run(qfile, ids=("q1", "nope")).prepare()


def test_ids_flag_reads_a_file_or_a_list(tmp_path):
    from gaji.cli.eval_cmd import question_ids as _ids

    f = tmp_path / "ids.txt"
    f.write_text("# failing at depth 1\nq1\n\nq3\n", encoding="utf-8")
    assert _ids(str(f)) == ("q1", "q3")
    assert _ids("q1, q2") == ("q1", "q2")
    for missing in (str(tmp_path / "gone.txt"), "benchmarks/ids-271-290.txt", "ids.lst"):
        with pytest.raises(argparse.ArgumentTypeError, match="no such file"):
            _ids(missing)  # a path that is no file is not read as one unknown id
    assert _ids("2hop__108336_772156") == ("2hop__108336_772156",)


def test_a_published_set_skips_records_without_text_and_drops_them_from_gold(make_run, tmp_path, monkeypatch):
    from types import SimpleNamespace

    from gaji.corpus.readers import ReadReport, Skipped
    from gaji.eval.datasets import load_dataset
    from gaji.eval.runner import EvalRun

    corpus = write_jsonl(tmp_path / "asqa.corpus.jsonl", [
        {"id": "d-guam", "title": "Battle of Guam", "text": "The Battle of Guam was fought in 1944."},
        {"id": "d-empty", "title": "", "text": ""},
    ])
    qs = write_jsonl(tmp_path / "asqa.jsonl", [{"id": "a1", "question": "When was the Battle of Guam?",
                                                "answers": ["1944"], "supporting": [{"doc_id": "d-guam"}, {"doc_id": "d-empty"}]}])
    calls = []

    def fake_build(src, out_dir, lexical=True, dense=True, progress=True, **kw):
        calls.append(kw)
        os.makedirs(out_dir, exist_ok=True)
        return SimpleNamespace(read_report=ReadReport(skipped=[Skipped(str(corpus), 2, "text", "empty 'text'", "d-empty")]))

    monkeypatch.setattr(EvalRun, "_open_index", lambda self, d: None)
    for _ in range(2):  # built once; the second run reads the left-out ids from the marker
        run = make_run(qs, method="eval_fake_ret", index_cache=str(tmp_path / "cache"))
        run._build_index = fake_build
        run.gaji._retriever_obj = None
        run._resolve_index(load_dataset(str(qs)))
        assert run._unindexed == {"d-empty"}
    assert calls == [{"skip_bad": True}]  # a published set's bad records are skipped and listed
    marker = json.loads((tmp_path / "cache" / "asqa.source.json").read_text())
    assert marker["unindexed_ids"] == ["d-empty"]

    from gaji.testing import ListRetriever

    run = make_run(qs, method="eval_fake_ret", retriever=ListRetriever([("d-guam", "Battle of Guam", "The Battle of Guam was fought in 1944.")]),
                   ks=(1,), out=str(tmp_path / "scored"))
    run._unindexed = {"d-empty"}
    run.run()
    m = lines(tmp_path / "scored" / "results.jsonl")[0]["metrics"]
    assert m["recall@1"] == 1.0  # the text-less gold passage is not counted against the method


def test_a_users_own_file_stays_strict(make_run, qfile, tmp_path, monkeypatch):
    from gaji.eval.datasets import load_dataset
    from gaji.eval.runner import EvalRun

    calls = []

    def fake_build(src, out_dir, lexical=True, dense=True, progress=True, **kw):
        calls.append(kw)
        os.makedirs(out_dir, exist_ok=True)

    monkeypatch.setattr(EvalRun, "_open_index", lambda self, d: None)
    run = make_run(qfile, method="eval_fake_ret", index_cache=str(tmp_path / "cache"))
    run._build_index = fake_build
    run.gaji._retriever_obj = None
    run._resolve_index(load_dataset(str(qfile)))
    assert calls == [{"skip_bad": False}]


def test_bad_retriever_option_fails_before_any_work(make_run, qfile, tmp_path):
    run = make_run(qfile, method="eval_fake_ret")
    run.gaji.settings.retriever_options = {"nope": "1"}  # the Gaji's own copy of the settings is what it reads
    with pytest.raises(ConfigError, match="has no option 'nope'"):
        run.prepare()
    assert not (tmp_path / "run" / "results.jsonl").exists()
