"""Unreachable Ray addresses fail in seconds with one line naming the address and what to check (no
30 s client timeout, no minutes-long wait on a stale `auto` address, no traceback)."""
from __future__ import annotations

import json
import time

import pytest

from gaji.distributed.cluster import check_address, resolve_auto
from gaji.errors import ConfigError
from gaji.testing import closed_port


def _fails_fast(address: str, *needles: str) -> str:
    t0 = time.perf_counter()
    with pytest.raises(ConfigError) as e:
        check_address(address)
    assert time.perf_counter() - t0 < 5
    msg = str(e.value)
    assert "\n" not in msg
    for n in needles:
        assert n in msg, (n, msg)
    return msg


def test_ray_client_address_that_is_down():
    port = closed_port()
    _fails_fast(f"ray://127.0.0.1:{port}", f"ray://127.0.0.1:{port}", "connection refused", "ray start --head",
                "--ray")


def test_gcs_address_that_is_down():
    port = closed_port()
    _fails_fast(f"127.0.0.1:{port}", f"127.0.0.1:{port}", "connection refused")


def test_auto_from_ray_address_env(monkeypatch):
    port = closed_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    assert resolve_auto() == (f"127.0.0.1:{port}", "RAY_ADDRESS")
    _fails_fast("auto", f"127.0.0.1:{port}", "RAY_ADDRESS", "--ray local")


def test_auto_from_a_stale_cluster_file(monkeypatch, tmp_path):
    """`ray start` leaves its address in <tmp>/ray/ray_current_cluster; after `ray stop` (or a reboot) Ray
    itself would wait minutes for that GCS."""
    port = closed_port()
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    assert resolve_auto() is None
    check_address("auto")  # nothing recorded: left to Ray, which answers at once
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{port}\n")
    _fails_fast("auto", f"127.0.0.1:{port}", "ray_current_cluster", "ray start --head")


def test_local_needs_no_check():
    check_address("local")
    check_address(None)


def _corpus(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps({"id": "d1", "text": "서울은 대한민국의 수도이다. Seoul is the capital."},
                            ensure_ascii=False) + "\n", encoding="utf-8")
    return p


def test_cli_with_a_ray_address_that_is_down(tmp_path, capsys):
    from gaji.cli.main import main

    port = closed_port()
    corpus = _corpus(tmp_path)
    for args in (["expand", "run", str(corpus), "--out", str(tmp_path / "x.jsonl"), "--llm", "scripted",
                  "--ray", f"ray://127.0.0.1:{port}"],
                 ["index", "build", str(corpus), "--out", str(tmp_path / "idx"), "--ray", f"ray://127.0.0.1:{port}"]):
        t0 = time.perf_counter()
        assert main(args) == 2
        assert time.perf_counter() - t0 < 10
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: cannot reach the Ray client server at ray://127.0.0.1:") and "\n" not in err
        assert "Traceback" not in err
    assert not (tmp_path / "idx").exists() and not (tmp_path / "x.jsonl").exists()
