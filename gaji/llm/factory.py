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

from typing import TYPE_CHECKING, Any

from gaji.llm.base import LLMBackend
from gaji.registry import LLM_BACKENDS

if TYPE_CHECKING:
    from gaji.config import Settings


def make_llm(spec: str = "local", *, cache: bool = False, cache_dir: str | None = None, **settings: Any) -> LLMBackend:
    kind, _, rest = spec.partition(":")
    factory = LLM_BACKENDS.get(kind)
    backend = factory(rest, **settings)
    if cache:
        from gaji.llm.cache import CachedLLM

        backend = CachedLLM(backend, cache_dir=cache_dir)
    return backend


def llm_from_settings(s: "Settings", spec: str | None = None, *, cache: bool | None = None) -> LLMBackend:
    """The backend `spec` (default `s.llm`) built with the settings' server, slots, context, threads, timeout, deadline and
    prompt cache; `cache` (default `s.cache`) wraps it in the on-disk response cache. One place for the
    settings -> backend wiring the API, the CLI commands and the benches share."""
    return make_llm(spec or s.llm, cache=s.cache if cache is None else cache, cache_dir=s.cache_dir,
                    base_url=s.base_url, parallel=s.parallel, ctx_size=s.ctx_size, threads=s.threads,
                    timeout_s=s.timeout_s, deadline_s=s.deadline_s, prompt_cache=s.prompt_cache)
