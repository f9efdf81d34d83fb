"""gaji.eval.scoring: one question's result line, on its own and inside a run."""
from __future__ import annotations

import json

from evalfakes import QUESTIONS, write_jsonl
from gaji.eval.datasets import load_dataset
from gaji.eval.scoring import Scorer, retrieved
from gaji.types import Node, Passage, Trace


def lines(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def scorer(ds, **kw) -> Scorer:
    def no_judge():
        raise AssertionError("no judge was asked for")

    kw = {"ks": (1, 5), "gold_match": "auto", "unindexed": set(), "judge_k": None, "toq_eval": False,
          "judge_llm": no_judge, "retries": 0, **kw}
    return Scorer(ds, **kw)


def answered_trace(question: str, answer: str, passages: list[Passage]) -> Trace:
    t = Trace(question=question, method="eval_fake", answer=answer, retriever="list")
    t.root = Node(kind="root", question=question, passage_ids=[p.id for p in passages])
    t.passages = {p.id: p for p in passages}
    return t


def test_a_scoring_crash_is_recorded_with_the_trace(make_run, qfile, tmp_path, monkeypatch):
    import gaji.eval.scoring as scoring

    def boom(*a, **k):
        raise ZeroDivisionError("bad metric")

    monkeypatch.setattr(scoring, "cost_metrics", boom)
    summary = make_run(qfile, limit=2).run()
    res = lines(tmp_path / "run" / "results.jsonl")
    assert summary["errors"] == 2 and all("scoring: ZeroDivisionError" in r["error"] for r in res)
    assert res[0]["prediction"] and len(lines(tmp_path / "run" / "traces.jsonl")) == 2


def test_retrieved_documents_in_first_seen_order_with_their_first_passage():
    ps = [Passage(id="d-guam#1", doc_id="d-guam", title="Battle of Guam", text="b"),
          Passage(id="d-guam#0", doc_id="d-guam", title="Battle of Guam", text="a"),
          Passage(id="d-lim", doc_id="d-lim", title="임종석", text="c")]
    docs, first = retrieved(answered_trace("q", "a", ps))
    assert [d.doc_id for d in docs] == ["d-guam", "d-lim"] and [p.id for p in first] == ["d-guam#1", "d-lim"]


def test_answer_recall_and_cost_of_one_question(tmp_path):
    ds = load_dataset(str(write_jsonl(tmp_path / "tiny.jsonl", QUESTIONS)))
    item = ds.items[0]
    guam = Passage(id="d-guam", doc_id="d-guam", title="Battle of Guam (1944)", text="1944")
    rec, line = scorer(ds).answered(item, answered_trace(item.question, "the Battle of Guam.", [guam]))
    m = rec["metrics"]
    assert rec["status"] == "ok" and m["em"] == 1.0 and m["recall@1"] == 0.5 and m["recall@5"] == 0.5
    assert rec["retrieved"] == ["d-guam"] and line["id"] == "q1" and line["eval"] == []
    # gold passages left out of the index leave the recall denominator
    rec, _ = scorer(ds, unindexed={"d-manila"}).answered(item, answered_trace(item.question, "x", [guam]))
    assert rec["metrics"]["recall@1"] == 1.0 and rec["metrics"]["em"] == 0.0


def test_a_crashed_question_scores_zero_and_keeps_its_time(tmp_path):
    ds = load_dataset(str(write_jsonl(tmp_path / "tiny.jsonl", QUESTIONS)))
    rec = scorer(ds).crashed(ds.items[1], RuntimeError("boom"), 0.123456)
    assert rec["status"] == "error" and rec["error"] == "RuntimeError: boom" and rec["lang"] == "ko"
    assert rec["metrics"] == {"em": 0.0, "f1": 0.0, "wall_s": 0.1235} and rec["summary"] is None
