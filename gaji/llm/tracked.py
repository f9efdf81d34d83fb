"""TrackedLLM: the LLM as methods see it. Every call is recorded on a trace Node as an LLMCall
(tokens, wall time, cache hits), failed calls are retried with backoff and then reported, and JSON
outputs are schema-constrained, parsed and validated.

    llm = TrackedLLM(backend)
    text = llm.chat(node, "answer", [{"role": "user", "content": "..."}], max_tokens=128)
    obj  = llm.json(node, "evaluate", messages, schema=EVAL_SCHEMA)

Both raise `LLMError` after the last retry; the failed attempt is still recorded on the node
(ok=False, error=...), so a method can mark the node failed and carry on.

Every prompt is fitted to the backend's per-request context first (gaji/llm/fit.py): when the prompt and
the reply would not fit, the retrieved passages in it are trimmed (relevant sentences first, then
truncation) and the call records what was done (LLMCall.trim).

Streaming: `call(..., on_text=sink)` streams one call's text from the backend as it is generated;
`streaming(answer_stream)` is a view of this TrackedLLM that streams the calls that write the run's
answer (gaji/llm/streaming.py) without the method asking. A streamed call is recorded like any other,
once, with the backend's token counts.
"""
from __future__ import annotations

import copy
import json
import re
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from gaji.deadline import Deadline, deadline_scope
from gaji.errors import LLMError
from gaji.llm.base import LLMBackend, Request, Result, TextSink
from gaji.llm.confidence import summarize
from gaji.llm.fit import Trim, fit_request
from gaji.types import LLMCall, Node

if TYPE_CHECKING:
    from gaji.llm.streaming import AnswerStream


class TrackedLLM:
    def __init__(self, backend: LLMBackend, retries: int = 2, backoff_s: float = 0.5, keep_prompts: bool = True,
                 deadline_s: float | None = None):
        """`deadline_s`: total time for one call with its retries (default: the backend's `deadline_s`)."""
        self.backend = backend
        self.retries = retries
        self.backoff_s = backoff_s
        self.keep_prompts = keep_prompts
        self.deadline_s = deadline_s if deadline_s is not None else getattr(backend, "deadline_s", None)
        self.answer_stream: "AnswerStream | None" = None
        self.before_call: Callable[[], None] | None = None  # raises to stop a run before its next call
        self._lock = threading.Lock()

    def streaming(self, answer_stream: "AnswerStream") -> "TrackedLLM":
        """This TrackedLLM (same backend, same lock) streaming the calls `answer_stream` wants."""
        view = copy.copy(self)
        view.answer_stream = answer_stream
        return view

    def checked(self, before_call: Callable[[], None]) -> "TrackedLLM":
        """This TrackedLLM (same backend, same lock) running `before_call` before every call: a caller's own limit
        (auto's escalation stops short of the run's time limit) raises there, before a call starts."""
        view = copy.copy(self)
        view.before_call = before_call
        return view

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def parallel_slots(self) -> int:
        return self.backend.parallel_slots

    def count_tokens(self, text: str) -> int:
        return self.backend.count_tokens(text)

    @property
    def context_size(self) -> int:
        """Tokens one request (prompt + reply) may use on the backend."""
        return int(getattr(self.backend, "context_size", 0) or 4096)

    # -- core -------------------------------------------------------------
    def call(self, node: Node, purpose: str, request: Request, on_text: TextSink | None = None) -> Result:
        """One call with its retries, all within one deadline (`deadline_s`, or an enclosing sooner one): a
        server that hangs costs the deadline once, not once per attempt. `on_text`: the text as it comes."""
        if self.before_call is not None:
            self.before_call()
        with deadline_scope(self.deadline_s) as deadline:
            return self._call(node, purpose, request, deadline, on_text)

    def _call(self, node: Node, purpose: str, request: Request, deadline: Deadline | None,
              on_text: TextSink | None = None) -> Result:
        request, trim = fit_request(request, self.count_tokens, self.context_size)
        attempts = 0
        t0 = time.perf_counter()
        last_err: Exception | None = None
        answer = self.answer_stream if on_text is None else None
        if answer is not None and not answer.wants(node, purpose, request):
            answer = None
        while attempts <= self.retries:
            attempts += 1
            sink = answer.start() if answer is not None else on_text  # a retry is a new draft
            try:
                res = self.backend.generate_stream(request, sink) if sink else self.backend.generate(request)
            except LLMError as e:  # backend says: transient or not, we retry up to the limit
                last_err = e
            except Exception as e:  # noqa: BLE001 - any backend failure is reported, not raised raw
                last_err = e
            else:
                self._record(node, purpose, request, res, attempts, t0, trim)
                return res
            if attempts <= self.retries:
                pause = self.backoff_s * (2 ** (attempts - 1))
                if deadline is not None and deadline.remaining() <= pause:
                    break  # no time left for another attempt: report the last failure now
                time.sleep(pause)
        call = LLMCall(
            model=self.backend.name,
            purpose=purpose,
            wall_ms=(time.perf_counter() - t0) * 1000,
            ok=False,
            error=f"{type(last_err).__name__}: {last_err}",
            attempts=attempts,
            prompt=self._prompt_of(request),
            trim=trim.to_dict() if trim else {},
        )
        with self._lock:
            node.calls.append(call)
        raise LLMError(f"LLM call for {purpose!r} failed after {attempts} attempt(s): {last_err}")

    def _prompt_of(self, request: Request) -> Any:
        if not self.keep_prompts:
            return None
        return request.messages if request.messages is not None else request.prompt

    def _record(self, node: Node, purpose: str, request: Request, res: Result, attempts: int, t0: float,
                trim: Trim | None = None) -> None:
        call = LLMCall(
            model=res.model or self.backend.name,
            purpose=purpose,
            prompt_tokens=res.prompt_tokens,
            completion_tokens=res.completion_tokens,
            cached_tokens=res.cached_tokens,
            wall_ms=(time.perf_counter() - t0) * 1000,
            cache_hit=res.cache_hit,
            attempts=attempts,
            finish_reason=res.finish_reason,
            prompt=self._prompt_of(request),
            output=res.text,
            trim=trim.to_dict() if trim else {},
            confidence=summarize(res.logprobs) if request.logprobs > 0 else {},
        )
        with self._lock:
            node.calls.append(call)

    # -- conveniences -----------------------------------------------------
    def chat(self, node: Node, purpose: str, messages: list[dict], **params: Any) -> str:
        return self.call(node, purpose, Request(messages=messages, **params)).text

    def complete(self, node: Node, purpose: str, prompt: str, **params: Any) -> str:
        return self.call(node, purpose, Request(prompt=prompt, **params)).text

    def json(self, node: Node, purpose: str, messages: list[dict], schema: dict, **params: Any) -> dict:
        """Schema-constrained chat call, parsed and validated; retried on invalid JSON."""
        params.setdefault("max_tokens", 512)
        last = ""
        for attempt in range(self.retries + 1):
            # a different seed on retry: the same greedy prompt would give the same bad output
            req = Request(messages=messages, json_schema=schema, **{**params, "seed": params.get("seed", 0) + attempt})
            res = self.call(node, purpose, req)
            last = res.text
            try:
                obj = parse_json(res.text)
                validate(obj, schema)
                return obj
            except ValueError as e:
                node.calls[-1].ok = False
                node.calls[-1].error = f"invalid JSON: {e}"
        raise LLMError(f"LLM output for {purpose!r} was not valid JSON for its schema after retries: {last[:200]!r}")


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.M)


