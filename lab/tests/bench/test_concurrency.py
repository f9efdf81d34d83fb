"""`gaji bench concurrency`, short (~30 s): writer processes, reader processes and a live server on one
index; every acknowledged document is there and searchable at the end. The 10-minute run is in
benchmarks/durability/NOTES.md."""
from __future__ import annotations

import pytest

from gaji_lab.bench.concurrency import markdown, passed, run_concurrency

pytestmark = pytest.mark.slow


def test_writers_readers_and_a_server_lose_nothing(tmp_path):
    res = run_concurrency(tmp_path / "work", seconds=30, writers=3, readers=2, http_readers=2, seed=1)
    assert passed(res), markdown(res)
    f = res["final"]
    assert f["acknowledged_present"] > 20 and f["lost_count"] == 0 and f["server_chunks"] == f["chunks"]
    ops = {k for c in res["writes"].values() for k in c}
    assert {"add", "upload", "sync"} <= ops
    assert res["reader_checks"] > 10 and res["asked"].get(200, 0) > 10
