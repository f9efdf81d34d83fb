"""Any OpenAI-compatible server (llama.cpp's llama-server, vLLM, Ollama, OpenAI itself): `openai:MODEL`.

    make_llm("openai:qwen2.5-7b", base_url="http://127.0.0.1:8080")

Chat requests go to `<base>/v1/chat/completions`, raw prompts to `<base>/v1/completions` (the
`/v1` is added unless base_url already ends with it). The API key comes from GAJI_LLM_API_KEY, else
OPENAI_API_KEY (none = no Authorization header). Connection errors, 408/429 and 5xx answers are
retried with exponential backoff (honouring Retry-After); then the call fails with an LLMError
that says what happened ("cannot reach http://...: connection refused"). The whole call -- attempts,
backoffs and every byte of the answer -- ends by one deadline (`deadline_s`, setting GAJI_DEADLINE_S,
or the caller's sooner one, gaji.deadline): a server that never answers, or drips its answer a byte at
a time, fails the call with a message naming the server. `timeout_s` still bounds each single socket
operation. A request that times out is not retried here: TrackedLLM decides.

Only the standard library is used (urllib): one short-lived connection per call, so any number of
threads may call at once. `parallel_slots` (default 4) tells methods how many calls to run at once.
JSON-schema constraints use `response_format` for chat, and llama.cpp's `json_schema` field for
raw completions (OpenAI's own completions endpoint has no such constraint).
"""
from __future__ import annotations

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from gaji.deadline import DEFAULT_DEADLINE_S, Deadline, within
from gaji.errors import ConfigError, LLMError
from gaji.llm.base import LLMBackend, Request, Result, TextSink
from gaji.llm.http import deadline_opener, fetch
from gaji.registry import LLM_BACKENDS

API_KEY_ENV = ("GAJI_LLM_API_KEY", "GAJI_API_KEY_LLM", "OPENAI_API_KEY")  # the 2nd: as factory.py once spelt it
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
MAX_BACKOFF_S = 30.0


# -- the OpenAI wire format (shared with the embedded backend) ------------------------------------
def request_body(req: Request, model: str | None = None) -> dict[str, Any]:
    """A gaji Request as an OpenAI chat/completions request body."""
    body: dict[str, Any] = {
        "max_tokens": req.max_tokens,
        "temperature": req.temperature,
        "top_p": req.top_p,
        "seed": req.seed,
    }
    if model:
        body["model"] = model
    if req.stop:
        body["stop"] = list(req.stop)
    if req.is_chat:
        body["messages"] = req.messages
        if req.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": req.json_schema},
            }
        if req.logprobs > 0:
            body["logprobs"] = True
            body["top_logprobs"] = req.logprobs
    else:
        if req.prompt is None:
            raise LLMError("request has neither messages nor prompt")
        body["prompt"] = req.prompt
        if req.json_schema is not None:
            body["json_schema"] = req.json_schema  # llama.cpp; /v1/completions has no response_format
        if req.logprobs > 0:
            body["logprobs"] = req.logprobs
    return body


def parse_logprobs(lp: Any) -> list[dict] | None:
    """OpenAI logprobs -> `[{"token", "logprob", "bytes", "top": [{"token", "logprob"}]}]`.

    Accepts the chat format (`{"content": [...]}`, also what llama.cpp returns for completions) and
    the legacy completions format (`{"tokens", "token_logprobs", "top_logprobs"}`)."""
    if not isinstance(lp, dict):
        return None
    if isinstance(lp.get("content"), list):
        return [
            {
                "token": t.get("token", ""),
                "logprob": float(t.get("logprob", 0.0)),
                "bytes": t.get("bytes"),
                "top": [
                    {"token": c.get("token", ""), "logprob": float(c.get("logprob", 0.0))}
                    for c in t.get("top_logprobs") or []
                ],
            }
            for t in lp["content"]
        ]
    if isinstance(lp.get("tokens"), list):
        lps = lp.get("token_logprobs") or []
        tops = lp.get("top_logprobs") or []
        out = []
        for i, tok in enumerate(lp["tokens"]):
            top = tops[i] if i < len(tops) and isinstance(tops[i], dict) else {}
            out.append(
                {
                    "token": tok,
                    "logprob": float(lps[i]) if i < len(lps) and lps[i] is not None else 0.0,
                    "bytes": None,
                    "top": [{"token": k, "logprob": float(v)} for k, v in top.items()],
                }
            )
        return out
    return None