def parse_json(text: str) -> Any:
    """Parse a model's JSON output, tolerating code fences and text around one object."""
    t = _FENCE.sub("", text.strip())
    try:
        return json.loads(t)
    except json.JSONDecodeError:
        pass
    start = min([i for i in (t.find("{"), t.find("[")) if i >= 0], default=-1)
    if start < 0:
        raise ValueError("no JSON object in output")
    dec = json.JSONDecoder()
    try:
        obj, _ = dec.raw_decode(t[start:])
        return obj
    except json.JSONDecodeError as e:
        raise ValueError(str(e)) from None


_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def validate(obj: Any, schema: dict, path: str = "$") -> None:
    """A small JSON-schema validator (type, required, properties, items, enum, min/max).

    Enough for the schemas gaji's prompts use; raises ValueError naming the path that failed."""
    t = schema.get("type")
    if t:
        types = t if isinstance(t, list) else [t]
        ok = False
        for ty in types:
            py = _TYPES.get(ty)
            if py is None:
                ok = True
            elif isinstance(obj, py) and not (ty in ("integer", "number") and isinstance(obj, bool)):
                ok = True
        if not ok:
            raise ValueError(f"{path}: expected {t}, got {type(obj).__name__}")
    if "enum" in schema and obj not in schema["enum"]:
        raise ValueError(f"{path}: {obj!r} not in {schema['enum']}")
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        if "minimum" in schema and obj < schema["minimum"]:
            raise ValueError(f"{path}: {obj} < minimum {schema['minimum']}")
        if "maximum" in schema and obj > schema["maximum"]:
            raise ValueError(f"{path}: {obj} > maximum {schema['maximum']}")
    if isinstance(obj, dict):
        for k in schema.get("required", []):
            if k not in obj:
                raise ValueError(f"{path}: missing field {k!r}")
        for k, sub in schema.get("properties", {}).items():
            if k in obj:
                validate(obj[k], sub, f"{path}.{k}")
    if isinstance(obj, list):
        if "minItems" in schema and len(obj) < schema["minItems"]:
            raise ValueError(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(obj) > schema["maxItems"]:
            raise ValueError(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, it in enumerate(obj):
                validate(it, schema["items"], f"{path}[{i}]")
