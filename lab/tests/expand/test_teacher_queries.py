"""The queries the teacher labels for the tagger's training (gaji_lab/expand/bench.py teacher_queries)."""
from __future__ import annotations

import json

import pytest

from gaji.errors import ConfigError
from gaji_lab.expand.bench import teacher_queries


def test_teacher_queries_from_expansions_once_each_and_drawn(tmp_path):
    exp = tmp_path / "e.jsonl"
    exp.write_text("".join(json.dumps({"chunk_id": f"c{i}", "title": "t", "questions": [f"q{i}?", "same?"]}) + "\n"
                           for i in range(4)), encoding="utf-8")
    qs = teacher_queries(expansions=str(exp))
    assert qs == ["q0?", "same?", "q1?", "q2?", "q3?"]
    drawn = teacher_queries(expansions=str(exp), max_queries=2, seed=3)
    assert len(drawn) == 2 and set(drawn) <= set(qs) and drawn == teacher_queries(str(exp), None, 2, 3)
    with pytest.raises(ConfigError, match="nothing to label"):
        teacher_queries()
