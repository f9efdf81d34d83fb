"""`gaji bench fuzz-readers` (gaji_lab.bench.fuzz_readers): bombs read in the worker with their outcome, time and
peak RSS recorded; the mutational fuzz counts outcomes per format; the table and JSON are written."""
from __future__ import annotations

import json
import random

from gaji_lab.bench.fuzz_readers import ZIP_KINDS, make_seeds, mutate
from gaji.cli.main import main


def test_bench_fuzz_readers_records_bombs_and_fuzz(tmp_path):
    out = tmp_path / "out"
    code = main(["bench", "fuzz-readers", "--seconds", "3", "--case", "billion laughs (docx)", "--case", "broken XML",
                 "--in-process", "--work", str(tmp_path / "work"), "--out", str(out)])
    res = json.loads((out / "fuzz-readers.json").read_text(encoding="utf-8"))
    assert [(b["outcome"], b["ok"]) for b in res["bombs"]] == [("entities", True), ("broken_xml", True)]
    assert all(0 < b["worker_peak_rss_mb"] < 1024 for b in res["bombs"])
    fuzz = res["fuzz"]
    assert fuzz["files"] > 0 and sum(sum(c.values()) for c in fuzz["by_format"].values()) == fuzz["files"]
    assert code == (1 if fuzz["failures"] else 0)
    assert "| billion laughs (docx) |" in (out / "fuzz-readers.md").read_text(encoding="utf-8")


def test_mutations_change_the_file_and_keep_zips_zips(tmp_path):
    seeds = make_seeds(tmp_path)
    rnd = random.Random(3)
    for kind in ZIP_KINDS:
        data = seeds[kind].read_bytes()
        mutants = [mutate(data, kind, rnd) for _ in range(10)]
        assert all(m != data for m in mutants)
        assert sum(m[:2] == b"PK" for m in mutants) >= 5  # mostly still packages: the XML parsers get reached
