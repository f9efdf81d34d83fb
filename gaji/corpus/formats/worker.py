"""Reading untrusted document files in a worker process, so a runaway parse is stopped without harm to the
process that asked (the server, `gaji index build`).

    with IsolatedReader(limits) as reader:
        out = reader.read(path, "a/b.pdf")        # FileOutcome, or raises Unreadable / LimitExceeded

One worker serves the files of one read, one at a time: a fresh interpreter (`python -m
gaji.corpus.formats.worker`, so a threaded server is never forked and no caller's main module is re-run),
talking pickled frames over its stdin/stdout. It runs under RLIMIT_AS (`max_memory_bytes`) and an RLIMIT_CPU
budget per file; the parent waits `max_seconds` for each file, then kills it and starts a fresh one for the
next file. A worker that dies is reported as the
limit that killed it. `read_in_process` is the same read without the process (for trusted files).
"""
from __future__ import annotations

import math
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gaji.types import Document

from .base import Unreadable
from .limits import LimitExceeded, ReadLimits, human_size

__all__ = ["FileOutcome", "IsolatedReader", "read_in_process"]


@dataclass
class FileOutcome:
    """One file read: its format (None: no reader takes it; "text": read by the caller), the notice of a format
    other than its extension said, its Documents and the reader's notices; the worker's peak RSS (KiB)."""

    fmt: str | None
    notice: str | None = None
    docs: list[Document] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    peak_rss_kb: int = 0


def read_in_process(path: Path, rel: str, limits: ReadLimits) -> FileOutcome:
    """Detect the file's format and read it (text files are left to the caller), under `limits`."""
    from . import detect, read_file
    from .guards import check_size

    check_size(path, limits)  # before the sniffer opens a container
    fmt, notice = detect(path)
    if fmt is None or fmt.name == "text":
        return FileOutcome(fmt.name if fmt else None, notice)
    docs, parsed = read_file(path, rel, fmt, rel=rel, limits=limits)
    return FileOutcome(fmt.name, notice, docs, list(parsed.notices))


