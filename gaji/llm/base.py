"""The one interface every LLM backend implements.

A backend turns a `Request` (chat messages or a raw prompt, plus generation parameters) into a
`Result` (text, token usage, timing). Backends are registered in `gaji.registry.LLM_BACKENDS` and
built from a spec string by `gaji.llm.factory.make_llm` ("local", "local:small", "openai:MODEL",
"scripted"). Methods never call a backend directly: they go through `TrackedLLM`
(gaji/llm/tracked.py), which records every call into the trace, retries and validates JSON.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

TextSink = Callable[[str], None]  # receives generated text as it comes (streaming)


@dataclass
class Request:
    messages: list[dict] | None = None  # chat: [{"role": "system"|"user"|"assistant", "content": str}]
    prompt: str | None = None  # completion: raw text (used when messages is None)
    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    stop: list[str] = field(default_factory=list)
    json_schema: dict | None = None  # constrain the output to this JSON schema
    logprobs: int = 0  # >0: return top-n logprobs per generated token where the backend can

    @property
    def is_chat(self) -> bool:
        return self.messages is not None

    def key(self, model: str) -> str:
        """Cache key: model + everything that changes the output."""
        payload = json.dumps({"model": model, **asdict(self)}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass
class Result:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens reused from the backend's KV/prompt cache
    wall_ms: float = 0.0
    finish_reason: str = ""
    model: str = ""
    cache_hit: bool = False  # served from gaji's on-disk response cache
    logprobs: list[dict] | None = None  # per token: {"token": str, "logprob": float, "top": [...]}

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Result":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


class LLMBackend:
    """Base class. Subclasses implement `generate`; it must be safe to call from several threads
    (up to `parallel_slots` calls run at once and batch on the backend)."""

    name: str = "llm"  # the model name recorded in traces
    parallel_slots: int = 1
    context_size: int = 4096
    deadline_s: float | None = None  # total time for one call, retries included (None: no limit; gaji.deadline)

    streams: bool = False  # True when generate_stream hands out text as it is generated (not all at the end)

    def mirror(self, inner: "LLMBackend") -> None:
        """For a backend that wraps another (a cache, a cancellable view): present itself as `inner` does --
        the same model name, slots, context, streaming and deadline -- so callers budget and batch alike."""
        self.name = inner.name
        self.parallel_slots = inner.parallel_slots
        self.context_size = inner.context_size
        self.streams = inner.streams
        self.deadline_s = getattr(inner, "deadline_s", None)

    def generate(self, request: Request) -> Result:  # pragma: no cover - interface
        raise NotImplementedError

    def generate_stream(self, request: Request, on_text: TextSink) -> Result:
        """`generate`, handing the output to `on_text` piece by piece as it is generated; returns the whole
        Result (text and token counts as `generate` would). This default hands it over in one piece at the
        end; streaming backends override it. An exception raised by `on_text` stops the generation and
        propagates (a cancelled request)."""
        res = self.generate(request)
        if res.text:
            on_text(res.text)
        return res

    def count_tokens(self, text: str) -> int:
        """Token count for budgeting prompts; backends with a tokenizer override this."""
        return max(1, len(text) // 3)

    def close(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "parallel_slots": self.parallel_slots, "context_size": self.context_size}
