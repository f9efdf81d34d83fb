"""Changing an index (gaji.index.writer): remove documents from every part, sync with a folder or a corpus
file by content hash, and ids that can never collide."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from gaji.errors import InputError
from gaji.index.manifest import Manifest
from gaji.index.sources import read_records
from gaji.index.store import open_index
from gaji.index.update import plan
from gaji.index.writer import UnknownDocuments, remove_documents, sync_source
from gaji.types import Chunk, Document

from fakes_index import DOCS, build_small, fake_embedder

LONG = Document(id="long", title="Long", text=" ".join(f"Sentence number {i} talks about owls." for i in range(30)))


@pytest.mark.parametrize("backend", ["exact", "hnsw"])
def test_remove_takes_a_document_out_of_every_part(tmp_path, backend):
    out = tmp_path / "idx"
    build_small(out, docs=DOCS + [LONG], chunking={"size": 200, "overlap": 0}, dense_backend=backend)
    idx = open_index(out)
    long_chunks = [c.id for c in idx.iter_chunks() if c.doc_id == "long"]
    assert len(long_chunks) > 2
    res = idx.remove(["long", "kimchi"])  # a generation without them, then one with their vectors zeroed
    assert res.removed == ["long", "kimchi"] and res.chunks.removed == len(long_chunks) + 1
    assert res.generation == idx.generation == 4 and not idx.vectors_pending
    assert idx.chunks == 4 and not any(c in idx for c in long_chunks + ["kimchi"])
    assert all(p.doc_id not in ("long", "kimchi") for p in idx.retriever("bm25").search("owls 김치 배추", 10))
    assert all(p.doc_id not in ("long", "kimchi") for p in idx.retriever("dense").search("owls sentence", 10))
    assert idx.retriever("dense").search("Guido van Rossum", 1)[0].id == "python"
    vecs = np.load(idx.dir / "dense" / "vectors.npy")
    gone = [r for r, e in enumerate(json.loads((idx.dir / "chunks.ids.json").read_text())) if e is None]
    assert len(gone) == len(long_chunks) + 1 and not vecs[gone].any()
    if backend == "hnsw":
        import faiss

        assert faiss.read_index(str(idx.dir / "dense" / "hnsw.faiss")).ntotal == 4
    assert set(read_records(idx.dir)) == {"guam", "manila", "pirates", "python"}
    h = idx.manifest.history[-1]
    assert h["action"] == "remove" and h["removed"] == len(long_chunks) + 1
    assert idx.manifest.counts["documents"] == 4


def test_removing_an_unknown_document_removes_nothing(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    with pytest.raises(UnknownDocuments) as e:
        remove_documents(out, ["guam", "atlantis"])
    assert e.value.ids == ["atlantis"] and "atlantis" in str(e.value) and "nothing was removed" in str(e.value)
    assert open_index(out).chunks == 5 and open_index(out).generation == 1
    res = remove_documents(out, ["guam", "atlantis"], missing_ok=True)
    assert res.removed == ["guam"] and res.missing == ["atlantis"]
    res = remove_documents(out, ["manila", "kimchi", "pirates", "python"])
    idx = open_index(out)
    assert idx.chunks == 0 and idx.retriever("bm25").search("battle", 5) == []


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_sync_follows_a_folder(tmp_path):
    notes = tmp_path / "notes"
    _write(notes / "a.txt", "김치는 배추를 소금에 절여 만든다.")
    _write(notes / "sub" / "b.md", "# Zebras\nZebras live in Africa.")
    _write(notes / "c.txt", "Owls hunt at night.")
    out = tmp_path / "idx"
    build_small(out, docs=DOCS[:2])
    res = sync_source(out, notes)
    assert sorted(res.added) == ["a.txt", "c.txt", "sub/b.md"] and not res.changed and not res.removed
    again = sync_source(out, notes)
    assert (again.added, again.changed, again.removed, sorted(again.unchanged)) == ([], [], [], sorted(res.added))
    assert again.generation == res.generation  # nothing changed: no new generation

    _write(notes / "sub" / "b.md", "# Zebras\nZebras also live in Kenya.")  # edited
    (notes / "c.txt").unlink()  # deleted
    _write(notes / "d.txt", "Lions sleep most of the day.")  # new
    emb = fake_embedder()  # counts from 0
    res = sync_source(out, notes)
    assert (res.added, res.changed, res.removed) == (["d.txt"], ["sub/b.md"], ["c.txt"])
    assert emb.passages_embedded == 2  # only the new and the edited document
    idx = open_index(out)
    assert "c.txt" not in idx and idx.get_chunk("sub/b.md").text.endswith("Kenya.")
    assert idx.retriever("bm25").search("kenya", 1)[0].id == "sub/b.md"
    assert all(p.id != "c.txt" for p in idx.retriever("dense").search("owls hunt night", 5))
    assert {"guam", "manila"} <= {c.doc_id for c in idx.iter_chunks()}  # not from the folder: left alone
    rec = read_records(idx.dir)["a.txt"]
    assert rec["source"] == str((notes / "a.txt").resolve()) and len(rec["sha256"]) == 64
    assert rec["file_sha256"] == hashlib.sha256((notes / "a.txt").read_bytes()).hexdigest()  # the reader's Location


def test_sync_keeps_documents_of_unreadable_files_and_empties_an_empty_folder(tmp_path):
    notes = tmp_path / "notes"
    _write(notes / "a.txt", "Alpha document.")
    _write(notes / "b.txt", "Beta document.")
    out = tmp_path / "idx"
    build_small(out, docs=DOCS[:1], dense=False)
    sync_source(out, notes)
    (notes / "b.txt").write_bytes(b"\xff\xfe not utf-8")  # cannot be read any more
    with pytest.raises(InputError, match="b.txt"):
        sync_source(out, notes, strict=True)
    res = sync_source(out, notes)  # by default the file is listed, and what it had is kept
    assert res.kept == ["b.txt"] and not res.removed and "b.txt" in open_index(out)
    assert [s.path.rsplit("/", 1)[-1] for s in res.chunks.report.refused()] == ["b.txt"]
    assert res.to_dict()["refused"][0]["file"].endswith("b.txt")
    (notes / "a.txt").unlink()
    (notes / "b.txt").unlink()
    res = sync_source(out, notes)
    assert sorted(res.removed) == ["a.txt", "b.txt"] and open_index(out).chunks == 1


def test_sync_follows_a_corpus_file(tmp_path):
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}, {"id": "c", "text": "gamma"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "idx"
    build_small(out, docs=[str(corpus)], dense=False)
    rows[1]["text"] = "beta changed"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]), encoding="utf-8")
    res = sync_source(out, corpus)
    assert (res.added, res.changed, res.removed, res.unchanged) == ([], ["b"], ["c"], ["a"])
    assert open_index(out).get_chunk("b").text == "beta changed"


def test_a_document_id_in_the_form_of_a_chunk_id_is_refused(tmp_path):
    """`long#1` as a document id would replace chunk 1 of `long`: build, add and sync refuse it."""
    out = tmp_path / "idx"
    build_small(out, docs=DOCS + [LONG], chunking={"size": 200, "overlap": 0}, dense=False)
    before = open_index(out).get_chunk("long#1").text
    with pytest.raises(InputError, match="long#1.*form of chunk ids"):
        open_index(out).add([Document(id="long#1", text="I am not chunk 1 of long")])
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "ok", "text": "fine"}\n{"id": "long#1", "text": "not a chunk"}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        open_index(out).add([str(corpus)])
    assert f"{corpus}:2" in str(e.value) and "'id'" in str(e.value)
    res = open_index(out).add([str(corpus)], skip_bad=True)
    assert res.added == 1 and len(res.report.skipped) == 1
    with pytest.raises(InputError, match="form of chunk ids"):
        build_small(tmp_path / "other", docs=[Document(id="x#12", text="no")], dense=False)
    assert open_index(out).get_chunk("long#1").text == before and open_index(out).get_chunk("long#1").doc_id == "long"
    ok = open_index(out)
    ok.add([Document(id="long#a", text="letters after the hash are fine"), Document(id="#1x", text="so is this")])
    assert "long#a" in ok and "#1x" in ok


def test_plan_refuses_to_give_a_chunk_id_to_another_document():
    rows = [Chunk(id="x#0", doc_id="x", text="a"), Chunk(id="x#1", doc_id="x", text="b")]
    with pytest.raises(InputError, match="chunk id 'x#1' of document 'y'.*document 'x'"):
        plan(rows, {"y"}, [Chunk(id="x#1", doc_id="y", text="c")], Manifest(config={"lexical": True}))


def test_sync_follows_office_documents_edited_and_deleted(tmp_path):
    """Documents read from office files (several per file: one per slide) follow the file: an edited deck
    loses the slide it no longer has, a deleted file takes its documents along, a damaged one keeps them."""
    from gaji.corpus.docgen import write_docx, write_pptx

    notes = tmp_path / "문서함"
    notes.mkdir()
    write_pptx(notes / "발표.pptx", [("현황", ["올해 목표를 정리했다."], None),
                                   ("성과", ["반딧불 앱의 월간 사용자는 340만 명이다."], None),
                                   ("계획", ["내년에는 두 배로 늘린다."], None)])
    write_docx(notes / "연구.docx", "연구 계획", [("h1", "1. 목표"), ("p", "백두 연구소의 양자 센서 시제품.")])
    write_docx(notes / "예산.docx", "예산", [("h1", "1. 예산"), ("p", "등대사업부 예산은 77억 원이다.")])
    out = tmp_path / "idx"
    build_small(out, docs=DOCS[:1], dense=False)
    first = sync_source(out, notes)
    slides = sorted(i for i in first.added if i.startswith("발표.pptx"))
    assert len(slides) == 3 and any(i.startswith("연구.docx") for i in first.added)
    write_pptx(notes / "발표.pptx", [("현황", ["올해 목표를 새로 정리했다."], None),
                                   ("성과", ["반딧불 앱의 월간 사용자는 340만 명이다."], None)])
    (notes / "연구.docx").unlink()
    (notes / "예산.docx").write_bytes(b"PK\x03\x04 not a real docx any more")
    res = sync_source(out, notes, skip_bad=True)
    idx = open_index(out)
    assert slides[2] in res.removed and slides[0] in res.changed and slides[1] in res.unchanged
    assert all(i in res.removed for i in first.added if i.startswith("연구.docx"))
    assert res.kept and all(i.startswith("예산.docx") for i in res.kept) and all(i in idx for i in res.kept)
    assert [p.doc_id for p in idx.retriever("bm25").search("새로 정리", 1)] == [slides[0]]
    assert all(not p.doc_id.startswith("연구.docx") for p in idx.retriever("bm25").search("양자 센서", 5))
    rec = read_records(idx.dir)[slides[0]]
    assert rec["file_sha256"] == hashlib.sha256((notes / "발표.pptx").read_bytes()).hexdigest()


def test_adding_a_file_again_replaces_every_document_it_had(tmp_path):
    out = tmp_path / "idx"
    build_small(out, docs=DOCS, dense=False)
    pages = [Document(id=f"r.pdf#page{i}", title="r", text=f"{i}쪽 본문: 올빼미 {i}마리.") for i in (1, 2, 3)]
    others = [Document(id="r.pdfx", title="x", text="이름이 비슷한 다른 문서다."),
              Document(id="r.pdf-notes", title="y", text="이것도 다른 문서다.")]
    idx = open_index(out)
    idx.add(pages + others, files=["r.pdf"])
    assert {"r.pdf#page3", "r.pdfx", "r.pdf-notes"} <= {c.doc_id for c in idx.iter_chunks()}
    res = idx.add([Document(id="r.pdf", title="r", text="한 쪽만 남은 새 판이다.")], files=["r.pdf"])
    docs = {c.doc_id for c in idx.iter_chunks()}
    assert res.removed == 3 and res.added == 1
    assert not any(d.startswith("r.pdf#") for d in docs) and {"r.pdf", "r.pdfx", "r.pdf-notes", "kimchi"} <= docs
    records = read_records(idx.dir)
    assert "r.pdf#page1" not in records and "r.pdf" in records
    # without `files`, an add replaces only the documents it names
    idx.add([Document(id="r.pdf#page9", title="r", text="아홉째 쪽.")])
    assert {"r.pdf", "r.pdf#page9"} <= {c.doc_id for c in idx.iter_chunks()}
