"""`subset_corpus`: gold passages + random distractors, optionally each question's official distractors."""
import json

import pytest

from gaji.errors import ConfigError
from gaji_lab.expand.bench import subset_corpus


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def data(tmp_path, monkeypatch):
    d = tmp_path / "data"
    d.mkdir()
    _write(d / "hotpotqa.corpus.jsonl", [{"id": f"p{i}", "title": f"T{i}", "text": f"passage {i}"} for i in range(20)])
    _write(d / "hotpotqa.jsonl", [
        {"id": "q1", "question": "one?", "answers": ["a"], "supporting": [{"doc_id": "p0"}, {"doc_id": "p1"}],
         "context_ids": ["p0", "p1", "p2", "p3"]},
        {"id": "q2", "question": "two?", "answers": ["b"], "supporting": [{"doc_id": "p5"}],
         "context_ids": ["p5", "p6", "p7"]},
    ])
    monkeypatch.setenv("GAJI_DATA", str(d))
    return d


def _ids(out):
    return [json.loads(x)["id"] for x in (out / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]


def test_random_distractors_only(data, tmp_path):
    info = subset_corpus("hotpotqa", tmp_path / "s", distractors=3, seed=0)
    ids = _ids(tmp_path / "s")
    assert info["passages"] == 6 and info["context_distractors"] == 0
    assert {"p0", "p1", "p5"} <= set(ids) and len(set(ids)) == 6


def test_context_keeps_each_questions_official_distractors(data, tmp_path):
    info = subset_corpus("hotpotqa", tmp_path / "c", distractors=2, seed=0, context=True)
    ids = _ids(tmp_path / "c")
    assert {"p0", "p1", "p2", "p3", "p5", "p6", "p7"} <= set(ids)
    assert info["context_distractors"] == 4 and info["passages"] == 9 and len(set(ids)) == 9
    # question-major: a question's gold and context come together (an expanded prefix stays usable)
    first = ids.index("p0") if ids.index("p0") < ids.index("p5") else ids.index("p5")
    block = set(ids[first:first + 4]) if ids[first] == "p0" else set(ids[first:first + 3])
    assert block in ({"p0", "p1", "p2", "p3"}, {"p5", "p6", "p7"})


def test_context_without_context_ids_is_an_error(data, tmp_path):
    _write(data / "hotpotqa.jsonl", [{"id": "q1", "question": "one?", "supporting": [{"doc_id": "p0"}]}])
    with pytest.raises(ConfigError, match="context_ids"):
        subset_corpus("hotpotqa", tmp_path / "e", distractors=1, context=True)


def test_unknown_question_set_is_a_clear_error(data, tmp_path):
    from gaji.errors import InputError

    with pytest.raises(InputError, match="no such question file or shared dataset") as e:
        subset_corpus("nope.jsonl", tmp_path / "n", distractors=1)
    assert e.value.path == "nope.jsonl"
