"""`gaji bench crash`, short: writers killed at random points (every kind of write, every kind of index),
the index checked after every kill. The full run (200 kills) is recorded in
benchmarks/durability/NOTES.md."""
from __future__ import annotations

import pytest

from gaji_lab.bench.crash import check, fingerprint, markdown, run_crash
from gaji.cli.main import main

pytestmark = pytest.mark.slow


def test_kills_at_random_points_leave_the_state_before_or_after(tmp_path):
    res = run_crash(tmp_path / "work", kills=16, seed=3, vector_share=0.25, upload_share=0.15, fresh_share=0.15)
    assert res["kills"] == 16 and res["survived"] == 16 and res["failed_checks"] == 0, markdown(res)
    assert set(res["states_after_kill"]) <= {"before", "after", "after+fill"}
    assert res["kills_by_op"].get("upload") and res["kills_by_op"].get("fresh")
    assert "16 of 16 kills survived" in markdown(res)


def test_the_checks_can_fail(tmp_path):
    """A mixed state is caught: chunks of neither state, or parts that disagree."""
    from gaji.index.build import build_index
    from gaji.index.store import open_index
    from gaji.types import Document

    a = build_index([Document(id="a", text="penguin ocean")], tmp_path / "a", dense=False, progress=False,
                    korean_analyzer="bigram")
    before = fingerprint(a.path)
    b = build_index([Document(id="b", text="penguin river")], tmp_path / "b", dense=False, progress=False,
                    korean_analyzer="bigram")
    after = fingerprint(b.path)
    assert check(a.path, before, after) == ("before", [])
    open_index(a.path).add([Document(id="c", text="music 바다")])
    state, problems = check(a.path, before, after)
    assert state == "" and "neither" in problems[0]
    (open_index(a.path).dir / "chunks.ids.json").write_text("[null, null]")  # parts that disagree
    assert any("manifest counts" in p or "id file" in p for p in check(a.path, before, after)[1])


def test_the_command(tmp_path, capsys):
    assert main(["bench", "crash", "--kills", "2", "--vector-share", "0", "--upload-share", "0",
                 "--fresh-share", "0", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out")]) == 0
    assert "2 of 2 kills survived" in (tmp_path / "out" / "crash.md").read_text()
