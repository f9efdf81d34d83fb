"""`gaji bench replay`: a tiny recorded run (one-retrieval answers recorded with the scripted LLM over a list
retriever, written as a recorded run folder) replayed with today's code: the same answers, and each kind of
difference told apart (prompt, retrieval, parsing)."""
import json
import lzma

import pytest

from gaji.api import Gaji
from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.testing import ListRetriever
from gaji_lab.bench.replay import (RecordedPassages, load_recorded, recorded_calls, replay_run, report_markdown,
                                   write_report)

PASSAGES = [
    ("p1", "Yi Sun-sin", "Yi Sun-sin was a Korean admiral born in Hanseong in 1545."),
    ("p2", "Hanseong", "Hanseong was the capital of Joseon, today's Seoul."),
    ("p3", "한강", "한강은 서울을 가로지르는 강이다."),
]
QUESTIONS = [("q1", "Where was Yi Sun-sin born?", "Hanseong"), ("q2", "한강은 어느 도시를 가로지르나?", "서울")]


def record(folder, passages=PASSAGES):
    """Run oner over the list retriever with scripted answers and write the run as `gaji eval` records one."""
    folder.mkdir(parents=True, exist_ok=True)
    replies = {q: a for _, q, a in QUESTIONS}
    llm = ScriptedLLM([(r"Yi Sun-sin born", replies[QUESTIONS[0][1]]), (r"한강은 어느", replies[QUESTIONS[1][1]])])
    g = Gaji(llm=llm, retriever=ListRetriever(list(passages)))
    results, traces, options = [], [], {}
    for qid, q, _ in QUESTIONS:
        trace = g.ask(q, "oner")
        options = dict(trace.params)
        results.append({"id": qid, "question": q, "prediction": trace.answer})
        traces.append({"id": qid, "trace": trace.to_dict()})
    run = {"method": "oner", "options": options, "retriever": "hybrid", "k": 5, "lang": "auto", "index": "",
           "model": "scripted", "backend": {"name": "scripted", "parallel_slots": 1, "context_size": 4096}}
    (folder / "run.json").write_text(json.dumps(run), encoding="utf-8")
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    with lzma.open(folder / "traces.jsonl.xz", "wt", encoding="utf-8") as f:
        f.write("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in traces))
    return folder


def rewrite_traces(folder, change):
    lines = [json.loads(x) for x in lzma.open(folder / "traces.jsonl.xz", "rt", encoding="utf-8")]
    for t in lines:
        change(t["trace"])
    with lzma.open(folder / "traces.jsonl.xz", "wt", encoding="utf-8") as f:
        f.write("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in lines))


def test_an_unchanged_run_replays_to_the_same_answers(tmp_path):
    run = load_recorded(record(tmp_path / "run"))
    assert len(recorded_calls(run.traces["q1"])) == 1
    rep = replay_run(run, ListRetriever(list(PASSAGES)), counter=lambda t: len(t.split()))
    assert [(r.verdict, r.replayed, r.matched, r.unused) for r in rep.rows] == [
        ("same", "Hanseong", 1, 0), ("same", "서울", 1, 0)]
    assert rep.counts() == {"same": 2, "different": 0, "diverged": 0, "crashed": 0} and not rep.dropped_options


def test_a_changed_prompt_diverges_with_the_first_differing_character(tmp_path):
    folder = record(tmp_path / "run")

    def old_wording(trace):
        for call in trace["root"]["calls"]:
            call["prompt"][-1]["content"] = call["prompt"][-1]["content"].replace("Question", "Query")
    rewrite_traces(folder, old_wording)
    rep = replay_run(load_recorded(folder), ListRetriever(list(PASSAGES)), limit=1)
    (row,) = rep.rows
    assert (row.verdict, row.cause, row.replayed) == ("diverged", "prompt differs", "")
    assert "character" in row.detail and "Query" in row.divergence["recorded"]
    assert row.divergence["asked"][row.divergence["asked"].index("Question"):].startswith("Question")


def test_other_passages_are_a_retrieval_difference(tmp_path):
    run = load_recorded(record(tmp_path / "run"))
    moved = [PASSAGES[1], PASSAGES[0], PASSAGES[2]]  # the same passages, ranked otherwise for ties
    rep = replay_run(run, ListRetriever([("p9", "Yi Sun-sin born", "Yi Sun-sin born where?"), *moved]), limit=1)
    (row,) = rep.rows
    assert (row.verdict, row.cause) == ("diverged", "retrieval differs")
    assert "from rank 1" in row.detail and "p9" in row.detail


def test_recorded_passages_answer_searches_whatever_the_index_holds_now(tmp_path):
    run = load_recorded(record(tmp_path / "run"))
    rep = replay_run(run, ListRetriever([("p9", "x", "nothing")]), recorded_passages=True)
    assert [r.verdict for r in rep.rows] == ["same", "same"]
    searcher = RecordedPassages(run.traces["q1"])
    assert [p.id for p in searcher.search("Where was Yi Sun-sin born?", 2)] == ["p1", "p2"]
    assert searcher.search("never asked", 3) == [] and searcher.unrecorded == ["never asked"]


def test_the_same_calls_read_into_another_answer_are_a_parsing_difference(tmp_path):
    folder = record(tmp_path / "run")
    rewrite_traces(folder, lambda t: t.update(answer="Hanseong (Seoul)") if "Yi" in t["question"] else None)
    (row,) = replay_run(load_recorded(folder), ListRetriever(list(PASSAGES)), limit=1).rows
    assert (row.verdict, row.cause, row.recorded, row.replayed) == (
        "different", "parsing/span differs", "Hanseong (Seoul)", "Hanseong")


def test_options_today_s_method_lacks_are_left_out_and_said(tmp_path):
    folder = record(tmp_path / "run")
    run_json = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    run_json["options"]["gone_option"] = True
    (folder / "run.json").write_text(json.dumps(run_json), encoding="utf-8")
    rep = replay_run(load_recorded(folder), ListRetriever(list(PASSAGES)))
    assert rep.dropped_options == ["gone_option"] and any("gone_option" in n for n in rep.notes)
    assert rep.counts()["same"] == 2


def test_the_table_and_rows_are_written(tmp_path):
    rep = replay_run(load_recorded(record(tmp_path / "run")), ListRetriever(list(PASSAGES)))
    md, rows = write_report(rep, tmp_path / "out")
    text = md.read_text(encoding="utf-8")
    assert "same 2" in text and "| q2 | 서울 | 서울 | same |" in text
    assert [json.loads(x)["verdict"] for x in rows.read_text(encoding="utf-8").splitlines()] == ["same", "same"]
    assert report_markdown(rep) == text


def test_a_folder_that_is_not_a_recorded_run_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="no run.json"):
        load_recorded(tmp_path)
    (tmp_path / "run.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="run.json: cannot read"):
        load_recorded(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"method": "oner", "options": {}}), encoding="utf-8")
    with pytest.raises(ConfigError, match="no traces.jsonl"):
        load_recorded(tmp_path)


def test_recorded_passages_need_no_index(tmp_path, monkeypatch):
    from gaji_lab.bench.replay import open_retriever

    monkeypatch.chdir(tmp_path)
    run = load_recorded(record(tmp_path / "run"))
    opened = open_retriever(run, None, build=False)
    assert opened.retriever is None and "no index" in opened.note
    rep = replay_run(run, opened.retriever, recorded_passages=True)
    assert [r.verdict for r in rep.rows] == ["same", "same"]


def test_a_reply_its_caller_refused_is_replayed_too_but_a_backend_failure_is_not():
    from gaji_lab.bench.replay import recorded_calls

    ok = {"prompt": "p", "output": "a", "ok": True, "finish_reason": "stop"}
    refused = {"prompt": "p", "output": "{bad", "ok": False, "error": "invalid JSON: x", "finish_reason": "stop"}
    failed = {"prompt": "p", "output": "", "ok": False, "error": "LLMError: timeout", "finish_reason": ""}
    trace = {"root": {"calls": [refused, failed], "children": [{"calls": [ok]}]}}
    assert [c.output for c in recorded_calls(trace)] == ["{bad", "a"]
