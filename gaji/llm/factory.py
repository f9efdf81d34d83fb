"""Build an LLM backend from a spec string, through the LLM_BACKENDS registry.

    local            Qwen2.5-Coder-1.5B-Instruct GGUF, embedded (xllamacpp)  [default]
    local:small      the 0.5B GGUF, faster and weaker
    local:/p/x.gguf  any GGUF file
    openai:MODEL     any OpenAI-compatible server (--base-url, key from GAJI_API_KEY_LLM / OPENAI_API_KEY)
    scripted[:TEXT]  fake LLM for wiring checks (tests)

The part before the first ':' names the registered backend factory; the rest is its argument.
A factory is `fn(rest: str, **settings) -> LLMBackend`. When `cache` is on, the backend is wrapped in
the on-disk response cache (gaji/llm/cache.py).
"""
from __future__ import annotations

from typing import Any

from gaji.llm.base import LLMBackend
from gaji.registry import LLM_BACKENDS


def make_llm(spec: str = "local", *, cache: bool = False, cache_dir: str | None = None, **settings: Any) -> LLMBackend:
    kind, _, rest = spec.partition(":")
    factory = LLM_BACKENDS.get(kind)
    backend = factory(rest, **settings)
    if cache:
        from gaji.llm.cache import CachedLLM

        backend = CachedLLM(backend, cache_dir=cache_dir)
    return backend
