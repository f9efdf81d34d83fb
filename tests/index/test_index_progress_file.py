"""progress.json (gaji.index.progress_file): written by builds and fills, read by anyone."""
import json
import subprocess
import sys

import pytest

from gaji.index.progress_file import FileBars, ProgressFile, format_eta, read_progress
from gaji.progress import Bars

from fakes_index import build_small, fake_embedder


def test_format_eta():
    assert [format_eta(s) for s in (None, 4.4, 65, 3725)] == ["?", "4 s", "1 min 05 s", "1 h 02 min"]


def test_a_task_reports_stage_done_rate_and_eta(tmp_path):
    pf = ProgressFile(tmp_path, "build")
    pf.stage("bm25", total=400)
    with FileBars(False, pf) as bars:
        task = bars.task("BM25", 400)
        task.advance(100)
    d = read_progress(tmp_path)
    assert d["stage"] == "bm25" and d["done"] == 100 and d["total"] == 400 and d["rate"] > 0
    assert d["eta_s"] == pytest.approx(300 / d["rate"], abs=0.1) and d["running"] is True and d["action"] == "build"
    assert isinstance(FileBars(False, None), Bars)


def test_the_newest_of_the_index_and_its_work_folders_is_read_and_a_dead_writer_is_not_running(tmp_path):
    idx, work = tmp_path / "idx", tmp_path / ".idx.building"
    idx.mkdir()
    work.mkdir()
    ProgressFile(idx, "build").stage("done")
    ProgressFile(work, "build").stage("bm25", total=10)
    assert read_progress(idx)["stage"] == "bm25"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    d = json.loads((work / "progress.json").read_text())
    d["pid"] = int(gone.stdout)
    (work / "progress.json").write_text(json.dumps(d))
    assert read_progress(idx)["running"] is False
    assert read_progress(tmp_path / "none") is None


def test_a_build_leaves_its_last_stage(tmp_path):
    out = tmp_path / "idx"
    build_small(out, embedder=fake_embedder())
    d = read_progress(out)
    assert d["stage"] == "done" and d["action"] == "build" and d["done"] == d["total"] == 5
    lex = build_small(tmp_path / "lex", dense=False)
    assert read_progress(lex.path)["stage"] == "done"  # no vectors: done once BM25 is in place
