"""gaji.io: the strict JSONL reader every loader shares, and atomic writes."""
from __future__ import annotations

import os

import pytest

from gaji.errors import InputError
from gaji.io import atomic_open, atomic_write_text, iter_jsonl


def test_iter_jsonl_skips_blank_lines_keeps_line_numbers_and_reads_a_bom(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes('\ufeff{"q": "질문"}\n\n  \n{"q": 2}\n'.encode("utf-8"))
    assert list(iter_jsonl(p)) == [(1, {"q": "질문"}), (4, {"q": 2})]


@pytest.mark.parametrize("raw, msg", [
    (b'{"a": 1}\n{"a": \n', r"a.jsonl:2: not valid JSON"),
    (b'{"a": 1}\n[1, 2]\n', r"a.jsonl:2: each line must be a JSON object"),
    (b'{"a": "\xff"}\n', r"a.jsonl: not UTF-8"),
])
def test_iter_jsonl_names_file_and_line(tmp_path, raw, msg):
    p = tmp_path / "a.jsonl"
    p.write_bytes(raw)
    with pytest.raises(InputError, match=msg):
        list(iter_jsonl(p))


def test_iter_jsonl_missing_file(tmp_path):
    with pytest.raises(InputError, match="nope.jsonl: file not found"):
        list(iter_jsonl(tmp_path / "nope.jsonl"))


def test_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path):
    p = tmp_path / "sub" / "x.txt"
    atomic_write_text(p, "one")
    atomic_write_text(p, "두 번째")
    assert p.read_text(encoding="utf-8") == "두 번째" and [f.name for f in p.parent.iterdir()] == ["x.txt"]


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temp(tmp_path):
    p = tmp_path / "x.bin"
    atomic_write_text(p, "old")
    with pytest.raises(RuntimeError):
        with atomic_open(p) as f:
            f.write(b"half of the new")
            raise RuntimeError("disk full")
    assert p.read_text() == "old" and [f.name for f in tmp_path.iterdir()] == ["x.bin"]


def test_atomic_write_gives_a_new_file_the_umask_mode_and_keeps_an_existing_files_mode(tmp_path, monkeypatch):
    import gaji.io as io_mod

    monkeypatch.setattr(io_mod, "_UMASK", 0o027)  # as read at import from the process umask
    atomic_write_text(tmp_path / "new.txt", "x")
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o640  # not mkstemp's 0o600
    (tmp_path / "kept.txt").write_text("a")
    os.chmod(tmp_path / "kept.txt", 0o604)
    atomic_write_text(tmp_path / "kept.txt", "b")
    assert (tmp_path / "kept.txt").stat().st_mode & 0o777 == 0o604
    assert (tmp_path / "kept.txt").read_text() == "b"


# -- append-only logs: a torn last line is repaired before the next append ----------------------------
def test_append_after_a_torn_line_starts_a_new_line_and_drops_the_torn_bytes(tmp_path, caplog):
    from gaji.io import append_jsonl, read_jsonl_tolerant

    p = tmp_path / "results.jsonl"
    append_jsonl(p, {"id": "q1"})
    with open(p, "ab") as f:
        f.write(b'{"id": "q2", "predic')  # a crash in the middle of a write
    with caplog.at_level("WARNING", logger="gaji.io"):
        append_jsonl(p, {"id": "q3", "answer": "세종"})
    assert p.read_bytes() == '{"id": "q1"}\n{"id": "q3", "answer": "세종"}\n'.encode("utf-8")
    assert [r["id"] for r in read_jsonl_tolerant(p)] == ["q1", "q3"]
    assert "results.jsonl:2: dropped a torn last line (20 bytes" in caplog.text


