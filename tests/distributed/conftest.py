"""A local Ray cluster (in-process head, 127.0.0.1, 2 CPUs) shared by the distributed tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_local():
    from gaji.distributed.cluster import connect, ray_available, shutdown

    why = ray_available()
    if why:
        pytest.skip(why)
    try:
        ray = connect("local", num_cpus=2)
    except Exception as e:  # noqa: BLE001 - a cluster that cannot start here is a skip, said why
        pytest.skip(f"a local Ray cluster could not start on this machine: {type(e).__name__}: {e}")
    yield ray
    shutdown()
