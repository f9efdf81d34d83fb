"""CachedLLM: an on-disk response cache in front of any backend (`--cache`; `gaji eval` turns it on).

A response is stored under `<cache_dir>/<model-hash>/<key[:2]>/<key>.json`, where the key is
`Request.key(model)` (model + messages/prompt + every generation parameter) and the model hash
names the backend's identity (`backend.cache_id` when it has one, else its name). The default
cache_dir is `$GAJI_HOME/llm-cache`. Entries are written atomically, so a crash never leaves half
an entry; an unreadable entry is treated as a miss and rewritten.

A hit returns the stored Result with `cache_hit=True`, the original token counts and
`wall_ms` = the time the lookup took. Failed calls are never stored. Threads asking for the same
request at the same moment compute it once: the others wait and read the stored answer.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

from gaji.config import default_home
from gaji.io import atomic_write_json
from gaji.llm.base import LLMBackend, Request, Result, TextSink

ENTRY_VERSION = 1


def model_identity(backend: LLMBackend) -> str:
    """What makes two backends give the same answers: `cache_id` if the backend defines one, else its name."""
    return str(getattr(backend, "cache_id", None) or backend.name)


class CachedLLM(LLMBackend):
    """Wraps `backend`; `generate` answers from disk when this exact request was answered before."""

    def __init__(self, backend: LLMBackend, cache_dir: str | Path | None = None):
        self.backend = backend
        self.mirror(backend)
        self.model_id = model_identity(backend)
        root = Path(cache_dir) if cache_dir else default_home() / "llm-cache"
        self.dir = root / hashlib.sha256(self.model_id.encode("utf-8")).hexdigest()[:16]
        self._inflight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def path_for(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def lookup(self, request: Request) -> Result | None:
        """The stored Result for `request` (cache_hit=True), or None (absent or unreadable)."""
        t0 = time.perf_counter()
        key = request.key(self.model_id)
        res = self._read(key)
        if res is not None:
            res.cache_hit = True
            res.wall_ms = (time.perf_counter() - t0) * 1000
        return res

    def _read(self, key: str) -> Result | None:
        try:
            entry = json.loads(self.path_for(key).read_text(encoding="utf-8"))
            if entry.get("key") != key or not isinstance(entry.get("result"), dict):
                return None
            res = Result.from_dict(entry["result"])
            if not isinstance(res.text, str):
                return None
            return res
        except (OSError, ValueError, TypeError, AttributeError):
            return None

    def store(self, request: Request, result: Result) -> None:
        key = request.key(self.model_id)
        stored = Result.from_dict(result.to_dict())
        stored.cache_hit = False
        if not (self.dir / "model.json").exists():
            atomic_write_json(self.dir / "model.json", {"model": self.model_id})
        atomic_write_json(
            self.path_for(key),
            {"version": ENTRY_VERSION, "key": key, "model": self.model_id, "result": stored.to_dict()},
            indent=None,
        )

    def generate(self, request: Request) -> Result:
        return self._answer(request, lambda: self.backend.generate(request))

    def generate_stream(self, request: Request, on_text: TextSink) -> Result:
        """A miss streams from the backend (and is stored); a hit hands the stored text over in one piece."""
        streamed: list[bool] = []

        def compute() -> Result:
            streamed.append(True)
            return self.backend.generate_stream(request, on_text)

        res = self._answer(request, compute)
        if not streamed and res.text:
            on_text(res.text)
        return res

    def _answer(self, request: Request, compute: Callable[[], Result]) -> Result:
        t0 = time.perf_counter()
        key = request.key(self.model_id)
        while True:
            res = self._read(key)
            if res is not None:
                with self._lock:
                    self.hits += 1
                res.cache_hit = True
                res.wall_ms = (time.perf_counter() - t0) * 1000
                return res
            with self._lock:
                waiting = self._inflight.get(key)
                if waiting is None:
                    done = self._inflight[key] = threading.Event()
                    self.misses += 1
                    break
            waiting.wait()  # another thread is computing this very request; then read its answer
            # (if it failed, nothing was stored and this thread computes it itself)
        try:
            res = self._read(key)  # it may have been stored between our read and our claim
            if res is not None:
                res.cache_hit = True
                res.wall_ms = (time.perf_counter() - t0) * 1000
                return res
            res = compute()
            self.store(request, res)
            return res
        finally:
            with self._lock:
                del self._inflight[key]
            done.set()

    # -- delegation -------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return self.backend.count_tokens(text)

    def close(self) -> None:
        self.backend.close()

    def describe(self) -> dict[str, Any]:
        d = self.backend.describe()
        d.update(cache_dir=str(self.dir), cache_hits=self.hits, cache_misses=self.misses)
        return d

    def __getattr__(self, name: str) -> Any:
        # backend extras (LocalLLM.score / .tokenize, ...) pass through, uncached
        if name == "backend":
            raise AttributeError(name)
        return getattr(self.backend, name)
