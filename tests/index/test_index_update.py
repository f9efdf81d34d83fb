"""Adding to a built index (gaji.index.update through Index.add): append, replace, remove, HNSW patch, atomicity."""
import pytest

from gaji.index.manifest import Manifest
from gaji.index.store import open_index
from gaji.index.update import plan
from gaji.types import Chunk, Document

from fakes_index import DOCS, build_small, fake_embedder


def test_hnsw_backend(tmp_path):
    idx = build_small(tmp_path / "h", dense_backend="hnsw", lexical=False)
    assert idx.manifest.config["dense_backend"] == "hnsw"
    assert idx.retriever("dense").search("Guido van Rossum programming language", 1)[0].id == "python"
    idx.add([Document(id="new", text="Completely new words zebra giraffe")])
    assert open_index(tmp_path / "h").retriever("dense").search("zebra giraffe", 1)[0].id == "new"


def test_add_appends_replaces_and_removes(tmp_path):
    emb = fake_embedder()
    out = tmp_path / "idx"
    build_small(out, docs=DOCS, embedder=emb, chunking={"size": 40, "overlap": 0})
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


def test_failed_add_leaves_index_unchanged(tmp_path, monkeypatch):
    import gaji.index.update as update_mod

    def crash(*a, **kw):
        raise KeyboardInterrupt("simulated crash")

    emb = fake_embedder()
    out = tmp_path / "idx"
    build_small(out, embedder=emb)
    before = (out / "chunks.jsonl").read_bytes()
    idx = open_index(out)
    monkeypatch.setattr(update_mod, "index_lexical", crash)  # the add fails before it is swapped in
    with pytest.raises(KeyboardInterrupt):
        idx.add([Document(id="new", text="brand new document")])
    assert (out / "chunks.jsonl").read_bytes() == before and not list(tmp_path.glob(".idx.*"))
    again = open_index(out)
    assert again.chunks == 5 and "new" not in again and not again.vectors_pending


def test_add_that_fails_while_embedding_answers_with_bm25_and_resumes(tmp_path):
    from gaji.index.fill import fill_vectors

    emb = fake_embedder()
    out = tmp_path / "idx"
    build_small(out, embedder=emb)
    idx = open_index(out)
    new = [Document(id=f"n{i}", text=f"zebra giraffe number {i}") for i in range(6)]
    emb.passages_embedded = 0
    emb.fail_after = 4  # the fourth new passage fails (checkpoints of 2: rows 1-4 are kept)
    with pytest.raises(KeyboardInterrupt):
        idx.add(new, checkpoint_rows=2)
    emb.fail_after = None
    pending = open_index(out)
    assert pending.chunks == 11 and pending.vectors_pending
    hits = pending.retriever("hybrid").search("zebra giraffe number 5", 1)
    assert hits[0].id == "n5" and hits[0].source == "bm25"
    emb.passages_embedded = 0
    res = fill_vectors(out, emb, checkpoint_rows=2)
    assert res.complete and res.resumed == 4 and res.embedded == emb.passages_embedded == 2
    assert pending.retriever("hybrid").name == "hybrid"  # the open index sees the fill
    assert open_index(out).retriever("dense").search("zebra giraffe number 5", 1)[0].id == "n5"


def _chunk(cid, doc, text, title="", **md):
    return Chunk(id=cid, doc_id=doc, text=text, title=title, metadata=md)


ROWS = [_chunk("a#0", "a", "alpha one"), _chunk("a#1", "a", "alpha two"), None, _chunk("b#0", "b", "beta")]


def test_plan_decides_rows_without_touching_anything():
    m = Manifest(config={"lexical": True, "dense": False})
    change = plan(ROWS, {"a", "c"}, [_chunk("a#0", "a", "alpha one", src="new"), _chunk("a#1", "a", "alpha 2"),
                                     _chunk("c#0", "c", "gamma")], m)
    assert [c.id if c else None for c in change.rows] == ["a#0", "a#1", None, "b#0", "c#0"]
    assert change.rows[0].metadata == {"src": "new"}  # unchanged text, metadata refreshed: not re-indexed
    assert [r for r, _ in change.index] == [1, 4] and change.replaced == [1] and change.deleted == []
    r = change.result
    assert (r.added, r.replaced, r.unchanged, r.removed, r.embedded) == (1, 1, 1, 0, 0)
    assert change.touched and change.dense_backend is None and not change.patch_hnsw
    assert len(ROWS) == 4 and ROWS[1].text == "alpha two"  # the rows given are not changed


def test_plan_removes_chunks_a_document_no_longer_has():
    change = plan(ROWS, {"a"}, [_chunk("a#0", "a", "alpha one")], Manifest(config={"lexical": True}))
    assert change.deleted == [1] and change.rows[1] is None and change.result.removed == 1
    assert change.index == [] and change.touched
    gone = plan(ROWS, {"b"}, [], Manifest(config={"lexical": True}))  # a document with no chunks left
    assert gone.deleted == [3] and list(gone.live) == [True, True, False, False]


def test_plan_patches_hnsw_only_when_rows_are_only_appended():
    hnsw = Manifest(config={"dense": True, "dense_backend": "hnsw", "dense_backend_requested": "hnsw"})
    append = plan(ROWS, {"c"}, [_chunk("c#0", "c", "gamma")], hnsw)
    assert append.patch_hnsw and append.dense_backend == "hnsw" and append.result.embedded == 1
    replace = plan(ROWS, {"b"}, [_chunk("b#0", "b", "beta 2")], hnsw)
    assert not replace.patch_hnsw and replace.dense_backend == "hnsw"
    auto = Manifest(config={"dense": True, "dense_backend": "hnsw", "dense_backend_requested": "auto"})
    assert plan(ROWS, {"c"}, [_chunk("c#0", "c", "gamma")], auto).dense_backend == "exact"  # few rows: exact
    same = plan(ROWS, {"b"}, [_chunk("b#0", "b", "beta")], hnsw)
    assert not same.touched and same.dense_backend is None and same.result.unchanged == 1
