"""The original files kept inside an index (gaji.index.originals): copied by build and sync, one copy per content,
written atomically and checked against the digest read, removed with the last document that names them, counted in
the index's size, and not kept at all with --no-originals (then found at their source only while unchanged)."""
from __future__ import annotations

import hashlib

from gaji.index.layout import ORIGINALS
from gaji.index.originals import collect_originals, find_original, keep_originals, originals_size, stored_path
from gaji.index.sources import read_records
from gaji.index.store import open_index
from gaji.index.writer import remove_documents, sync_source

from fakes_index import build_small


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _folder(tmp_path):
    from gaji.corpus.docgen import write_docx, write_pdf

    notes = tmp_path / "문서함"
    (notes / "사본").mkdir(parents=True)
    write_pdf(notes / "안전점검_보고서.pdf", [["1쪽: 점검 개요."], ["2쪽: 소화기 12대 교체."], ["3쪽: 비상구 표시등 수리."]])
    write_docx(notes / "예산.docx", "예산", [("h1", "1. 예산"), ("p", "등대사업부 예산은 77억 원이다.")])
    (notes / "사본" / "같은_보고서.pdf").write_bytes((notes / "안전점검_보고서.pdf").read_bytes())  # same content
    (notes / "메모.txt").write_text("올빼미는 밤에 사냥한다.", encoding="utf-8")
    return notes


def _stored(out) -> set[str]:
    return {p.name for p in (out / ORIGINALS).rglob("*") if p.is_file()} if (out / ORIGINALS).exists() else set()


def test_build_keeps_each_file_once_by_content(tmp_path):
    notes = _folder(tmp_path)
    out = tmp_path / "idx"
    idx = build_small(out, docs=[notes], dense=False)
    pdf, docx, txt = notes / "안전점검_보고서.pdf", notes / "예산.docx", notes / "메모.txt"
    assert _stored(out) == {_sha(pdf), _sha(docx), _sha(txt)}  # the copy of the PDF is the same content: one file
    assert stored_path(out, _sha(pdf)).read_bytes() == pdf.read_bytes()
    assert not [p for p in (out / ORIGINALS).rglob(".*")]  # no temp file left behind
    assert idx.manifest.config["originals"] is True and idx.manifest.stats["originals"]["copied"] == 3
    found = find_original(out, idx.dir, "사본/같은_보고서.pdf")
    assert found is not None and found.kept and found.sha256 == _sha(pdf)
    info = idx.info()
    assert info["originals"] == {"kept": True, "files": 3, "bytes": sum(p.stat().st_size for p in (pdf, docx, txt))}
    assert info["size_bytes"] > info["originals"]["bytes"]  # counted in the index's size


def test_removal_deletes_a_copy_only_when_no_document_shares_it(tmp_path):
    notes = _folder(tmp_path)
    out = tmp_path / "idx"
    build_small(out, docs=[notes], dense=False)
    sha = _sha(notes / "안전점검_보고서.pdf")
    pages = [d for d in read_records(open_index(out).dir) if d.startswith("안전점검_보고서.pdf")]
    remove_documents(out, pages)
    assert sha in _stored(out)  # 사본/같은_보고서.pdf still names it
    twin = [d for d in read_records(open_index(out).dir) if d.startswith("사본/")]
    remove_documents(out, twin)
    assert sha not in _stored(out) and _sha(notes / "메모.txt") in _stored(out)


def test_sync_copies_new_and_changed_files_and_drops_gone_ones(tmp_path):
    notes = _folder(tmp_path)
    out = tmp_path / "idx"
    build_small(out, docs=[notes], dense=False)
    old = _sha(notes / "메모.txt")
    (notes / "메모.txt").write_text("올빼미는 낮에 잔다.", encoding="utf-8")
    (notes / "예산.docx").unlink()
    (notes / "새 파일.md").write_text("# 제목\n새로 쓴 글.", encoding="utf-8")
    sync_source(out, notes)
    stored = _stored(out)
    assert _sha(notes / "메모.txt") in stored and _sha(notes / "새 파일.md") in stored
    assert old not in stored and len(stored) == 3  # the old memo and the deleted DOCX are gone


def test_no_originals_keeps_none_and_serves_the_source_while_unchanged(tmp_path):
    notes = _folder(tmp_path)
    out = tmp_path / "idx"
    idx = build_small(out, docs=[notes], dense=False, originals=False)
    assert not (out / ORIGINALS).exists() and idx.manifest.config["originals"] is False
    assert idx.info()["originals"] == {"kept": False, "files": 0, "bytes": 0}
    found = find_original(out, idx.dir, "메모.txt")
    assert found is not None and not found.kept and found.path == (notes / "메모.txt").resolve()
    (notes / "메모.txt").write_text("바뀐 내용", encoding="utf-8")  # edited after indexing: not the indexed file
    assert find_original(out, idx.dir, "메모.txt") is None
    sync_source(out, notes)  # follows the index's setting: still no copies
    assert not (out / ORIGINALS).exists()


def test_sync_switches_the_setting_both_ways(tmp_path):
    notes = _folder(tmp_path)
    out = tmp_path / "idx"
    build_small(out, docs=[notes], dense=False, originals=False)
    res = sync_source(out, notes, originals=True)  # nothing changed in the folder, the setting did: a commit
    assert res.generation == 2 and open_index(out).manifest.config["originals"] is True
    assert len(_stored(out)) == 3  # the files already indexed are copied too
    sync_source(out, notes, originals=False)
    assert not (out / ORIGINALS).exists() and open_index(out).manifest.config["originals"] is False


def test_a_file_changed_since_it_was_read_is_not_kept_under_the_old_digest(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("처음 내용", encoding="utf-8")
    rec = {"a.txt": {"source": str(src), "file_sha256": _sha(src)}}
    src.write_text("나중 내용", encoding="utf-8")
    kept = keep_originals(tmp_path / "idx", rec)
    assert kept.changed == [rec["a.txt"]["file_sha256"]] and not _stored(tmp_path / "idx")
    src.unlink()
    assert keep_originals(tmp_path / "idx", rec).missing == [rec["a.txt"]["file_sha256"]]


def test_collect_removes_unreferenced_copies_and_dead_temp_files(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("가", encoding="utf-8")
    b.write_text("나", encoding="utf-8")
    recs = {"a": {"source": str(a), "file_sha256": _sha(a)}, "b": {"source": str(b), "file_sha256": _sha(b)}}
    root = tmp_path / "idx"
    keep_originals(root, recs)
    dead = stored_path(root, _sha(a)).parent / ".x.tmp"
    dead.write_bytes(b"half")
    assert collect_originals(root, {"a": recs["a"]}) == [_sha(b)]
    assert not dead.exists() and originals_size(root) == (1, len("가".encode()))
