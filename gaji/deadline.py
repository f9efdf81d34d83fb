"""Total time limits: one `Deadline` for a whole call, its retries, backoffs and slow reads included.

A per-read socket timeout bounds only the gap between two bytes: a server that never answers holds a
caller for `timeout x attempts`, and one that sends a byte now and then holds it for ever. A deadline
bounds the sum. Callers nest them with `deadline_scope(seconds)`: inside, `current_deadline()` is the
sooner of the new limit and any enclosing one (a server request's time limit, a TrackedLLM call with
its retries), so an inner call never outlives the outer budget.

    with deadline_scope(45.0):
        backend.generate(request)          # the HTTP backend reads current_deadline() for its sockets

The default for LLM and store calls is `DEFAULT_DEADLINE_S`, set by the `deadline_s` setting
(environment `GAJI_DEADLINE_S`, config file `deadline_s = 90`).
"""
from __future__ import annotations

import contextvars
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

DEFAULT_DEADLINE_S = 45.0
MIN_DEADLINE_S, MAX_DEADLINE_S = 0.1, 86_400.0
ENV = "GAJI_DEADLINE_S"


@dataclass(frozen=True)
class Deadline:
    """A point in time (monotonic clock) and the budget it was set with (for messages)."""

    at: float
    budget_s: float

    @classmethod
    def after(cls, seconds: float) -> "Deadline":
        return cls(time.monotonic() + max(0.0, seconds), max(0.0, seconds))

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def sooner(self, other: "Deadline | None") -> "Deadline":
        return self if other is None or self.at <= other.at else other


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("gaji_deadline", default=None)


def current_deadline() -> Deadline | None:
    """The deadline the running code must finish by (None: no limit was set)."""
    return _current.get()


def within(seconds: float | None) -> Deadline | None:
    """A deadline `seconds` from now, or the current one when that is sooner (None when neither exists)."""
    cur = _current.get()
    if seconds is None or seconds <= 0:
        return cur
    return Deadline.after(seconds).sooner(cur)


@contextmanager
def deadline_scope(seconds: float | None) -> Iterator[Deadline | None]:
    """Run the block under `within(seconds)`; yields that deadline."""
    d = within(seconds)
    token = _current.set(d)
    try:
        yield d
    finally:
        _current.reset(token)


def default_deadline_s(env: dict[str, str] | None = None) -> float:
    """`GAJI_DEADLINE_S`, else DEFAULT_DEADLINE_S (for code that has no Settings). A value that is not a number
    of seconds between 0.1 and a day is a ConfigError naming the variable: 0 or less must not turn the
    deadline off."""
    from gaji.errors import ConfigError

    raw = (os.environ if env is None else env).get(ENV, "").strip()
    if not raw:
        return DEFAULT_DEADLINE_S
    try:
        v = float(raw)
    except ValueError:
        v = float("nan")
    if not MIN_DEADLINE_S <= v <= MAX_DEADLINE_S:
        raise ConfigError(f"environment {ENV}={raw!r}: must be a number of seconds between {MIN_DEADLINE_S:g} "
                          f"and {MAX_DEADLINE_S:g}")
    return v