def _peak_rss_kb() -> int:
    """This process's own peak RSS. /proc's VmHWM belongs to the memory the process has now; getrusage's
    ru_maxrss survives exec and so starts at the RSS of the parent that forked the worker (a test session that
    loaded a model reads as a 1.3 GB worker), so it is only the fallback where /proc is missing."""
    import resource

    return _vm_hwm_kb(os.getpid()) or int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _vm_hwm_kb(pid: int) -> int:
    """A running process's peak RSS (Linux /proc), 0 where unknown."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _send(f, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(struct.pack("<Q", len(data)) + data)
    f.flush()


def _recv(f):
    """One framed object from `f`; EOFError when the other side is gone."""
    head = f.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = f.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


def _serve(memory_bytes: int) -> None:
    """The worker (``python -m gaji.corpus.formats.worker MEMORY_BYTES``): take (path, rel, limits) tasks from
    stdin until it closes; answer ("ok", FileOutcome) or ("refused", Unreadable) on stdout."""
    import resource

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the worker ends
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    inp, out_f = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a library's print must not corrupt the replies
    _send(out_f, ("ready", os.getpid()))  # the time limit starts with a file, not with this interpreter
    while True:
        try:
            task = _recv(inp)
        except (EOFError, OSError):
            return
        if task is None:
            return
        path, rel, limits = task
        used = resource.getrusage(resource.RUSAGE_SELF)
        budget = math.ceil(used.ru_utime + used.ru_stime + limits.max_seconds) + 2
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard == resource.RLIM_INFINITY or budget <= hard:
            resource.setrlimit(resource.RLIMIT_CPU, (budget, hard))
        try:
            out = read_in_process(Path(path), rel, limits)
            msg: tuple = ("ok", out)
        except Unreadable as e:
            msg = ("refused", e)
        except (MemoryError, RecursionError):
            msg = ("refused", LimitExceeded("memory", limit=human_size(memory_bytes)))
        except Exception as e:  # noqa: BLE001 - a reader's bug is still this file's refusal, not the worker's end
            msg = ("refused", Unreadable(f"cannot be read: {type(e).__name__}: {' '.join(str(e).split())[:200]}"))
        try:
            _send(out_f, msg + (_peak_rss_kb(),))
        except (MemoryError, OSError):
            return


_START_S = 120.0  # for the worker's interpreter to start, on a loaded machine


class IsolatedReader:
    """Reads files one at a time in a limited worker process (see the module docstring)."""

    def __init__(self, limits: ReadLimits | None = None):
        self.limits = limits or ReadLimits()
        self._proc: subprocess.Popen | None = None
        self._err = None
        self.last_peak_rss_kb = 0  # the worker's peak RSS (KiB) after the last file, read or refused

    def __enter__(self) -> "IsolatedReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        import gaji

        env = dict(os.environ)
        root = str(Path(gaji.__file__).resolve().parents[1])  # this gaji, also when it is not the installed one
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "gaji.corpus.formats.worker", str(self.limits.max_memory_bytes)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=env, close_fds=True,
            start_new_session=True)  # a Ctrl-C in the terminal goes to the parent, which stops it
        assert self._proc.stdout is not None
        ready, _, _ = select.select([self._proc.stdout], [], [], _START_S)
        try:
            if not ready or _recv(self._proc.stdout)[0] != "ready":
                raise EOFError
        except (EOFError, OSError, pickle.UnpicklingError):
            raise self._death() from None

    def start(self) -> None:
        """Have a worker ready (started now unless one is running); `read` calls it."""
        if self._proc is None or self._proc.poll() is not None:
            self._stop()
            self._start()

    def read(self, path: str | Path, rel: str) -> FileOutcome:
        """The file read in the worker; Unreadable / LimitExceeded as the in-process read would raise, plus
        LimitExceeded("time") after `max_seconds` and ("memory"/"crashed") when the worker died."""
        self.start()
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            _send(proc.stdin, (str(Path(path).resolve()), rel, self.limits))
            ready, _, _ = select.select([proc.stdout], [], [], self.limits.max_seconds)
        except (OSError, ValueError):
            ready = [proc.stdout]  # the worker is gone: the read says so
        if not ready:
            self.last_peak_rss_kb = _vm_hwm_kb(proc.pid)
            self._stop(kill=True)
            raise LimitExceeded("time", limit=f"{self.limits.max_seconds:g}")
        try:
            kind, payload, self.last_peak_rss_kb = _recv(proc.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            raise self._death() from None
        if kind == "ok":
            payload.peak_rss_kb = self.last_peak_rss_kb
            return payload
        raise payload

    def _death(self) -> Unreadable:
        proc = self._proc
        assert proc is not None
        try:
            code = proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        detail = self._stderr_tail()
        self._stop(kill=True)
        if code is not None and code < 0:
            sig = -code
            if sig == signal.SIGXCPU:
                return LimitExceeded("time", limit=f"{self.limits.max_seconds:g}")
            name = signal.Signals(sig).name
            if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
                # out of address space under RLIMIT_AS shows as a failed allocation a library did not survive
                name += f"; it may have needed more than {human_size(self.limits.max_memory_bytes)} of memory"
            return LimitExceeded("crashed", detail=name)
        if "MemoryError" in detail:
            return LimitExceeded("memory", limit=human_size(self.limits.max_memory_bytes))
        return LimitExceeded("crashed", detail=f"exit code {code}" + (f": {detail}" if detail else ""))

    def _stderr_tail(self) -> str:
        if self._err is None:
            return ""
        try:
            self._err.seek(0, 2)
            self._err.seek(max(0, self._err.tell() - 400))
            lines = self._err.read().decode("utf-8", "replace").strip().splitlines()
            return lines[-1][:200] if lines else ""
        except OSError:
            return ""

    def _stop(self, kill: bool = False) -> None:
        proc, err = self._proc, self._err
        self._proc = self._err = None
        if proc is not None:
            if kill and proc.poll() is None:
                proc.kill()
            for f in (proc.stdin, proc.stdout):
                try:
                    if f is not None:
                        f.close()  # stdin's end tells a waiting worker to stop
                except OSError:
                    pass
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if err is not None:
            err.close()

    def close(self) -> None:
        self._stop()


if __name__ == "__main__":  # run as the module itself, so what it pickles names gaji.corpus.formats.worker
    from gaji.corpus.formats import worker as _worker

    _worker._serve(int(sys.argv[1]))
