"""Start and stop a real Milvus standalone server on 127.0.0.1 (the binary shipped by the PyPI package
`milvus`, 2.3.5), for tests, benchmarks and single-machine deployments.

    with MilvusLocalServer("/tmp/milvus-data") as srv:
        url = srv.url                 # milvus://127.0.0.1:PORT
        ...

Every component is told to bind 127.0.0.1 (the package's default is the first unicast address);
ports are picked free. Start is bounded (`start_timeout_s`), stop terminates then kills.
"""
from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from gaji.errors import ConfigError, IndexUnusableError

__all__ = ["MilvusLocalServer", "milvus_available"]

COMPONENTS = ("rootCoord", "proxy", "queryCoord", "queryNode", "indexCoord", "indexNode", "dataCoord", "dataNode")


def milvus_available() -> str | None:
    """None when the server package can be used here, else why not."""
    try:
        import milvus  # noqa: F401
    except ImportError:
        return "the PyPI package `milvus` (the server binary) is not installed: pip install 'gaji[scale]'"
    try:
        import pymilvus  # noqa: F401
    except ImportError:
        return "pymilvus is not installed: pip install 'gaji[scale]'"
    return None


def _free_port(start: int) -> int:
    for port in range(start, start + 2000):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise IndexUnusableError(f"no free port from {start}")


class MilvusLocalServer:
    """A Milvus standalone process with its data in `base_dir`."""

    def __init__(self, base_dir: str | os.PathLike, port: int | None = None, start_timeout_s: float = 180.0):
        why = milvus_available()
        if why:
            raise ConfigError(why)
        from milvus import MilvusServer, MilvusServerConfig

        self.base_dir = Path(base_dir).resolve()
        self.base_dir.mkdir(parents=True, exist_ok=True)
        self.start_timeout_s = float(start_timeout_s)
        cfg = MilvusServerConfig()
        self._server = MilvusServer(cfg, wait_for_started=False)
        self._server.set_base_dir(str(self.base_dir))
        self._server.config.extra_configs.update({f"{c}.ip": "127.0.0.1" for c in COMPONENTS})
        self._server.listen_port = port or _free_port(19530)
        self.started_s: float | None = None

    @property
    def port(self) -> int:
        return int(self._server.listen_port)

    @property
    def url(self) -> str:
        return f"milvus://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        p = self._server.server_proc
        return p.pid if p is not None else None

    def start(self) -> "MilvusLocalServer":
        t0 = time.perf_counter()
        self._server.start()
        try:
            self._server.wait_started(timeout=self.start_timeout_s * 1000)
        except (TimeoutError, RuntimeError) as e:
            log = self.base_dir / "logs" / "milvus-stderr.log"
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            self.stop()
            raise IndexUnusableError(f"Milvus did not start within {self.start_timeout_s:g} s ({e}); log tail: {tail}") from None
        self.started_s = time.perf_counter() - t0
        return self

    def stop(self) -> None:
        from .milvus import forget_client

        forget_client(f"http://127.0.0.1:{self.port}")
        proc = self._server.server_proc
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired
                proc.kill()
                proc.wait(timeout=10)
            self._server.server_proc = None
        self._server.stop()  # closes log files; the process is gone already

    def __enter__(self) -> "MilvusLocalServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
