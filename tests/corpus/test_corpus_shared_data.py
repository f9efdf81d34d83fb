"""Shared data helpers (gaji.corpus.shared_data)."""
import json

import pytest

from gaji.corpus.readers import read_documents
from gaji.corpus.shared_data import (
    DATASETS,
    dataset_paths,
    find_data_dir,
    load_korquad_questions,
    load_questions,
    resolve_corpus,
)
from gaji.errors import ConfigError, InputError

DATA = find_data_dir()
data = pytest.mark.data
needs_data = pytest.mark.skipif(DATA is None, reason="shared data dir absent")


def test_unknown_dataset_lists_known(tmp_path):
    with pytest.raises(ConfigError) as e:
        dataset_paths("nope", tmp_path)
    for name in DATASETS:
        assert name in str(e.value)


def test_paths_with_explicit_root(tmp_path):
    q, c = dataset_paths("hotpotqa", tmp_path)
    assert q == tmp_path / "hotpotqa.jsonl" and c == tmp_path / "hotpotqa.corpus.jsonl"
    assert dataset_paths("bamboogle", tmp_path)[1] is None
    q, c = dataset_paths("KorQuAD", tmp_path)
    assert q == c == tmp_path / "KorQuAD_v1.0_dev.json"


def test_gaji_data_env(tmp_path, monkeypatch):
    monkeypatch.setenv("GAJI_DATA", str(tmp_path))
    assert find_data_dir() == tmp_path
    monkeypatch.setenv("GAJI_DATA", str(tmp_path / "missing"))
    assert find_data_dir() is None
    with pytest.raises(ConfigError, match="GAJI_DATA"):
        dataset_paths("hotpotqa")


def test_resolve_corpus(tmp_path, monkeypatch):
    f = tmp_path / "x.jsonl"
    f.write_text('{"text": "a"}\n', encoding="utf-8")
    assert resolve_corpus(f) == f
    monkeypatch.setenv("GAJI_DATA", str(tmp_path))
    with pytest.raises(ConfigError, match="no corpus"):
        resolve_corpus("bamboogle")
    with pytest.raises(InputError, match="no such file"):
        resolve_corpus("not-a-dataset")


def test_korquad_questions_format(tmp_path):
    from test_corpus_readers import _korquad  # same folder

    p = _korquad(tmp_path / "k.json")
    qs = list(load_korquad_questions(p))
    assert [q["id"] for q in qs] == ["q1", "q2"]
    assert qs[1]["answers"] == ["세"] and qs[1]["dataset"] == "korquad"
    assert qs[1]["supporting"] == [{"doc_id": "korquad-1-0", "title": "둘", "text": "세 번째."}]
    ids = {d.id for d in read_documents([p])[0]}
    assert all(s["doc_id"] in ids for q in qs for s in q["supporting"])
    assert [q["id"] for q in load_questions(p)] == ["q1", "q2"]


def test_load_questions_jsonl_errors(tmp_path):
    p = tmp_path / "q.jsonl"
    p.write_text(json.dumps({"id": 1, "question": "q?"}) + "\nnot json\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        list(load_questions(p))
    assert e.value.line == 2


@data
@needs_data
def test_shared_data_files_exist_and_korquad_ids_match():
    for name in DATASETS:
        q, c = dataset_paths(name)
        assert q.exists(), q
        assert c is None or c.exists(), c
    q, c = dataset_paths("korquad")
    qs = list(load_korquad_questions(q))
    assert len(qs) == 5774
    ids = {d.id for d in read_documents([c])[0]}
    assert len(ids) == 964
    assert all(s["doc_id"] in ids for x in qs for s in x["supporting"])
