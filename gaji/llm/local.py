"""The embedded LLM: a GGUF model run in-process by llama.cpp (through xllamacpp).

    local            Qwen2.5-Coder-1.5B-Instruct (assembled from the `gaji[models]` wheels)
    local:small      Qwen2.5 0.5B
    local:/p/x.gguf  any GGUF file

Settings: `parallel` slots (default 2) share `ctx_size` tokens of context (default 8192, so each
slot gets ctx_size // parallel), `threads` (0 = every core this process may use). Calls from several
threads run at once, up to `parallel` of them batched together; more wait in llama.cpp's queue.
The prompt (KV) cache is on: a request that repeats an earlier prefix reuses it, and the reused
tokens are reported as `Result.cached_tokens`.

One llama.cpp server is loaded per (model file, ctx_size, parallel, threads) per process and shared
by every LocalLLM asking for the same thing, so several `Gaji` objects cost one model in memory;
it is freed when the last of them is closed. llama.cpp's logs are silenced unless
GAJI_LLM_VERBOSE=1.

The server also listens on a random 127.0.0.1 port (xllamacpp always starts its HTTP side); it is
protected by a random API key and used only for tokenisation (`count_tokens`).
"""
from __future__ import annotations

import atexit
import json
import os
import secrets
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, LLMError
from gaji.llm.base import LLMBackend, Request, Result
from gaji.deadline import Deadline
from gaji.llm.http import fetch
from gaji.llm.openai_compat import DIRECT_OPENER, parse_response, request_body
from gaji.registry import LLM_BACKENDS

DEFAULT_MODEL = "qwen2.5-coder-1.5b"
SMALL_MODEL = "qwen2.5-0.5b"
MIN_SLOT_CTX = 2048  # below this per-slot context, gaji's prompts (question + k passages) do not fit
PROMPT_CACHE_MIB = 1024  # host-RAM cache of evicted slot prompts (llama.cpp default is 8 GiB)


