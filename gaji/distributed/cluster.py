"""Connecting to Ray: a local cluster started in-process, the one `ray start --head` made, or a remote one.

    connect("local", num_cpus=2)     # ray.init() here, loopback only, no dashboard
    connect("auto")                  # the cluster started by `ray start --head --node-ip-address 127.0.0.1`
                                     # (or RAY_ADDRESS=HOST:PORT)
    connect("ray://10.0.0.5:10001")  # Ray client to a remote cluster (not tested here)

Ray's usage-stats reporting is switched off (no network beyond the cluster).
"""
from __future__ import annotations

import os
from typing import Any

from gaji.errors import ConfigError

__all__ = ["connect", "shutdown", "ray_available", "worker_env"]

# Ray >= 2.59 starts clusters with token authentication on (token in ~/.ray/auth_token); a driver that joins
# one must be in token mode too, or the head refuses it ("InvalidAuthToken"). Ray reads this when it is
# imported, so it is set here, before any `import ray` of gaji's.
os.environ.setdefault("RAY_AUTH_MODE", "token")


def ray_available() -> str | None:
    """None when Ray can be used here, else why not."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "Ray is not installed: pip install 'gaji[scale]'"
    return None


def worker_env(threads: int = 1) -> dict[str, str]:
    """Environment for worker processes: one compute thread each unless told otherwise."""
    t = str(max(1, int(threads)))
    return {"OMP_NUM_THREADS": t, "GAJI_THREADS": t, "OMP_WAIT_POLICY": "PASSIVE", "RAY_USAGE_STATS_ENABLED": "0"}


def connect(address: str = "local", num_cpus: int | None = None) -> Any:
    """Initialise Ray once per process (a second call reuses the connection); returns the ray module."""
    why = ray_available()
    if why:
        raise ConfigError(why)
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if ray.is_initialized():
        return ray
    kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address in ("local", "", None):
        # address="local": always a new private cluster, even when `ray start` left one running here
        kw.update(num_cpus=num_cpus or os.cpu_count() or 1, _node_ip_address="127.0.0.1")
        ray.init(address="local", **kw)
    else:
        try:
            ray.init(address=address, **{k: v for k, v in kw.items() if k != "include_dashboard"})
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ConfigError(f"cannot connect to Ray at {address!r}: {e}") from None
    return ray


def shutdown() -> None:
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()