def parse_response(out: dict, chat: bool, model: str, wall_ms: float, who: str) -> Result:
    """An OpenAI chat/completions response -> Result (text, usage, cached tokens, logprobs)."""
    try:
        choice = out["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise LLMError(f"{who}: response without choices: {str(out)[:200]}") from None
    text = (choice.get("message") or {}).get("content") if chat else choice.get("text")
    usage = out.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    if cached is None:
        cached = (out.get("timings") or {}).get("cache_n", 0)  # llama.cpp's own field
    return Result(
        text=text or "",
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(cached or 0),
        wall_ms=wall_ms,
        finish_reason=str(choice.get("finish_reason") or ""),
        model=model,
        logprobs=parse_logprobs(choice.get("logprobs")),
    )


class StreamCollector:
    """Reads the `chunk`s of a streamed OpenAI response (also what llama.cpp hands the embedded backend):
    each piece of text goes to `on_text` at once; `result()` is the whole Result, with the usage the last
    chunk carries (`stream_options.include_usage`). A server that sends no usage is counted by its
    chunks (one token each on llama.cpp and vLLM) and 0 prompt tokens."""

    def __init__(self, chat: bool, model: str, who: str, on_text: TextSink):
        self.chat, self.model, self.who, self.on_text = chat, model, who, on_text
        self.parts: list[str] = []
        self.usage: dict[str, Any] | None = None
        self.timings: dict[str, Any] = {}
        self.finish_reason = ""
        self.chunks = 0
        self.logprobs: list[dict] = []
        self.t0 = time.perf_counter()

    def add(self, chunk: Any) -> None:
        if not isinstance(chunk, dict):
            raise LLMError(f"{self.who}: unreadable stream chunk {str(chunk)[:200]!r}")
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        if isinstance(chunk.get("timings"), dict):
            self.timings = chunk["timings"]
        for choice in chunk.get("choices") or []:
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
            lps = parse_logprobs(choice.get("logprobs"))
            if lps:
                self.logprobs.extend(lps)
            text = (choice.get("delta") or {}).get("content") if self.chat else choice.get("text")
            if text:
                self.chunks += 1
                self.parts.append(text)
                self.on_text(text)

    def result(self) -> Result:
        u = self.usage or {}
        cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens")
        if cached is None:
            cached = self.timings.get("cache_n", 0)
        return Result(
            text="".join(self.parts),
            prompt_tokens=int(u.get("prompt_tokens") or 0),
            completion_tokens=int(u.get("completion_tokens") or 0) if self.usage else self.chunks,
            cached_tokens=int(cached or 0),
            wall_ms=(time.perf_counter() - self.t0) * 1000,
            finish_reason=self.finish_reason,
            model=self.model,
            logprobs=self.logprobs or None,
        )


def error_text(payload: Any) -> str:
    """The human part of an error body: OpenAI's {"error": {"message": ...}} or whatever came."""
    if isinstance(payload, dict):
        err = payload.get("error", payload)
        if isinstance(err, dict):
            return str(err.get("message") or err)
        return str(err)
    return str(payload)


# -- the backend ----------------------------------------------------------------------------------
def api_base(base_url: str) -> str:
    """`http://h:p`, `http://h:p/` or `http://h:p/v1` -> `http://h:p/v1`."""
    base = base_url.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ConfigError(f"base_url must start with http:// or https://, not {base_url!r}")
    return base if base.endswith("/v1") else base + "/v1"


DIRECT_OPENER = deadline_opener("http://127.0.0.1")  # loopback: no proxy, deadlines honoured


def opener_for(url: str) -> urllib.request.OpenerDirector:
    """Loopback servers are reached directly, never through an HTTP(S)_PROXY from the environment; every
    request through it can carry a total deadline (gaji.llm.http)."""
    return deadline_opener(url)


def _reason(e: BaseException) -> str:
    """A short, human cause for a network failure."""
    r = getattr(e, "reason", e)
    if isinstance(r, ConnectionRefusedError):
        return "connection refused"
    if isinstance(r, (TimeoutError, socket.timeout)):
        return "timed out"
    if isinstance(r, socket.gaierror):
        return f"unknown host ({r.strerror or r})"
    if isinstance(r, ConnectionResetError):
        return "connection reset by server"
    if isinstance(r, OSError) and r.strerror:
        return r.strerror.lower()
    if isinstance(r, http.client.HTTPException):
        return f"broken answer ({type(r).__name__}: {r})"
    return str(r) or type(r).__name__


class OpenAICompatLLM(LLMBackend):
    """A model behind an OpenAI-compatible HTTP API; thread-safe (one connection per call)."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        retries: int = 2,
        backoff_s: float = 0.5,
        parallel_slots: int = 4,
        context_size: int = 8192,
        deadline_s: float | None = DEFAULT_DEADLINE_S,
    ):
        self.model = model
        self.base = api_base(base_url)
        self.api_key = api_key
        self.timeout_s = float(timeout_s)
        self.deadline_s = float(deadline_s) if deadline_s else None
        self.retries = max(0, int(retries))
        self.backoff_s = float(backoff_s)
        self.name = model
        self.parallel_slots = max(1, int(parallel_slots))
        self.context_size = int(context_size)
        self._opener = opener_for(self.base)

    @property
    def cache_id(self) -> str:
        """Identity for the on-disk response cache: the same model name on another server may differ."""
        return f"openai:{self.base}:{self.model}"

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        return h

    def post(self, path: str, body: dict) -> dict:
        """POST JSON to `<base><path>` with retries, all within one deadline; the decoded JSON answer or LLMError."""
        url = self.base + path
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        deadline = within(self.deadline_s)
        attempt = 0
        while True:
            attempt += 1
            delay = self.backoff_s * (2 ** (attempt - 1))
            try:
                req = urllib.request.Request(url, data=data, headers=self._headers(), method="POST")
                raw = fetch(self._opener, req, deadline, self.timeout_s)
                try:
                    return json.loads(raw)
                except ValueError:
                    raise LLMError(f"{url}: answer is not JSON: {raw[:200]!r}") from None
            except urllib.error.HTTPError as e:
                try:
                    detail = error_text(json.loads(e.read() or b"{}"))
                except (ValueError, OSError):
                    detail = e.reason
                tries = f" after {attempt} attempts" if attempt > 1 else ""
                failure = f"{url} answered HTTP {e.code}{tries}: {detail}"
                if e.code not in RETRY_STATUS or attempt > self.retries:
                    raise LLMError(failure) from None
                retry_after = e.headers.get("Retry-After") if e.headers else None
                if retry_after:
                    try:
                        delay = max(delay, float(retry_after))
                    except ValueError:
                        pass
            except (TimeoutError, socket.timeout):
                raise self._timed_out(url, deadline, attempt) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                if isinstance(getattr(e, "reason", None), (TimeoutError, socket.timeout)):
                    raise self._timed_out(url, deadline, attempt, connecting=True) from None
                tries = f" ({attempt} attempts)" if attempt > 1 else ""
                failure = f"cannot reach {url}: {_reason(e)}{tries}; is the server running there? (check --base-url)"
                if attempt > self.retries:
                    raise LLMError(failure) from None
            pause = min(delay, MAX_BACKOFF_S)
            if deadline is not None and deadline.remaining() <= pause:
                raise LLMError(f"{failure} (no time left for another attempt within the {deadline.budget_s:g} s "
                               "deadline; GAJI_DEADLINE_S)") from None
            time.sleep(pause)

    def _timed_out(self, url: str, deadline: Deadline | None, attempts: int, connecting: bool = False) -> LLMError:
        tries = f" ({attempts} attempts)" if attempts > 1 else ""
        if deadline is not None and deadline.remaining() <= 0.05:  # a socket wait ended at the deadline
            return LLMError(f"{url}: no complete answer within {deadline.budget_s:g} s{tries} (the deadline for one "
                            "LLM call, retries included; raise it with GAJI_DEADLINE_S)")
        if connecting:
            return LLMError(f"cannot reach {url}: timed out after {self.timeout_s:g} s")
        return LLMError(f"{url}: no answer within {self.timeout_s:g} s (timeout_s){tries}")

    def generate(self, request: Request) -> Result:
        body = request_body(request, self.model)
        path = "/chat/completions" if request.is_chat else "/completions"
        t0 = time.perf_counter()
        out = self.post(path, body)
        wall_ms = (time.perf_counter() - t0) * 1000
        if isinstance(out, dict) and "error" in out and "choices" not in out:
            raise LLMError(f"{self.base}{path}: {error_text(out)}")
        return parse_response(out, request.is_chat, self.name, wall_ms, f"{self.base}{path}")

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(backend="openai", base_url=self.base, timeout_s=self.timeout_s, deadline_s=self.deadline_s,
                 retries=self.retries)
        return d

    streams = True

    def generate_stream(self, request: Request, on_text: TextSink) -> Result:
        """The same request with `stream: true`: server-sent chunks, each piece of text to `on_text` as it
        arrives, the whole exchange within the call's deadline (as `post`). Refusals and connection failures
        before the first chunk are retried as in `post`; once text has been handed out, a failure is final
        (TrackedLLM decides about a new attempt)."""
        body = {**request_body(request, self.model), "stream": True, "stream_options": {"include_usage": True}}
        path = "/chat/completions" if request.is_chat else "/completions"
        url = self.base + path
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {**self._headers(), "Accept": "text/event-stream"}
        deadline = within(self.deadline_s)
        attempt = 0
        while True:
            attempt += 1
            collector = StreamCollector(request.is_chat, self.name, url, on_text)
            try:
                req = urllib.request.Request(url, data=data, headers=headers, method="POST")
                req.gaji_deadline = deadline  # type: ignore[attr-defined]  # every socket read ends by it
                req.gaji_per_op_s = self.timeout_s  # type: ignore[attr-defined]
                limits = [x for x in (self.timeout_s, deadline.remaining() if deadline else None) if x is not None]
                with self._opener.open(req, timeout=min(limits) if limits else None) as r:
                    read_sse(r, collector, url)
                return collector.result()
            except urllib.error.HTTPError as e:
                if e.code not in RETRY_STATUS or attempt > self.retries:
                    raise LLMError(f"{url} answered HTTP {e.code}: {http_error_detail(e)}") from None
            except (TimeoutError, socket.timeout):
                raise self._timed_out(url, deadline, attempt) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                if isinstance(getattr(e, "reason", None), (TimeoutError, socket.timeout)):
                    raise self._timed_out(url, deadline, attempt, connecting=True) from None
                if collector.chunks or attempt > self.retries:
                    raise LLMError(f"cannot reach {url}: {_reason(e)}; is the server running there? "
                                   "(check --base-url)") from None
            pause = min(self.backoff_s * (2 ** (attempt - 1)), MAX_BACKOFF_S)
            if deadline is not None and deadline.remaining() <= pause:
                raise LLMError(f"{url}: no time left for another attempt within the {deadline.budget_s:g} s "
                               "deadline (GAJI_DEADLINE_S)")
            time.sleep(pause)


def http_error_detail(e: urllib.error.HTTPError) -> str:
    """The message of an HTTP error answer (OpenAI's error body), else its reason."""
    try:
        return error_text(json.loads(e.read() or b"{}"))
    except (ValueError, OSError):
        return str(e.reason)


def read_sse(response: Any, collector: StreamCollector, url: str) -> None:
    """Feed the `data:` lines of a server-sent event stream to `collector` until `data: [DONE]` or the end."""
    for raw in response:
        line = raw.decode("utf-8").strip()
        if not line.startswith("data:"):
            continue  # event names, ids, comments (keep-alives) and the blank lines between events
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            chunk = json.loads(payload)
        except ValueError:
            raise LLMError(f"{url}: stream chunk is not JSON: {payload[:200]!r}") from None
        if isinstance(chunk, dict) and "error" in chunk and "choices" not in chunk:
            raise LLMError(f"{url}: {error_text(chunk)}")
        collector.add(chunk)


def api_key_from_env(env: dict[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    for k in API_KEY_ENV:
        if env.get(k):
            return env[k]
    return None


@LLM_BACKENDS.register("openai", help="OpenAI-compatible server: openai:MODEL with --base-url (key from GAJI_LLM_API_KEY)")
def make_openai(
    spec_rest: str = "",
    *,
    base_url: str | None = None,
    timeout_s: float = 120.0,
    parallel_slots: int = 4,
    retries: int = 2,
    deadline_s: float | None = DEFAULT_DEADLINE_S,
    **_: Any,
) -> OpenAICompatLLM:
    """Factory for `openai:MODEL`; needs base_url. Embedded-only settings (parallel, ctx_size, threads) are ignored."""
    model = spec_rest.strip()
    if not model:
        raise ConfigError("the openai backend needs a model name: --llm openai:MODEL")
    if not base_url:
        raise ConfigError(
            f"--llm openai:{model} needs a server: pass --base-url http://HOST:PORT (or set GAJI_BASE_URL)"
        )
    return OpenAICompatLLM(
        model,
        base_url,
        api_key=api_key_from_env(),
        timeout_s=timeout_s or 120.0,
        retries=retries,
        parallel_slots=parallel_slots,
        deadline_s=deadline_s,
    )
