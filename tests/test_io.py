"""gaji.io: the strict JSONL reader every loader shares, and atomic writes."""
from __future__ import annotations

import pytest

from gaji.errors import InputError
from gaji.io import atomic_write_text, iter_jsonl


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
