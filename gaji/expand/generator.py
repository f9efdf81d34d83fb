"""Chunk expansion at index time: one title + three candidate questions per chunk, by an LLM.

    exp = Expander(make_llm("local:small"))
    result = exp.run(chunks, ExpansionStore(".idx.expand/expansions.jsonl"), progress=True)
    result.expansions["doc#0"].questions    # -> ["...", "...", "..."]

- Every call goes through `TrackedLLM.json` (schema-constrained, validated, retried); each chunk's
  calls are recorded on their own `Node`, whose token counts and wall time land in the `Expansion`.
- Resumable: each finished chunk is appended (fsync'd) to an append-only JSONL file
  (`ExpansionStore`). A rerun reads it and only asks the LLM for chunks not there yet, so a crash
  mid-corpus continues where it stopped. An entry is reused only when its `key` matches: the key
  hashes the chunk's title + text, the model name and the prompt version, so an edited chunk or
  another model is expanded again.
- Batched over the LLM's parallel slots: `parallel_slots` chunks are in flight at once (the local
  backend batches them in one llama.cpp decode).
- Failed chunks (the LLM errored or never produced valid JSON after retries) are not written to the
  store: they are listed in `ExpandResult.failed` and retried by the next run.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gaji.errors import InputError, LLMError
from gaji.io import append_jsonl
from gaji.llm.base import LLMBackend
from gaji.llm.tracked import TrackedLLM
from gaji.progress import Bars, Task
from gaji.text.lang import resolve_lang
from gaji.text.normalize import normalize_text
from gaji.types import Chunk, Node

from .prompts import EXPAND_SCHEMA, N_QUESTIONS, PROMPT_VERSION, expand_messages

__all__ = ["Expansion", "ExpansionStore", "ExpandResult", "Expander", "expansion_key", "clean_title"]


@dataclass
class Expansion:
    """What the LLM generated for one chunk, and what it cost."""

    chunk_id: str
    title: str
    questions: list[str]
    lang: str = ""
    key: str = ""  # expansion_key(chunk, model): an entry is reused only when it matches
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens the backend reused from its KV cache (the shared prompt prefix)
    seconds: float = 0.0  # wall time of this chunk's LLM call(s)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Expansion":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def brief(self) -> dict[str, Any]:
        """The part stored in the chunk's metadata (`Chunk.metadata["expansion"]`)."""
        return {"title": self.title, "questions": list(self.questions), "model": self.model}


def expansion_key(chunk: Chunk, model: str) -> str:
    h = hashlib.sha1()
    for part in (PROMPT_VERSION, model, chunk.title, chunk.text):
        h.update(part.encode("utf-8") + b"\x00")
    return h.hexdigest()[:16]


def clean_title(title: str) -> str:
    """One line, one sentence (the paper: titles are at most one sentence)."""
    t = " ".join(title.split())
    for stop in (". ", "? ", "! ", "다. "):
        i = t.find(stop)
        if 0 < i < len(t) - len(stop):
            t = t[: i + len(stop) - 1]
            break
    return t.strip()


def _clean_questions(qs: Sequence[str]) -> list[str]:
    out: list[str] = []
    for q in qs:
        q = " ".join(str(q).split())
        if q and q not in out:
            out.append(q)
    return out