def test_append_after_a_cut_utf8_character_repairs_and_reads_without_a_traceback(tmp_path):
    from gaji.io import append_jsonl, read_jsonl_tolerant

    p = tmp_path / "results.jsonl"
    append_jsonl(p, {"id": "q1", "answer": "훈민정음"})
    with open(p, "ab") as f:
        f.write('{"id": "q2", "answer": "훈'.encode("utf-8")[:-1])  # the last character cut mid-sequence
    problems: list = []
    assert [r["id"] for r in read_jsonl_tolerant(p, problems)] == ["q1"]
    assert [str(x) for x in problems] == [f"{p}:2: not UTF-8 (byte 25 of the line); skipped"]
    append_jsonl(p, {"id": "q2", "answer": "세종"})
    assert [r["answer"] for r in read_jsonl_tolerant(p)] == ["훈민정음", "세종"]
    assert p.read_bytes().count(b"\n") == 2


def test_a_whole_record_missing_only_its_newline_is_kept(tmp_path):
    from gaji.io import append_jsonl, repair_jsonl_tail

    p = tmp_path / "log.jsonl"
    p.write_bytes(b'{"id": "a"}\n{"id": "b"}')  # e.g. written by hand, or cut just before the newline
    assert repair_jsonl_tail(p) == 0
    append_jsonl(p, {"id": "c"})
    assert p.read_text().splitlines() == ['{"id": "a"}', '{"id": "b"}', '{"id": "c"}']


def test_repair_of_a_file_that_is_only_a_torn_line_empties_it(tmp_path):
    from gaji.io import repair_jsonl_tail

    p = tmp_path / "log.jsonl"
    p.write_bytes(b'{"id": "a", "te')
    assert repair_jsonl_tail(p) == 15 and p.read_bytes() == b""
    assert repair_jsonl_tail(tmp_path / "missing.jsonl") == 0


def test_tolerant_reader_reports_every_unreadable_line_with_file_and_line(tmp_path, caplog):
    from gaji.io import read_jsonl_tolerant

    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"id": 1}\n\xff\xfe\nnot json\n[1]\n\n{"id": 2}\n{"id": 3, "x"')
    with caplog.at_level("WARNING", logger="gaji.io"):
        assert [r["id"] for r in read_jsonl_tolerant(p)] == [1, 2]
    assert f"{p}:2: not UTF-8" in caplog.text and f"{p}:3: not valid JSON" in caplog.text
    assert f"{p}:4: not a JSON object" in caplog.text and f"{p}:7: not valid JSON" in caplog.text
    assert "a torn last line" in caplog.text
    assert read_jsonl_tolerant(tmp_path / "none.jsonl") == []


def test_jsonl_lines_are_read_in_nfc(tmp_path):
    import unicodedata

    from gaji.io import read_jsonl_tolerant

    nfd = unicodedata.normalize("NFD", "한국어")
    p = tmp_path / "q.jsonl"
    p.write_text('{"q": "%s"}\n' % nfd, encoding="utf-8")
    assert list(iter_jsonl(p)) == [(1, {"q": "한국어"})]
    assert read_jsonl_tolerant(p) == [{"q": "한국어"}]


def test_iter_jsonl_names_the_line_of_bytes_that_are_not_utf8(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n')
    with pytest.raises(InputError, match=r"a.jsonl: not UTF-8 \(line 2, byte 8\)"):
        list(iter_jsonl(p))


def test_atomic_writes_and_durable_renames_sync_the_folder(tmp_path, monkeypatch):
    import gaji.io as io_mod

    synced: list[str] = []
    real = io_mod.fsync_dir
    monkeypatch.setattr(io_mod, "fsync_dir", lambda d: (synced.append(str(d)), real(d)))
    atomic_write_text(tmp_path / "a.txt", "x")
    assert synced == [str(tmp_path)]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_text("y")
    synced.clear()
    io_mod.rename_durably(tmp_path / "src", tmp_path / "dst")
    assert (tmp_path / "dst" / "f").read_text() == "y" and synced == [str(tmp_path)]
    io_mod.fsync_dir(tmp_path / "no-such-folder")  # nothing to sync: no error
