"""Server metrics: requests by route and status, question latency percentiles, tokens, errors.

Counts are totals since start; latency percentiles are over the last `window` questions.
`MetricsMiddleware` counts every HTTP request (also ones refused by auth or size limits); the ask
endpoints add one `record_ask` per question with its outcome and token usage.
"""
from __future__ import annotations

import threading
import time
from collections import Counter, deque
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gaji.stats import percentile
from gaji.types import Trace


class Metrics:
    def __init__(self, window: int = 2048):
        self._lock = threading.Lock()
        self.started = time.time()
        self.requests: Counter[str] = Counter()  # "POST /api/ask" -> n
        self.statuses: Counter[str] = Counter()  # "200" -> n
        self.outcomes: Counter[str] = Counter()  # ok | failed | timeout | rejected | bad_request | error | disconnected
        self.methods: Counter[str] = Counter()
        self.latency_ms: deque[float] = deque(maxlen=window)
        self.tokens: Counter[str] = Counter()  # prompt, completion, cached, calls, cache_hits, failed_calls
        self.errors: deque[dict[str, Any]] = deque(maxlen=20)  # most recent error messages

    def record_request(self, route: str, status: int) -> None:
        with self._lock:
            self.requests[route] += 1
            self.statuses[str(status)] += 1

    def record_ask(self, method: str, outcome: str, ms: float, trace: Trace | None = None, error: str = "") -> None:
        """One question's end: outcome ok | failed | timeout | rejected | bad_request | error | disconnected."""
        with self._lock:
            self.outcomes[outcome] += 1
            self.methods[method] += 1
            if outcome in ("ok", "failed"):
                self.latency_ms.append(ms)
            if trace is not None:
                u = trace.usage()
                self.tokens.update({
                    "calls": u.calls, "prompt": u.prompt_tokens, "completion": u.completion_tokens,
                    "cached": u.cached_tokens, "cache_hits": u.cache_hits, "failed_calls": u.failed_calls,
                })
            if error:
                self.errors.append({"time": round(time.time(), 3), "outcome": outcome, "error": error[:300]})

    def snapshot(self, queue: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            lat = list(self.latency_ms)
            asks = sum(self.outcomes.values())
            up = time.time() - self.started
            return {
                "uptime_s": round(up, 1),
                "requests": {"total": sum(self.requests.values()), "by_route": dict(self.requests),
                             "by_status": dict(self.statuses)},
                "questions": {"total": asks, "by_outcome": dict(self.outcomes), "by_method": dict(self.methods)},
                "latency_ms": {
                    "count": len(lat),
                    "p50": _round(percentile(lat, 50)),
                    "p95": _round(percentile(lat, 95)),
                    "max": _round(max(lat) if lat else None),
                },
                "tokens": {k: self.tokens.get(k, 0) for k in ("prompt", "completion", "cached")},
                "llm": {k: self.tokens.get(k, 0) for k in ("calls", "cache_hits", "failed_calls")},
                "errors": {"total": asks - self.outcomes.get("ok", 0), "recent": list(self.errors)},
                "queue": queue or {},
            }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


class MetricsMiddleware:
    """Counts each HTTP request under its route template (`GET /api/indexes/{name}`) and status."""

    def __init__(self, app: ASGIApp, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def send_wrapper(msg: Message) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = msg["status"]
            await send(msg)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", None) or ("/api/*" if scope["path"].startswith("/api/") else "/*")
            self.metrics.record_request(f"{scope['method']} {path}", status)
