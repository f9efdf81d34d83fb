"""Connecting to Ray: a local cluster started in-process, the one `ray start --head` made, or a remote one.

    connect("local", num_cpus=2)     # ray.init() here, loopback only, no dashboard
    connect("auto")                  # the cluster started by `ray start --head --node-ip-address 127.0.0.1`
                                     # (or RAY_ADDRESS=HOST:PORT)
    connect("ray://10.0.0.5:10001")  # Ray client to a remote cluster (not tested here)

Ray's usage-stats reporting is switched off (no network beyond the cluster). Before Ray is handed a
remote or `auto` address, one bounded TCP connect checks that something listens there
(`check_address`): Ray itself waits 30 s (client) or minutes (a stale `auto` address) for a server
that is down; gaji says so in a few seconds, naming the address.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError

__all__ = ["connect", "shutdown", "ray_available", "worker_env", "check_address", "resolve_auto"]

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


RAY_CLIENT_PORT = 10001


def _host_port(addr: str, default_port: int) -> tuple[str, int]:
    host, _, port = addr.rpartition(":") if ":" in addr else (addr, "", "")
    if not host:
        host, port = addr, ""
    try:
        return host.strip("[]"), int(port) if port else default_port
    except ValueError:
        raise ConfigError(f"bad Ray address {addr!r}: use local, auto, HOST:PORT or ray://HOST:PORT") from None


def resolve_auto() -> tuple[str, str] | None:
    """Where `auto` points, as Ray finds it: (address, where that came from), or None when nothing does."""
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env not in ("auto", "local"):
        return env, "RAY_ADDRESS"
    root = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"  # Ray's own order on Linux
    tmp = Path(root) / "ray" / "ray_current_cluster"
    try:
        addr = tmp.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return (addr, str(tmp)) if addr else None


def check_address(address: str | None) -> None:
    """ConfigError in a few seconds (naming the address and what to check) when no Ray is listening there."""
    from gaji.netcheck import unreachable

    if address in ("local", "", None):
        return
    assert address is not None
    if address == "auto":
        found = resolve_auto()
        if found is None:
            return  # no address recorded: Ray looks for a running cluster itself and says at once if none
        addr, source = found
        if addr.startswith("ray://"):
            return check_address(addr)
        host, port = _host_port(addr, 6379)
        why = unreachable(host, port)
        if why:
            raise ConfigError(f"--ray auto: no Ray cluster at {addr} (found in {source}): {why}; the cluster that "
                              "`ray start` made has stopped: start it again (`ray start --head --node-ip-address "
                              "127.0.0.1`) or use --ray local")
        return
    if address.startswith("ray://"):
        host, port = _host_port(address[len("ray://"):].rstrip("/"), RAY_CLIENT_PORT)
        why = unreachable(host, port)
        if why:
            raise ConfigError(f"cannot reach the Ray client server at {address}: {why}; is the head running "
                              f"(`ray start --head` serves clients on port {RAY_CLIENT_PORT}) and the port open? "
                              "(check --ray)")
        return
    host, port = _host_port(address, 6379)
    why = unreachable(host, port)
    if why:
        raise ConfigError(f"cannot reach a Ray cluster at {address}: {why}; is `ray start --head` running there? "
                          "(check --ray)")


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
        check_address(address)
        try:
            ray.init(address=address, **{k: v for k, v in kw.items() if k != "include_dashboard"})
        except (ConnectionError, RuntimeError, ValueError) as e:
            hint = (" (start one with `ray start --head --node-ip-address 127.0.0.1`, or use --ray local)"
                    if address == "auto" else "")
            raise ConfigError(f"cannot connect to Ray at {address!r}: {e}{hint}") from None
    return ray


def shutdown() -> None:
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()
