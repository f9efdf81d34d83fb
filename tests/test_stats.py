"""gaji.stats: the one percentile every latency report uses."""
from __future__ import annotations

from gaji.stats import percentile


def test_percentile_is_nearest_rank():
    assert percentile([], 50) is None
    assert percentile([5], 95) == 5
    assert percentile([5, 1, 3, 2, 4], 50) == 3
    assert percentile([1, 2, 3, 4], 50) == 2  # a measured value, not the 2.5 between two of them
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([3.0, 1.0, 2.0], 0) == 1.0 and percentile([3.0, 1.0, 2.0], 100) == 3.0


def test_percentile_is_the_one_the_server_reports():
    from gaji.serve.metrics import Metrics

    m = Metrics()
    for ms in (10.0, 20.0, 30.0, 40.0):
        m.record_ask("oner", "ok", ms)
    lat = m.snapshot()["latency_ms"]
    assert lat["p50"] == percentile([10.0, 20.0, 30.0, 40.0], 50) == 20.0 and lat["p95"] == 40.0
