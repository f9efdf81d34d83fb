"""The scale-out benchmarks' measuring code on fakes (the real runs: benchmarks/scale/NOTES.md)."""
from __future__ import annotations

import threading
import time

from gaji_lab.bench.llm_server import load, markdown
from gaji.llm.scripted import ScriptedLLM


class SlowScripted(ScriptedLLM):
    """Answers after 50 ms; records how many calls were in flight at once."""

    def __init__(self):
        super().__init__(default="an answer of five words")
        self.inflight = 0
        self.peak = 0
        self._l = threading.Lock()

    def generate(self, request):
        with self._l:
            self.inflight += 1
            self.peak = max(self.peak, self.inflight)
        time.sleep(0.05)
        try:
            return super().generate(request)
        finally:
            with self._l:
                self.inflight -= 1


def test_load_counts_calls_tokens_and_concurrency():
    llm = SlowScripted()
    seq = load(llm, 6, 1, 16)
    assert seq["ok"] == 6 and seq["errors"] == 0 and seq["completion_tokens"] == 30 and llm.peak == 1
    llm.peak = 0
    con = load(llm, 6, 3, 16)
    assert con["ok"] == 6 and llm.peak == 3 and con["wall_s"] < seq["wall_s"]
    assert con["tokens_per_s"] > seq["tokens_per_s"] and con["latency_p95_s"] >= con["latency_p50_s"] > 0
    assert len({r.seed for r in llm.requests}) == 6  # distinct requests


def test_load_records_failures_and_markdown():
    llm = ScriptedLLM([(r"Hamlet", RuntimeError("boom"))], default="ok")
    r = load(llm, 4, 2, 8)
    assert r["errors"] == 1 and r["ok"] == 3 and "boom" in r["error_examples"][0]
    md = markdown({"calls": 4, "max_tokens": 8, "date": "d", "machine": {"cores": 2},
                   "results": [{"target": "fake", "sequential": r, "concurrent": r}]})
    assert "| fake | 1 at a time |" in md and "| fake | 2 at once |" in md
