"""ReplayLLM: an LLM double that answers each call with the recorded output of the call whose prompt was the same.

A recorded run's traces keep every LLM call's full prompt (the chat messages, or the raw completion text) and its raw
output. Re-running the same method on the same question with today's code through this backend asks the same calls
when the code behaves as it did; each is answered with what the model said then. A prompt that was never recorded
means today's code asked something else: the double keeps the first such miss as a `Divergence` (the recorded
prompt nearest to it, the first character where they differ, and both texts around it), raises, and refuses every
later call of the question, so the question stops there as "diverged".

    llm = ReplayLLM([RecordedCall.from_dict(c) for c in calls], name="qwen2.5-coder-1.5b", counter=qwen.count)
    trace = Gaji(settings=s, llm=llm, retriever=r).ask(question, method, options)
    llm.divergence, llm.matched, llm.unused()

Calls are matched by their prompt alone (roles and contents, in order); the same prompt asked twice (a JSON retry)
takes the recorded outputs in their recorded order. A call that asked for log-probabilities gets a per-token list
built to summarise (gaji/llm/confidence.py) to the recorded summary, so what reads confidence decides as it did.
Token counts for prompt budgets come from `counter` (the recorded model's tokenizer, gaji_lab.bench.qwen_tokens);
without one, the base estimate.
"""
from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from gaji.errors import LLMError
from gaji.llm.base import LLMBackend, Request, Result

SNIPPET = 120  # characters of each prompt shown after the first difference (and a third of that before it)


def prompt_of(request: Request) -> Any:
    """What a trace records as a call's prompt: the messages, or the raw text (gaji.llm.tracked)."""
    return request.messages if request.messages is not None else request.prompt


def prompt_key(prompt: Any) -> str:
    """A prompt as one comparable string: roles and contents of the messages in order, or the raw text."""
    if isinstance(prompt, list):
        return json.dumps([[str(m.get("role", "")), str(m.get("content", ""))] for m in prompt], ensure_ascii=False)
    return json.dumps(str(prompt or ""), ensure_ascii=False)


def prompt_text(prompt: Any) -> str:
    """A prompt as a person reads it, for showing where two differ: `[role]` before each message's content."""
    if isinstance(prompt, list):
        return "\n".join(f"[{m.get('role', '')}]\n{m.get('content', '')}" for m in prompt)
    return str(prompt or "")


@dataclass(frozen=True)
class RecordedCall:
    """One successful LLM call of a recorded trace (types.LLMCall's fields that replaying needs)."""

    prompt: Any  # list of messages, or the raw prompt text
    output: str
    purpose: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    confidence: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RecordedCall":
        return cls(prompt=d.get("prompt"), output=str(d.get("output") or ""), purpose=str(d.get("purpose") or ""),
                   prompt_tokens=int(d.get("prompt_tokens") or 0), completion_tokens=int(d.get("completion_tokens") or 0),
                   finish_reason=str(d.get("finish_reason") or "stop"), confidence=dict(d.get("confidence") or {}))


@dataclass(frozen=True)
class Divergence:
    """The first call today's code asked that the recording does not hold."""

    position: int  # index of the first differing character between the asked prompt and the nearest recorded one
    asked: str  # the asked prompt around that position
    recorded: str  # the nearest recorded prompt around that position ("" when nothing was recorded)
    recorded_purpose: str  # the nearest recorded call's purpose
    repeated: bool = False  # the prompt was recorded, but asked more often than it was then

    def describe(self) -> str:
        if self.repeated:
            return f"prompt of a {self.recorded_purpose!r} call asked more times than recorded"
        if not self.recorded_purpose and not self.recorded:
            return "no call was recorded for this question"
        return (f"prompt differs from the recorded {self.recorded_purpose!r} call at character {self.position}: "
                f"asked …{self.asked!r}… recorded …{self.recorded!r}…")

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "asked": self.asked, "recorded": self.recorded,
                "recorded_purpose": self.recorded_purpose, "repeated": self.repeated}


