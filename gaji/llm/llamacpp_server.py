"""llama.cpp's own OpenAI-compatible HTTP server (xllamacpp) as a separate process on 127.0.0.1, for tests,
benchmarks and single-machine deployments of `--llm openai:MODEL --base-url URL`.

    python -m gaji.cli.llamacpp_server --model local:small --parallel 4 --threads 2 [--port 8080]
    # prints "listening http://127.0.0.1:PORT" once the model is loaded, serves until SIGTERM / Ctrl-C

    with LlamaCppServerProcess("local:small", parallel=4, threads=2) as srv:
        llm = make_llm("openai:qwen", base_url=srv.url)

Start-up is bounded (`start_timeout_s`); stop sends SIGTERM, then SIGKILL.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

from gaji.errors import LLMError

__all__ = ["LlamaCppServerProcess", "serve"]


class LlamaCppServerProcess:
    def __init__(self, model: str = "local:small", parallel: int = 4, threads: int = 1, ctx_size: int = 8192,
                 port: int = 0, start_timeout_s: float = 180.0):
        self.model, self.parallel, self.threads = model, int(parallel), int(threads)
        self.ctx_size, self.port, self.start_timeout_s = int(ctx_size), int(port), float(start_timeout_s)
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.started_s: float | None = None

    def start(self) -> "LlamaCppServerProcess":
        cmd = [sys.executable, "-m", "gaji.cli.llamacpp_server", "--model", self.model, "--parallel",
               str(self.parallel), "--threads", str(self.threads), "--ctx-size", str(self.ctx_size),
               "--port", str(self.port)]
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(self.start_timeout_s)
        got = line[0].strip() if line else ""
        if not got.startswith("listening "):
            err = ""
            self.stop()
            if self.proc is not None and self.proc.stderr is not None:
                err = self.proc.stderr.read()[-800:]
            raise LLMError(f"llama.cpp server did not start within {self.start_timeout_s:g} s: {got or err}")
        self.url = got.split(" ", 1)[1]
        self.started_s = time.perf_counter() - t0
        return self

    def stop(self) -> None:
        p = self.proc
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)

    def __enter__(self) -> "LlamaCppServerProcess":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def serve(model: str = "local:small", parallel: int = 4, threads: int = 1, ctx_size: int = 8192,
          port: int = 0) -> None:
    """Serve `model` (local | local:small | a GGUF path) on 127.0.0.1:`port` (0 = a free port) in this process: print
    "listening URL" once the model is loaded, serve until SIGTERM / Ctrl-C, then end the process."""
    import xllamacpp

    from gaji.llm.local import resolve_model

    if model.startswith("local"):
        _, path = resolve_model(model.partition(":")[2])
    else:
        path = model
    p = xllamacpp.CommonParams()
    p.model.path = str(path)
    p.n_ctx = ctx_size
    p.n_parallel = parallel
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = threads
    p.warmup = False
    p.cache_prompt = True
    p.n_threads_http = max(2, parallel)
    p.verbosity = -1
    p.hostnames = ["127.0.0.1"]  # loopback only
    p.port = port
    server = xllamacpp.Server(p)
    url = str(server.listening_address)
    urllib.request.urlopen(url + "/slots", timeout=120).read()  # the task loop runs: stopping cannot hang
    print(f"listening {url}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    del server
    os._exit(0)  # the server threads are gone with the process