class ExpansionStore:
    """Append-only JSONL of finished expansions (one per line, fsync'd). A torn last line (crash
    mid-write) is ignored, and repaired before the next append (gaji.io.append_jsonl); a later line for
    the same chunk id wins."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def load(self) -> dict[str, Expansion]:
        out: dict[str, Expansion] = {}
        if not self.path.exists():
            return out
        lines = self.path.read_bytes().split(b"\n")
        for i, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            last = i >= len(lines) - 1
            try:
                line = normalize_text(raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                if last:  # a multi-byte character cut by a crash
                    continue
                raise InputError(f"bad expansion record: not UTF-8 (byte {err.start + 1})", path=str(self.path),
                                 line=i) from None
            try:
                d = json.loads(line)
                e = Expansion.from_dict(d)
            except (json.JSONDecodeError, TypeError, AttributeError) as err:
                if last or _torn(line):  # a write torn by a crash (last line, or ended by an older rerun)
                    continue
                raise InputError(f"bad expansion record: {err}", path=str(self.path), line=i) from None
            out[e.chunk_id] = e
        return out

    def append(self, e: Expansion) -> None:
        append_jsonl(self.path, e.to_dict())


def _torn(line: str) -> bool:
    """A record cut short by a crash: starts like one of ours but does not parse."""
    return line.startswith('{"chunk_id": ') and not line.rstrip().endswith("}")


@dataclass
class ExpandResult:
    expansions: dict[str, Expansion] = field(default_factory=dict)  # chunk id -> expansion (reused + new)
    generated: int = 0
    reused: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (chunk id, error)
    wall_s: float = 0.0
    prompt_tokens: int = 0  # of the chunks generated in this run
    completion_tokens: int = 0
    cached_tokens: int = 0
    call_s: float = 0.0  # sum of per-chunk LLM wall time (> wall_s when slots overlap)
    model: str = ""
    slots: int = 1

    def stats(self) -> dict[str, Any]:
        n = max(1, self.generated)
        return {
            "model": self.model,
            "slots": self.slots,
            "chunks": len(self.expansions) + len(self.failed),
            "generated": self.generated,
            "reused": self.reused,
            "failed": len(self.failed),
            "wall_s": round(self.wall_s, 3),
            "s_per_chunk": round(self.wall_s / n, 3) if self.generated else None,
            "call_s_per_chunk": round(self.call_s / n, 3) if self.generated else None,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "tokens_per_chunk": round((self.prompt_tokens + self.completion_tokens) / n, 1) if self.generated else None,
        }


class Expander:
    """Generates titles and candidate questions for chunks (see the module docstring)."""

    def __init__(self, llm: LLMBackend | TrackedLLM, max_tokens: int = 320, lang: str = "auto",
                 include_doc_title: bool = True):
        self.llm = llm if isinstance(llm, TrackedLLM) else TrackedLLM(llm, keep_prompts=False)
        self.max_tokens = int(max_tokens)
        self.lang = lang
        self.include_doc_title = include_doc_title

    @property
    def model(self) -> str:
        return self.llm.name

    def chunk_lang(self, chunk: Chunk) -> str:
        if self.lang in ("ko", "en"):
            return self.lang
        return resolve_lang(chunk.lang, f"{chunk.title}\n{chunk.text}")

    def expand_one(self, chunk: Chunk) -> Expansion:
        """One chunk -> Expansion (raises LLMError when the model fails after retries)."""
        lang = self.chunk_lang(chunk)
        node = Node(question=chunk.id, kind="expand")
        t0 = time.perf_counter()
        msgs = expand_messages(chunk.text, lang, chunk.title if self.include_doc_title else "")
        obj = self.llm.json(node, "expand", msgs, schema=EXPAND_SCHEMA, max_tokens=self.max_tokens)
        title = clean_title(str(obj.get("title", "")))
        questions = _clean_questions(obj.get("questions") or [])[:N_QUESTIONS]
        if not title or not questions:
            raise LLMError(f"empty title or questions for chunk {chunk.id!r}: {obj!r}"[:300])
        return Expansion(
            chunk_id=chunk.id,
            title=title,
            questions=questions,
            lang=lang,
            key=expansion_key(chunk, self.model),
            model=self.model,
            prompt_tokens=sum(c.prompt_tokens for c in node.calls),
            completion_tokens=sum(c.completion_tokens for c in node.calls),
            cached_tokens=sum(c.cached_tokens for c in node.calls),
            seconds=round(time.perf_counter() - t0, 3),
        )

    def run(
        self,
        chunks: Sequence[Chunk],
        store: ExpansionStore | None = None,
        progress: bool = False,
        seed: dict[str, Expansion] | None = None,
        on_done: Callable[[Expansion], None] | None = None,
        limit_s: float | None = None,
    ) -> ExpandResult:
        """Expand every chunk not already in `store` (or `seed`, e.g. a previous index's expansions).

        `limit_s`: stop submitting new chunks after this many seconds (the run is resumable)."""
        t_start = time.perf_counter()
        res = ExpandResult(model=self.model, slots=max(1, int(self.llm.parallel_slots or 1)))
        todo = pending_chunks(chunks, self.model, store, seed, res)
        with ExpandProgress(progress and bool(todo), len(chunks), res.reused) as bar:
            with ThreadPoolExecutor(max_workers=res.slots, thread_name_prefix="gaji-expand") as pool:
                pending: dict[Future, Chunk] = {}
                it = iter(todo)
                stopped = False

                def fill() -> None:
                    nonlocal stopped
                    while len(pending) < res.slots and not stopped:
                        if limit_s is not None and time.perf_counter() - t_start > limit_s:
                            stopped = True
                            return
                        c = next(it, None)
                        if c is None:
                            return
                        pending[pool.submit(self.expand_one, c)] = c

                fill()
                while pending:
                    done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                    for f in done:
                        c = pending.pop(f)
                        try:
                            e = f.result()
                        except Exception as err:  # noqa: BLE001 - one bad chunk never stops the corpus
                            res.failed.append((c.id, f"{type(err).__name__}: {err}"[:300]))
                            bar.advance(failed=True)
                            continue
                        if store is not None:
                            store.append(e)
                        res.expansions[c.id] = e
                        res.generated += 1
                        res.prompt_tokens += e.prompt_tokens
                        res.completion_tokens += e.completion_tokens
                        res.cached_tokens += e.cached_tokens
                        res.call_s += e.seconds
                        bar.advance(tokens=e.prompt_tokens + e.completion_tokens)
                        if on_done is not None:
                            on_done(e)
                    fill()
        res.wall_s = time.perf_counter() - t_start
        return res


def pending_chunks(chunks: Sequence[Chunk], model: str, store: "ExpansionStore | None",
                   seed: dict[str, Expansion] | None, res: Any) -> list[Chunk]:
    """The chunks still to expand. Done ones (in `store` or `seed`, with the same key: chunk text, model and
    prompt) go into `res.expansions` and count in `res.reused`; a seed's expansion is copied into the store."""
    have: dict[str, Expansion] = dict(seed or {})
    if store is not None:
        have.update(store.load())
    todo: list[Chunk] = []
    for c in chunks:
        e = have.get(c.id)
        if e is not None and e.key == expansion_key(c, model):
            res.expansions[c.id] = e
            res.reused += 1
            if store is not None and seed and c.id in seed and e is seed[c.id]:
                store.append(e)  # carried over from the seed: make the work file complete
        else:
            todo.append(c)
    return todo


class ExpandProgress:
    """The expansion bar (chunks, s/chunk, tokens/s, failures; elapsed and ETA) on stderr, or nothing."""

    def __init__(self, enabled: bool, total: int, completed: int):
        self._bars = Bars(enabled)
        self._total, self._completed = total, completed
        self._task: Task | None = None
        self.failed = 0
        self.tokens = 0

    def __enter__(self) -> "ExpandProgress":
        self._bars.__enter__()
        self._task = self._bars.task("expanding (LLM)", self._total, self._completed)
        return self

    def _status(self, task: Task) -> str:
        dt = task.elapsed()
        status = f"{dt / max(1, task.new):.1f} s/chunk, {self.tokens / dt:.0f} tok/s"
        return status + (f", {self.failed} failed" if self.failed else "")

    def advance(self, tokens: int = 0, failed: bool = False) -> None:
        self.tokens += tokens
        self.failed += int(failed)
        if self._task is not None:
            self._task.advance(1, status=self._status)

    def __exit__(self, *exc: Any) -> None:
        self._bars.__exit__(*exc)