def available_cpus() -> int:
    """Cores this process may run on (respects taskset/cgroup affinity where the OS tells)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def verbose() -> bool:
    return os.environ.get("GAJI_LLM_VERBOSE", "").strip().lower() in ("1", "true", "yes", "on")


# -- the shared servers ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ServerConfig:
    model_path: str
    ctx_size: int
    parallel: int
    threads: int


class _Loaded:
    """One loaded llama.cpp server and how many LocalLLM objects use it."""

    def __init__(self, config: ServerConfig):
        import xllamacpp

        p = xllamacpp.CommonParams()
        p.model.path = config.model_path
        p.n_ctx = config.ctx_size
        p.n_parallel = config.parallel
        p.cpuparams.n_threads = config.threads
        p.cpuparams_batch.n_threads = config.threads
        p.warmup = False
        p.cache_prompt = True
        p.cache_ram_mib = PROMPT_CACHE_MIB
        p.ctx_shift = False  # a prompt longer than the slot is an error, never silently truncated
        p.n_threads_http = 2
        p.hostnames = ["127.0.0.1"]
        p.port = 0  # a free port
        self.api_key = secrets.token_hex(16)
        p.api_keys = [self.api_key]
        p.verbosity = 3 if verbose() else -1
        t0 = time.perf_counter()
        try:
            self.server = xllamacpp.Server(p)
        except Exception as e:  # noqa: BLE001 - xllamacpp raises RuntimeError with little detail
            raise LLMError(
                f"cannot load model {config.model_path}: {e} (is it a valid GGUF? "
                f"set GAJI_LLM_VERBOSE=1 to see llama.cpp's log)"
            ) from None
        self.address = str(self.server.listening_address or "")
        self.config = config
        self.users = 0
        self._wait_for_loop()
        self.load_ms = (time.perf_counter() - t0) * 1000

    def _wait_for_loop(self) -> None:
        """Make sure llama.cpp's task loop has started before anyone can close the server.

        xllamacpp's destructor hangs forever if it runs before the loop thread enters its loop (the
        stop flag is set, then overwritten when the loop starts). /slots is answered by the loop
        itself, so one answered request proves it runs; a 1-token completion is the fallback."""
        try:
            req = urllib.request.Request(
                self.address.rstrip("/") + "/slots", headers={"Authorization": f"Bearer {self.api_key}"}
            )
            fetch(DIRECT_OPENER, req, Deadline.after(60.0))
            return
        except OSError:
            pass
        try:
            self.server.handle_completions({"prompt": " ", "max_tokens": 1, "temperature": 0})
        except Exception:  # noqa: BLE001 - best effort: the model is loaded either way
            pass


_servers: dict[ServerConfig, _Loaded] = {}
_servers_lock = threading.Lock()


def _acquire(config: ServerConfig) -> _Loaded:
    with _servers_lock:
        loaded = _servers.get(config)
        if loaded is None:
            loaded = _servers[config] = _Loaded(config)
        loaded.users += 1
        return loaded


def _release(loaded: _Loaded) -> None:
    with _servers_lock:
        loaded.users -= 1
        if loaded.users <= 0 and _servers.get(loaded.config) is loaded:
            del _servers[loaded.config]
            loaded.server = None  # the destructor stops llama.cpp's loop and frees the model


@atexit.register
def _close_all() -> None:
    with _servers_lock:
        for loaded in _servers.values():
            loaded.server = None
        _servers.clear()


def loaded_servers() -> list[dict]:
    """What is loaded in this process (for `describe` and debugging)."""
    with _servers_lock:
        return [{**vars(c), "users": s.users, "load_ms": round(s.load_ms, 1)} for c, s in _servers.items()]


# -- the backend ----------------------------------------------------------------------------------
def resolve_model(spec_rest: str) -> tuple[str, Path]:
    """`""` -> the 1.5B model, `"small"` -> the 0.5B, a path -> that GGUF. Returns (name, path)."""
    from gaji.llm.models import MODELS, ensure_model

    rest = spec_rest.strip()
    if rest in ("", "default"):
        return DEFAULT_MODEL, ensure_model(DEFAULT_MODEL)
    if rest == "small":
        return SMALL_MODEL, ensure_model(SMALL_MODEL)
    if rest in MODELS:
        return rest, ensure_model(rest)
    path = Path(rest).expanduser()
    if path.suffix.lower() != ".gguf":
        raise ConfigError(
            f"unknown local model {rest!r}: use local, local:small or local:/path/to/model.gguf"
        )
    if not path.is_file():
        raise ConfigError(f"model file not found: {path}")
    return path.stem, path.resolve()


class LocalLLM(LLMBackend):
    """A GGUF model run in this process by llama.cpp; thread-safe, `parallel` calls batch together."""

    def __init__(
        self,
        model_path: str | Path,
        name: str | None = None,
        *,
        parallel: int = 2,
        ctx_size: int = 8192,
        threads: int = 0,
        prompt_cache: bool = True,
    ):
        parallel, ctx_size, threads = int(parallel or 2), int(ctx_size or 8192), int(threads or 0)
        if parallel < 1:
            raise ConfigError(f"parallel must be at least 1, not {parallel}")
        if ctx_size // parallel < MIN_SLOT_CTX:
            raise ConfigError(
                f"ctx_size {ctx_size} shared by {parallel} parallel slots leaves {ctx_size // parallel} tokens "
                f"per slot; at least {MIN_SLOT_CTX} are needed: raise --ctx-size to "
                f"{MIN_SLOT_CTX * parallel} or lower --parallel"
            )
        self.model_path = Path(model_path)
        if not self.model_path.is_file():
            raise ConfigError(f"model file not found: {self.model_path}")
        self.name = name or self.model_path.stem
        self.parallel_slots = parallel
        self.prompt_cache = bool(prompt_cache)
        self.context_size = ctx_size // parallel  # what one request may use
        self.threads = threads if threads > 0 else available_cpus()
        cfg = ServerConfig(str(self.model_path.resolve()), ctx_size, parallel, self.threads)
        self._loaded: _Loaded | None = _acquire(cfg)
        self._close_lock = threading.Lock()

    @property
    def cache_id(self) -> str:
        """Identity for the on-disk response cache: the pinned model's name, or the GGUF's path and size."""
        from gaji.llm.models import MODELS

        if self.name in MODELS and self.model_path.name == MODELS[self.name].file:
            return self.name
        return f"gguf:{self.model_path.resolve()}:{self.model_path.stat().st_size}"

    # -- generation ---------------------------------------------------------------------------
    def _server(self) -> Any:
        loaded = self._loaded
        if loaded is None or loaded.server is None:
            raise LLMError(f"local model {self.name} is closed")
        return loaded.server

    def _body(self, req: Request) -> dict[str, Any]:
        body = request_body(req)
        body["cache_prompt"] = self.prompt_cache
        return body

    def _call(self, body: dict[str, Any], chat: bool) -> dict:
        server = self._server()
        try:
            out = server.handle_chat_completions(body) if chat else server.handle_completions(body)
        except Exception as e:  # noqa: BLE001 - xllamacpp raises ValueError/RuntimeError for bad requests
            raise LLMError(f"local model {self.name}: {e}") from None
        if isinstance(out, str):  # defensive: older bindings returned JSON text
            try:
                out = json.loads(out)
            except ValueError:
                raise LLMError(f"local model {self.name}: unreadable response {out[:200]!r}") from None
        if not isinstance(out, dict):
            raise LLMError(f"local model {self.name}: unexpected response {out!r:.200}")
        if "error" in out:
            raise LLMError(self._error_message(out["error"]))
        return out

    def _error_message(self, err: Any) -> str:
        if isinstance(err, dict):
            if err.get("type") == "exceed_context_size_error":
                return (
                    f"prompt too long for local model {self.name}: {err.get('n_prompt_tokens', '?')} tokens, "
                    f"but one slot holds {err.get('n_ctx', self.context_size)} (ctx_size / parallel); "
                    f"shorten the prompt (fewer passages), raise --ctx-size or lower --parallel"
                )
            return f"local model {self.name}: {err.get('message', err)}"
        return f"local model {self.name}: {err}"

    def generate(self, request: Request) -> Result:
        body = self._body(request)
        t0 = time.perf_counter()
        out = self._call(body, request.is_chat)
        wall_ms = (time.perf_counter() - t0) * 1000
        return self._result(out, request.is_chat, wall_ms)

    def _result(self, out: dict, chat: bool, wall_ms: float) -> Result:
        return parse_response(out, chat, self.name, wall_ms, f"local model {self.name}")

    # -- scoring ------------------------------------------------------------------------------
    def score(self, request: Request, continuation: str) -> Result:
        """Log-likelihood of `continuation` as the reply to `request` (chat) or after its prompt.

        The model is forced (by a grammar) to write exactly `continuation`; `Result.logprobs` holds
        each token's log-probability under the model's raw distribution (before the grammar), and the
        sum is `sum(t["logprob"] for t in result.logprobs)`. The tokenisation is the one greedy
        decoding picks under the grammar, which is usually, not always, the canonical one.
        """
        if not continuation:
            raise LLMError("score: empty continuation")
        body = self._body(request)
        body.pop("response_format", None)
        body.pop("json_schema", None)
        body.pop("stop", None)
        body.update(grammar=f"root ::= {gbnf_literal(continuation)}", temperature=0.0)
        body["max_tokens"] = self.count_tokens(continuation) * 2 + 4
        if request.is_chat:
            body.update(logprobs=True, top_logprobs=max(1, request.logprobs))
        else:
            body["logprobs"] = max(1, request.logprobs)
        t0 = time.perf_counter()
        out = self._call(body, request.is_chat)
        res = self._result(out, request.is_chat, (time.perf_counter() - t0) * 1000)
        if res.logprobs and res.logprobs[-1]["token"] == "":  # the end-of-text the grammar forced
            res.logprobs = res.logprobs[:-1]
        return res

    # -- tokens -------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text` (no BOS), from the model's own tokenizer."""
        loaded = self._loaded
        if loaded is None or not loaded.address:
            raise LLMError(f"local model {self.name} is closed")
        req = urllib.request.Request(
            loaded.address.rstrip("/") + "/tokenize",
            data=json.dumps({"content": text, "add_special": False}).encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {loaded.api_key}"},
        )
        try:
            return list(json.loads(fetch(DIRECT_OPENER, req, Deadline.after(30.0)))["tokens"])
        except (OSError, ValueError, KeyError) as e:
            raise LLMError(f"local model {self.name}: tokenize failed: {e}") from None

    def count_tokens(self, text: str) -> int:
        try:
            return len(self.tokenize(text))
        except LLMError:
            return super().count_tokens(text)

    # -- lifecycle ----------------------------------------------------------------------------
    def close(self) -> None:
        with self._close_lock:
            if self._loaded is not None:
                _release(self._loaded)
                self._loaded = None

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        loaded = self._loaded
        d.update(
            backend="local",
            model_path=str(self.model_path),
            threads=self.threads,
            prompt_cache=self.prompt_cache,
            total_context=self.context_size * self.parallel_slots,
            load_ms=round(loaded.load_ms, 1) if loaded else None,
        )
        return d


def gbnf_literal(text: str) -> str:
    """`text` as a GBNF string literal (llama.cpp grammars)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@LLM_BACKENDS.register("local", help="embedded GGUF model run by llama.cpp: local (1.5B), local:small (0.5B), local:PATH.gguf")
def make_local(spec_rest: str = "", *, parallel: int = 2, ctx_size: int = 8192, threads: int = 0,
               prompt_cache: bool = True, **_: Any) -> LocalLLM:
    """Factory for `local[:small|:PATH.gguf]`; other settings (base_url, timeout_s, ...) are ignored."""
    name, path = resolve_model(spec_rest)
    return LocalLLM(path, name, parallel=parallel, ctx_size=ctx_size, threads=threads, prompt_cache=prompt_cache)
