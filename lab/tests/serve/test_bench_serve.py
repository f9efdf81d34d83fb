"""`gaji bench serve`'s load test against a live loopback server: every request is counted."""
from __future__ import annotations

import time

from gaji_lab.bench.serve import load_test

EN_Q = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"


def test_load_test_counts_every_request(make_app, live_server):
    with live_server(make_app()) as url:
        res = load_test(url, clients=4, duration=1.0, method="oner", questions=[EN_Q, "세종은 언제 태어났나?"])
    assert res["requests"] > 4 and res["answered"] == res["requests"]
    assert res["lost"] == 0 and res["transport_failures"] == 0 and res["errors"] == 0
    assert res["latency_ms"]["p50"] is not None and res["throughput_rps"] > 0


def test_load_test_overload_is_refused_with_a_reason_not_lost(make_app, live_server, scripted):
    def slow(_req):
        time.sleep(0.05)
        return "Answer: Battle of Guam\nSources: [1]"

    app = make_app(scripted(_extra=[(r"Question:", slow)]), slots=1, queue_max=0)
    with live_server(app) as url:
        res = load_test(url, clients=4, duration=1.0, method="oner", questions=[EN_Q], stream=True)
    assert res["answered"] > 0 and res["refused"] > 0
    assert res["answered"] + res["refused"] == res["requests"] and res["lost"] == 0
    assert all(r.startswith("503 server busy") for r in res["reasons"])
