"""gaji.io: logs kept xz-compressed (recorded benchmark traces) are read by the same readers, and decompressed in
place before an append."""
from __future__ import annotations

import json
import lzma

import pytest

from gaji.errors import InputError
from gaji.io import (
    LineProblem,
    append_jsonl,
    iter_jsonl,
    log_exists,
    read_jsonl_tolerant,
    remove_log,
    stored_path,
)

RECORDS = [{"id": "q1", "answer": "1446년"}, {"id": "q2", "answer": "Guam"}]


def _text(records) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def _xz(tmp_path, records=RECORDS):
    xz = tmp_path / "traces.jsonl.xz"
    xz.write_bytes(lzma.compress(_text(records)))
    return tmp_path / "traces.jsonl", xz


def test_a_plain_name_reads_its_xz_when_only_that_exists(tmp_path):
    plain, xz = _xz(tmp_path)
    assert stored_path(plain) == xz and log_exists(plain)
    assert read_jsonl_tolerant(plain) == RECORDS
    assert [r for _, r in iter_jsonl(plain)] == RECORDS
    assert read_jsonl_tolerant(xz) == RECORDS  # the .xz name itself works too


def test_the_plain_file_wins_when_both_exist(tmp_path):
    plain, _ = _xz(tmp_path)
    plain.write_bytes(_text(RECORDS[:1]))
    assert stored_path(plain) == plain and read_jsonl_tolerant(plain) == RECORDS[:1]


def test_missing_in_both_forms(tmp_path):
    plain = tmp_path / "traces.jsonl"
    assert not log_exists(plain) and read_jsonl_tolerant(plain) == []
    with pytest.raises(InputError, match="file not found"):
        list(iter_jsonl(plain))


def test_append_continues_the_compressed_log(tmp_path):
    plain, xz = _xz(tmp_path)
    append_jsonl(plain, {"id": "q3", "answer": "셋"})
    assert not xz.exists() and plain.exists()
    assert read_jsonl_tolerant(plain) == [*RECORDS, {"id": "q3", "answer": "셋"}]


def test_a_cut_off_xz_keeps_the_lines_before_the_damage_and_names_the_file(tmp_path):
    records = [{"id": f"q{i}", "text": "가지 " * 200 + str(i)} for i in range(200)]
    plain, xz = _xz(tmp_path, records)
    data = xz.read_bytes()
    xz.write_bytes(data[: len(data) // 2])
    problems: list[LineProblem] = []
    got = read_jsonl_tolerant(plain, problems)
    assert got == records[: len(got)]
    assert len(problems) == 1 and problems[0].path == str(xz) and "compressed data" in problems[0].reason
    with pytest.raises(InputError, match=r"traces\.jsonl\.xz: compressed data damaged or cut off after line \d+"):
        list(iter_jsonl(plain))


def test_not_xz_at_all_is_a_clear_error(tmp_path):
    (tmp_path / "traces.jsonl.xz").write_bytes(b'{"id": "q1"}\n')
    with pytest.raises(InputError, match="compressed data damaged"):
        list(iter_jsonl(tmp_path / "traces.jsonl"))


def test_remove_log_removes_both_forms(tmp_path):
    plain, xz = _xz(tmp_path)
    plain.write_bytes(b"")
    remove_log(plain)
    assert not plain.exists() and not xz.exists()
    remove_log(plain)  # nothing left: no error
