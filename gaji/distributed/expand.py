"""Chunk expansion (gaji/expand/generator.py) sharded over Ray actors, each with its own LLM.

    exp = RayExpander(functools.partial(make_llm, "local:small", threads=1, parallel=1), workers=2)
    res = exp.run(chunks, ExpansionStore("runs/x.expansions.jsonl"))      # same call as Expander.run
    gaji expand run koblex --out runs/kb.expansions.jsonl --llm local:small --ray local --workers 2
    gaji index build notes/ --out runs/notes --expand --llm local:small --ray local --expand-workers 2

- Each actor builds its backend by calling `build_llm` (a picklable callable, e.g. a partial of
  `make_llm` with the CLI's --llm spec) and runs the ordinary `Expander` over the shards it is given:
  the same prompts, schema, retries and per-chunk accounting as one process, so with the same
  deterministic backend the expansions are the same (with `local`, only at parallel=1: batching
  changes greedy outputs).
- The driver keeps the store: it reads what is done (and a `seed`, as `Expander.run` does), splits the
  rest into small contiguous shards (`shard_size`, default the worker's parallel slots, or fewer so that
  every worker gets one), gives each idle actor the next shard, and appends every expansion to the store (append-only JSONL, fsync'd) as its
  shard comes back. A crash loses at most the shards in flight (one per worker); a rerun skips every
  chunk already in the file.
- Accounting: tokens, LLM seconds and failures are summed over the workers into one `ExpandResult`;
  `stats()` also lists each worker's share and the start-up time (cluster + model loads).
- The actors live for one `run` (their CPUs are freed for the embedding actors of an index build).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gaji.errors import ConfigError
from gaji.expand.generator import (Expander, ExpandProgress, ExpandResult, Expansion, ExpansionStore,
                                   pending_chunks)
from gaji.llm.base import LLMBackend
from gaji.types import Chunk

from .cluster import connect, worker_env

__all__ = ["RayExpander", "RayExpandResult", "shards_of"]


def shards_of(items: Sequence[Any], size: int) -> list[list[Any]]:
    """Contiguous pieces of at most `size` items, in order."""
    size = max(1, int(size))
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


class _ExpandWorker:
    """Ray actor body: one backend (built here, in the worker process) and one Expander over it."""

    def __init__(self, build_llm: Callable[[], LLMBackend], expander_kw: dict[str, Any]):
        self.expander = Expander(build_llm(), **expander_kw)

    def info(self) -> dict[str, Any]:
        import socket

        return {"model": self.expander.model, "slots": max(1, int(self.expander.llm.parallel_slots or 1)),
                "pid": os.getpid(), "host": socket.gethostname()}

    def expand(self, chunks: list[Chunk]) -> ExpandResult:
        return self.expander.run(chunks)  # no store: the driver writes


@dataclass
class RayExpandResult(ExpandResult):
    workers: list[dict[str, Any]] = field(default_factory=list)  # per worker: pid, shards, chunks, tokens, busy s
    startup_s: float = 0.0  # cluster connection + actors' model loads
    address: str = ""

    def stats(self) -> dict[str, Any]:
        st = super().stats()
        st["ray"] = {"address": self.address, "workers": len(self.workers), "startup_s": round(self.startup_s, 3),
                     "per_worker": self.workers}
        return st


class RayExpander:
    """`Expander.run` with the chunks spread over `workers` Ray actors (see the module docstring)."""

    def __init__(self, build_llm: Callable[[], LLMBackend], workers: int = 2, address: str = "local",
                 threads_per_worker: int = 1, shard_size: int | None = None, max_tokens: int = 320,
                 lang: str = "auto", include_doc_title: bool = True):
        self.build_llm = build_llm
        self.workers = max(1, int(workers))
        self.address = address
        self.threads = max(1, int(threads_per_worker))
        self.shard_size = shard_size
        self.expander_kw = {"max_tokens": int(max_tokens), "lang": lang, "include_doc_title": include_doc_title}
        self.model = ""  # known once the actors are up (their backend's name)

    # -- actors ---------------------------------------------------------------------------------
    def _start(self) -> tuple[Any, list[Any], list[dict[str, Any]]]:
        ray = connect(self.address, num_cpus=None)
        have = float(ray.cluster_resources().get("CPU", 0))
        need = self.workers * self.threads
        if have < need:
            raise ConfigError(f"the Ray cluster ({self.address}) has {have:g} CPU(s); {self.workers} expansion "
                              f"worker(s) x {self.threads} thread(s) need {need}: lower --workers")
        cls = ray.remote(_ExpandWorker).options(num_cpus=self.threads,
                                                 runtime_env={"env_vars": worker_env(self.threads)})
        actors = [cls.remote(self.build_llm, self.expander_kw) for _ in range(self.workers)]
        try:
            infos = ray.get([a.info.remote() for a in actors])
        except Exception as e:  # noqa: BLE001 - an actor whose model did not load: say why, stop the others
            self._kill(ray, actors)
            raise ConfigError(f"an expansion worker could not start on Ray ({self.address}): "
                              f"{_cause(e)}") from None
        names = {i["model"] for i in infos}
        if len(names) != 1:
            self._kill(ray, actors)
            raise ConfigError(f"expansion workers built different models {sorted(names)}: give one --llm")
        self.model = infos[0]["model"]
        return ray, actors, infos

    @staticmethod
    def _kill(ray: Any, actors: list[Any]) -> None:
        for a in actors:
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass

    # -- the run --------------------------------------------------------------------------------
    def run(
        self,
        chunks: Sequence[Chunk],
        store: ExpansionStore | None = None,
        progress: bool = False,
        seed: dict[str, Expansion] | None = None,
        on_done: Callable[[Expansion], None] | None = None,
        limit_s: float | None = None,
    ) -> RayExpandResult:
        t_start = time.perf_counter()
        ray, actors, infos = self._start()
        try:
            return self._run(ray, actors, infos, chunks, store, progress, seed, on_done, limit_s, t_start)
        finally:
            self._kill(ray, actors)

    def _run(self, ray: Any, actors: list[Any], infos: list[dict[str, Any]], chunks: Sequence[Chunk],
             store: ExpansionStore | None, progress: bool, seed: dict[str, Expansion] | None,
             on_done: Callable[[Expansion], None] | None, limit_s: float | None, t_start: float) -> RayExpandResult:
        slots = infos[0]["slots"]
        res = RayExpandResult(model=self.model, slots=slots * len(actors), address=self.address,
                              startup_s=time.perf_counter() - t_start)
        res.workers = [{"pid": i["pid"], "host": i["host"], "shards": 0, "chunks": 0, "failed": 0,
                        "prompt_tokens": 0, "completion_tokens": 0, "busy_s": 0.0} for i in infos]
        todo = pending_chunks(chunks, self.model, store, seed, res)  # exactly Expander.run's rule
        # default shard: the worker's parallel slots (one batched decode), fewer when that would leave a worker idle
        size = self.shard_size or max(1, min(slots, -(-len(todo) // len(actors))))
        queue = shards_of(todo, size)
        queue.reverse()  # pop() from the end = first shard first
        pending: dict[Any, tuple[int, list[Chunk], float]] = {}  # ObjectRef -> (worker, shard, sent at)
        idle = list(range(len(actors)))
        alive = set(idle)
        with ExpandProgress(progress and bool(todo), len(chunks), res.reused) as bar:
            while queue or pending:
                while idle and queue and not (limit_s is not None and time.perf_counter() - t_start > limit_s):
                    w = idle.pop(0)
                    shard = queue.pop()
                    pending[actors[w].expand.remote(shard)] = (w, shard, time.perf_counter())
                if not pending:
                    break  # time limit reached, or no worker left
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    w, shard, sent = pending.pop(ref)
                    share = res.workers[w]
                    share["busy_s"] = round(share["busy_s"] + time.perf_counter() - sent, 3)
                    try:
                        part: ExpandResult = ray.get(ref)
                    except Exception as e:  # noqa: BLE001 - the worker died: its shard is retried next run
                        alive.discard(w)
                        why = f"Ray worker {share['pid']} failed: {_cause(e)}"[:300]
                        for c in shard:
                            res.failed.append((c.id, why))
                            bar.advance(failed=True)
                        share["failed"] += len(shard)
                        continue
                    self._merge(res, share, shard, part, store, bar, on_done)
                    idle.append(w)
                if not alive:
                    for shard in reversed(queue):
                        res.failed.extend((c.id, "no Ray expansion worker left") for c in shard)
                    queue.clear()
        res.wall_s = time.perf_counter() - t_start
        return res

    @staticmethod
    def _merge(res: RayExpandResult, share: dict[str, Any], shard: list[Chunk], part: ExpandResult,
               store: ExpansionStore | None, bar: ExpandProgress, on_done: Callable[[Expansion], None] | None) -> None:
        """A finished shard: its expansions go to the store in chunk order; its accounting into the sums."""
        share["shards"] += 1
        for c in shard:
            e = part.expansions.get(c.id)
            if e is None:
                continue
            if store is not None:
                store.append(e)
            res.expansions[c.id] = e
            bar.advance(tokens=e.prompt_tokens + e.completion_tokens)
            if on_done is not None:
                on_done(e)
        for cid, why in part.failed:
            res.failed.append((cid, why))
            bar.advance(failed=True)
        res.generated += part.generated
        res.prompt_tokens += part.prompt_tokens
        res.completion_tokens += part.completion_tokens
        res.cached_tokens += part.cached_tokens
        res.call_s += part.call_s
        share["chunks"] += part.generated
        share["failed"] += len(part.failed)
        share["prompt_tokens"] += part.prompt_tokens
        share["completion_tokens"] += part.completion_tokens


def _cause(e: BaseException) -> str:
    """The worker's own exception when Ray wrapped it (RayTaskError/RayActorError), in one line."""
    inner = getattr(e, "cause", None) or e
    text = f"{type(inner).__name__}: {inner}"
    return " ".join(text.split())[:300]
