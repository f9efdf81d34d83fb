"""Fixtures shared by every test package."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def small_model():
    """One embedded backend on the real 0.5B model for the whole test session (2 slots x 4096 tokens).

    Model tests (marked `model`) share it, so the GGUF is loaded once per session; a test that needs
    the 1.5B model or other settings makes its own. Skips when the model wheels are not installed."""
    from gaji.errors import GajiError
    from gaji.llm.factory import make_llm

    try:
        llm = make_llm("local:small", parallel=2, ctx_size=8192)
    except GajiError as e:  # model wheels not installed / not assembled
        pytest.skip(f"0.5B model unavailable: {e}")
    yield llm
    llm.close()


# -- a real PostgreSQL server on loopback (history tests) -------------------------------------------------------
def _pg_bindir():
    import glob
    import shutil
    import subprocess

    cands = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0)
    for d in reversed(cands):
        if os.path.exists(os.path.join(d, "initdb")) and os.path.exists(os.path.join(d, "pg_ctl")):
            return d
    if shutil.which("pg_config"):
        d = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
        if d and os.path.exists(os.path.join(d, "initdb")):
            return d
    return None


class PgServer:
    """A throwaway PostgreSQL server: initdb into a temp dir (trust auth), listening on 127.0.0.1 at a free
    port with its unix socket in the temp dir; `stop()` and `start()` it at will (the outage tests), `close()`
    removes it. `PgServer.make()` skips the test, saying why, when it cannot be started."""

    def __init__(self, bindir: str, tmp: str, prefix: list[str], port: int):
        self.bindir, self.tmp, self.prefix, self.port = bindir, tmp, prefix, port
        self.host = "127.0.0.1"
        self.data = os.path.join(tmp, "data")

    def run(self, *cmd: str, timeout: float = 120):
        import subprocess

        return subprocess.run([*self.prefix, *cmd], capture_output=True, text=True, timeout=timeout, cwd=self.tmp)

    def start(self):
        opts = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.tmp} -c fsync=off -c full_page_writes=off"
        return self.run(f"{self.bindir}/pg_ctl", "-D", self.data, "-o", opts, "-l", os.path.join(self.tmp, "log"),
                        "-w", "-t", "90", "start")

    def stop(self, mode: str = "fast"):
        return self.run(f"{self.bindir}/pg_ctl", "-D", self.data, "-m", mode, "-w", "stop", timeout=60)

    def log_tail(self) -> str:
        path = os.path.join(self.tmp, "log")
        return open(path, encoding="utf-8", errors="replace").read()[-400:] if os.path.exists(path) else ""

    def close(self) -> None:
        import shutil

        self.stop("immediate")
        shutil.rmtree(self.tmp, ignore_errors=True)

    @classmethod
    def make(cls) -> "PgServer":
        import shutil
        import socket
        import tempfile

        bindir = _pg_bindir()
        if bindir is None:
            pytest.skip("PostgreSQL server binaries not found (Debian's postgresql package: bash .ci/install-postgres.sh)")
        try:
            import pg8000  # noqa: F401
        except ImportError:
            pytest.skip("pg8000 is not installed (pip install -e '.[serve]')")
        tmp = tempfile.mkdtemp(prefix="gaji-pg-")
        prefix: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root: run the server as nobody
            runuser = shutil.which("runuser")
            if runuser is None:
                shutil.rmtree(tmp, ignore_errors=True)
                pytest.skip("running as root and runuser is missing: cannot start PostgreSQL as another user")
            shutil.chown(tmp, user="nobody")
            prefix = [runuser, "-u", "nobody", "--"]
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = cls(bindir, tmp, prefix, port)
        init = server.run(f"{bindir}/initdb", "-D", server.data, "-A", "trust", "-U", "gaji", "-E", "UTF8",
                          "--no-locale", "--no-sync")
        if init.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            pytest.skip(f"initdb failed: {(init.stderr or init.stdout).strip()[-300:]}")
        start = server.start()
        if start.returncode != 0:
            log = server.log_tail()
            shutil.rmtree(tmp, ignore_errors=True)
            pytest.skip(f"PostgreSQL did not start: {(start.stderr or start.stdout).strip()[-200:]} {log}")
        return server

    def new_database(self) -> str:
        """A fresh, empty database on this server: its postgresql:// URL (over TCP)."""
        import uuid

        import pg8000.native

        name = "gaji_" + uuid.uuid4().hex[:12]
        con = pg8000.native.Connection(user="gaji", host=self.host, port=self.port, database="postgres")
        try:
            con.run(f"CREATE DATABASE {name}")
        finally:
            con.close()
        return f"postgresql://gaji@{self.host}:{self.port}/{name}"


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL server for the whole session: yields (host, port, socket_dir). Skips, saying why,
    when it cannot be started (no server binaries: `bash .ci/install-postgres.sh`)."""
    server = PgServer.make()
    try:
        yield server.host, server.port, server.tmp
    finally:
        server.close()


@pytest.fixture
def postgres_own():
    """A PostgreSQL server of this test's own, which it may stop and start (a PgServer)."""
    server = PgServer.make()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh, empty database on the session's PostgreSQL server: its postgresql:// URL (over TCP)."""
    import uuid

    import pg8000.native

    host, port, _ = postgres_server
    name = "gaji_" + uuid.uuid4().hex[:12]
    con = pg8000.native.Connection(user="gaji", host=host, port=port, database="postgres")
    try:
        con.run(f"CREATE DATABASE {name}")
    finally:
        con.close()
    return f"postgresql://gaji@{host}:{port}/{name}"


@pytest.fixture
def korean_font() -> str:
    """A Korean TTF for writing test PDFs; the test skips (saying why) without one."""
    pytest.importorskip("reportlab", reason="reportlab (the test extra) writes the test PDFs")
    from gaji.corpus.docgen import korean_font as find

    font = find()
    if font is None:
        pytest.skip("no Korean TrueType font: install Debian's fonts-nanum (.ci/install-browser.sh does)")
    return font
