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
