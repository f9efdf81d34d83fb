"""`gaji bench chat-set` against a live loopback server: every question's row, the time limit counted as such, a
stopped run resumed without asking again."""
from __future__ import annotations

import json
import time

import pytest

from gaji.cli.eval_cmd import question_ids
from gaji.errors import InputError
from gaji_lab.bench.chat_set import ask_set, read_done, select, summary
from gaji.eval.datasets import EvalItem

EN_Q = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
ITEMS = [EvalItem("q1", EN_Q, ["Battle of Guam"], lang="en", type="comparison"),
         EvalItem("q2", "세종은 언제 태어났나?", ["1397년"], lang="ko", type="bridge")]


def test_each_question_is_asked_once_and_scored_on_the_short_answer(make_app, live_server, tmp_path):
    out = tmp_path / "answers.jsonl"
    with live_server(make_app()) as url:
        rows = ask_set(url, ITEMS, out)
        assert [r["id"] for r in rows] == ["q1", "q2"] and all(r["status"] == 200 for r in rows)
        assert rows[0]["answer"] == "Battle of Guam" and rows[0]["f1"] == 1.0 and rows[1]["f1"] == 0.0
        assert "[1]" in rows[0]["content"] and rows[0]["tokens"] > 0  # what the client showed, and the count
        again = ask_set(url, ITEMS, out)  # resumed: nothing asked twice
    assert again == rows and len(out.read_text(encoding="utf-8").splitlines()) == 2
    s = summary(rows)
    assert s["all"]["answered"] == 2 and s["all"]["time_limit"] == 0 and s["all"]["f1"] == 50.0
    assert set(s["by_type"]) == {"comparison", "bridge"}


def test_a_question_over_the_time_limit_is_counted_as_such(make_app, live_server, scripted, tmp_path):
    def slow(_req):
        time.sleep(1.5)
        return "Battle of Guam"

    app = make_app(scripted(_extra=[(r"Question:", slow)]), timeout_s=0.5)
    with live_server(app) as url:
        rows = ask_set(url, ITEMS[:1], tmp_path / "a.jsonl")
    assert rows[0]["status"] == 504 and rows[0]["f1"] == 0.0 and rows[0]["error"]
    assert summary(rows)["all"]["time_limit"] == 1


def test_bad_ids_and_broken_rows_name_the_problem(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("q2\nq9\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"1 id\(s\) not in the set, first 'q9'"):
        select(ITEMS, question_ids(str(ids)), None)
    ids.write_text("q2\n", encoding="utf-8")
    assert [i.id for i in select(ITEMS, question_ids(str(ids)), None)] == ["q2"] and select(ITEMS, None, 1) == ITEMS[:1]
    out = tmp_path / "a.jsonl"
    out.write_text(json.dumps({"id": "q1"}) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"a\.jsonl:2"):
        read_done(out)