class PromptNotRecorded(LLMError):
    """Today's code asked a prompt the recording does not hold (the question has diverged)."""


def first_difference(a: str, b: str) -> int:
    """Index of the first character where `a` and `b` differ (the shorter one's length when one is a prefix)."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def logprobs_for(confidence: dict[str, float]) -> list[dict[str, Any]] | None:
    """Per-token log-probabilities that gaji.llm.confidence.summarize turns back into `confidence` (its tokens, mean,
    min, first and margin; to the 4 decimals it rounds to, or within one unit of the last when the mean cannot be
    met exactly). None when nothing was recorded."""
    n = int(confidence.get("tokens") or 0)
    if n <= 0 or "mean" not in confidence:
        return None
    mean, low = float(confidence["mean"]), float(confidence.get("min", confidence["mean"]))
    first, margin = float(confidence.get("first", mean)), float(confidence.get("margin", 0.0))
    if n == 1:
        lps = [first]
    elif n == 2:
        lps = [first, low if first != low else 2 * mean - first]
    else:
        rest = (n * mean - first - low) / (n - 2)
        lps = [first, low] + [max(low, min(0.0, rest))] * (n - 2)

    def token(i: int, lp: float) -> dict[str, Any]:
        gap = margin if i == 0 else margin + 5.0  # the first token holds the smallest gap; the others' are wider
        top = [{"token": "a", "logprob": lp}]
        if margin:
            top.append({"token": "b", "logprob": lp - gap})
        return {"token": "a", "logprob": lp, "top": top}

    return [token(i, lp) for i, lp in enumerate(lps)]


class ReplayLLM(LLMBackend):
    def __init__(self, calls: list[RecordedCall], *, name: str = "replay", context_size: int = 4096,
                 parallel_slots: int = 1, counter: Callable[[str], int] | None = None):
        self.name = name
        self.context_size = context_size
        self.parallel_slots = parallel_slots
        self.calls = list(calls)
        self._counter = counter
        self._queues: dict[str, deque[RecordedCall]] = {}
        for c in self.calls:
            self._queues.setdefault(prompt_key(c.prompt), deque()).append(c)
        self._texts = [(prompt_text(c.prompt), c) for c in self.calls]
        self.matched = 0  # calls answered from the recording
        self.asked_after = 0  # calls refused after the divergence
        self.divergence: Divergence | None = None
        self._lock = threading.Lock()

    @property
    def diverged(self) -> bool:
        return self.divergence is not None

    def unused(self) -> list[RecordedCall]:
        """Recorded calls today's code did not ask (in recorded order)."""
        left = {id(c) for q in self._queues.values() for c in q}
        return [c for c in self.calls if id(c) in left]

    def generate(self, request: Request) -> Result:
        key = prompt_key(prompt_of(request))
        with self._lock:
            if self.divergence is not None:
                self.asked_after += 1
                raise PromptNotRecorded("the question diverged from its recording at an earlier call")
            queue = self._queues.get(key)
            if not queue:
                self.divergence = self._nearest(prompt_of(request), repeated=queue is not None)
                raise PromptNotRecorded(self.divergence.describe())
            call = queue.popleft()
            self.matched += 1
        return Result(text=call.output, prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens,
                      model=self.name, finish_reason=call.finish_reason,
                      logprobs=logprobs_for(call.confidence) if request.logprobs > 0 else None)

    def _nearest(self, prompt: Any, repeated: bool) -> Divergence:
        asked = prompt_text(prompt)
        if not self._texts:
            return Divergence(0, asked[:SNIPPET], "", "")
        pos, (text, call) = max(((first_difference(asked, t), (t, c)) for t, c in self._texts), key=lambda x: x[0])
        lo = max(0, pos - SNIPPET // 3)
        return Divergence(pos, asked[lo:pos + SNIPPET], text[lo:pos + SNIPPET], call.purpose, repeated)

    def count_tokens(self, text: str) -> int:
        return self._counter(text) if self._counter is not None else super().count_tokens(text)
