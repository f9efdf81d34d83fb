"""Property-based fuzzing of gaji.io's JSONL logs (hypothesis): whatever bytes a crash or a user left in a
file, the tolerant reader returns the readable records and reports the rest (never raises), and an append
after any torn tail keeps every complete record and adds the new one on a line of its own."""
from __future__ import annotations

import json
import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gaji.io import LineProblem, append_jsonl, read_jsonl_tolerant
from gaji.text.normalize import normalize_text

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(json_scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)
records = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


def _tmp(data: bytes) -> str:
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path


@FUZZ
@given(st.binary(max_size=400))
def test_any_bytes_read_without_raising(data):
    path = _tmp(data)
    try:
        problems: list[LineProblem] = []
        out = read_jsonl_tolerant(path, problems)
        assert all(isinstance(r, dict) for r in out)
        assert all(p.path == path and p.line >= 1 for p in problems)
    finally:
        os.unlink(path)


@FUZZ
@given(st.lists(records, max_size=6), st.binary(max_size=60).filter(lambda b: b"\n" not in b), records)
def test_append_after_any_torn_tail_keeps_every_complete_record(complete, tail, new):
    body = b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8") + b"\n" for r in complete)
    path = _tmp(body + tail)
    try:
        append_jsonl(path, new)
        got = read_jsonl_tolerant(path, [])
        # a tail that happens to be a whole JSON object is a record too (kept, given its newline)
        try:
            tail_obj = json.loads(tail.decode("utf-8")) if tail.strip() else None
        except (UnicodeDecodeError, ValueError):
            tail_obj = None
        expected = complete + ([tail_obj] if isinstance(tail_obj, dict) else []) + [new]
        assert got == json.loads(normalize_text(json.dumps(expected, ensure_ascii=False)))  # lines are read in NFC
        with open(path, "rb") as f:
            assert f.read().endswith(b"\n")
    finally:
        os.unlink(path)
