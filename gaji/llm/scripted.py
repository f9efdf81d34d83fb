"""ScriptedLLM: a fake backend for testing control flow, never for answers.

Rules are (pattern, reply) pairs tried in order against the request's text (the last user message,
or the raw prompt); the first whose regex matches gives the reply. A reply may be a string, a dict
(returned as JSON text), a callable(request) -> str, or an Exception instance (raised: tests the
retry and failure paths). Token counts are whitespace word counts, so accounting tests have numbers.
`generate_stream` hands the reply out word by word (each piece a word with the space after it), with
`stream_delay_s` between pieces, so streaming tests see several pieces arrive over time.

    llm = ScriptedLLM([(r"decompose", {"subquestions": [...]}), (r".*", "Seoul")])
"""
from __future__ import annotations

import json
import re
import threading
import time
from typing import Any, Callable

from gaji.llm.base import LLMBackend, Request, Result, TextSink
from gaji.registry import LLM_BACKENDS

Reply = str | dict | list | Callable[[Request], str] | Exception


def request_text(req: Request) -> str:
    if req.messages is not None:
        return "\n\n".join(str(m.get("content", "")) for m in req.messages)
    return req.prompt or ""


class ScriptedLLM(LLMBackend):
    def __init__(self, rules: list[tuple[str, Reply]] | None = None, name: str = "scripted", default: Reply | None = None):
        self.rules = [(re.compile(p, re.S), r) for p, r in (rules or [])]
        self.default = default
        self.name = name
        self.parallel_slots = 4
        self.streams = True
        self.stream_delay_s = 0.0
        self.requests: list[Request] = []
        # when set, a request that asks for log-probabilities gets this one for every word of the reply (tests of
        # what reads confidence; None: the backend gives none, as a server without logprobs)
        self.token_logprob: float | None = None
        self._lock = threading.Lock()

    def generate(self, request: Request) -> Result:
        with self._lock:
            self.requests.append(request)
        text = request_text(request)
        reply: Reply | None = None
        for pat, r in self.rules:
            if pat.search(text):
                reply = r
                break
        if reply is None:
            reply = self.default
        if reply is None:
            raise AssertionError(f"ScriptedLLM: no rule matches request: {text[:300]!r}")
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            out = reply(request)
        elif isinstance(reply, (dict, list)):
            out = json.dumps(reply, ensure_ascii=False)
        else:
            out = str(reply)
        for s in request.stop:
            if s and s in out:
                out = out[: out.index(s)]
        lps = None
        if request.logprobs > 0 and self.token_logprob is not None:
            lps = [{"token": w, "logprob": self.token_logprob, "top": [{"token": w, "logprob": self.token_logprob}]}
                   for w in out.split()]
        return Result(
            text=out,
            prompt_tokens=len(text.split()),
            completion_tokens=len(out.split()),
            model=self.name,
            finish_reason="stop",
            logprobs=lps,
        )

    def generate_stream(self, request: Request, on_text: TextSink) -> Result:
        res = self.generate(request)
        for i, piece in enumerate(re.findall(r"\s*\S+\s*|\s+", res.text)):
            if i and self.stream_delay_s:
                time.sleep(self.stream_delay_s)
            on_text(piece)
        return res

    def count_tokens(self, text: str) -> int:
        return len(text.split())


@LLM_BACKENDS.register("scripted", help="fake LLM that always gives one fixed reply (wiring checks and tests)")
def make_scripted(spec_rest: str = "", **_: Any) -> ScriptedLLM:
    """`--llm scripted` from the CLI: echoes a fixed answer (for wiring checks only)."""
    return ScriptedLLM(default=spec_rest or "scripted answer")
