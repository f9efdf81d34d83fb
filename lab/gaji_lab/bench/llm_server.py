"""`gaji bench llm-server`: gaji's LLM throughput with many concurrent calls, embedded backend vs real
OpenAI-compatible servers (batched serving).

    gaji bench llm-server                                    # embedded vs llama.cpp server (0.5B model)
    gaji bench llm-server --targets embedded,llamacpp,url --base-url http://127.0.0.1:8000 --model qwen2.5-0.5b

Targets:
- ``embedded``  gaji's in-process backend (`--llm local:small`, `--slots` parallel slots);
- ``llamacpp``  llama.cpp's HTTP server in its own process (gaji.llm.llamacpp_server), same model,
                same slots and threads, called through gaji's `openai` backend;
- ``url``       any running OpenAI-compatible server (vLLM, …) at `--base-url`, through the `openai` backend.

Each target answers the same `--calls` chat requests (short en/ko questions, temperature 0,
`--max-tokens`), first one at a time, then `--concurrency` at once. Reported per target and mode:
wall time, calls/s, completion tokens/s, latency p50/p95. Results: JSON + markdown under `--out`.
"""
from __future__ import annotations

import platform
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gaji.stats import percentile

__all__ = ["run", "QUESTIONS", "load", "markdown"]

QUESTIONS = [
    "What is the capital of France?", "대한민국의 수도는 어디인가?", "Who wrote Hamlet?", "한강은 어느 도시를 흐르나?",
    "What is the boiling point of water in Celsius?", "김치는 무엇으로 만드나?", "Name the largest planet.",
    "부산은 어떤 도시인가?", "What language is spoken in Brazil?", "세종대왕은 무엇을 만들었나?",
    "Which ocean is the largest?", "독도는 어느 바다에 있나?", "What is photosynthesis?", "한글은 언제 만들어졌나?",
    "Who painted the Mona Lisa?", "제주도는 무엇으로 유명한가?",
]




def load(backend: Any, calls: int, concurrency: int, max_tokens: int) -> dict[str, Any]:
    """`calls` chat requests through `backend.generate`, `concurrency` at a time; throughput + latency."""
    from gaji.llm.base import Request

    reqs = [Request(messages=[{"role": "user", "content": QUESTIONS[i % len(QUESTIONS)] + " Answer in one sentence."}],
                    max_tokens=max_tokens, temperature=0.0, seed=i) for i in range(calls)]
    lat: list[float] = []
    toks: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()

    def one(r) -> None:
        t0 = time.perf_counter()
        try:
            res = backend.generate(r)
        except Exception as e:  # noqa: BLE001 - a failed call is counted, the load goes on
            with lock:
                errors.append(f"{type(e).__name__}: {e}"[:200])
            return
        with lock:
            lat.append(time.perf_counter() - t0)
            toks.append(int(res.completion_tokens))

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as ex:
        list(ex.map(one, reqs))
    wall = time.perf_counter() - t0
    return {
        "calls": calls, "concurrency": concurrency, "ok": len(lat), "errors": len(errors),
        "error_examples": errors[:3], "wall_s": round(wall, 3),
        "calls_per_s": round(len(lat) / wall, 3) if wall else None,
        "completion_tokens": sum(toks), "tokens_per_s": round(sum(toks) / wall, 2) if wall else None,
        "latency_p50_s": round(statistics.median(lat), 3) if lat else None,
        "latency_p95_s": round(percentile(lat, 95), 3) if lat else None,
    }


def _measure(name: str, backend: Any, calls: int, concurrency: int, max_tokens: int) -> dict[str, Any]:
    load(backend, 2, 1, 4)  # warm-up (first-call costs)
    return {"target": name, "sequential": load(backend, calls, 1, max_tokens),
            "concurrent": load(backend, calls, concurrency, max_tokens)}


def run(targets: list[str], llm: str = "local:small", base_url: str | None = None, model: str = "qwen2.5-0.5b",
        label: str = "url", calls: int = 16, concurrency: int = 8, slots: int = 8, threads: int = 2,
        max_tokens: int = 32) -> dict[str, Any]:
    from gaji.errors import ConfigError
    from gaji.llm.factory import make_llm

    unknown = set(targets) - {"embedded", "llamacpp", "url"}
    if unknown:
        raise ConfigError(f"unknown target(s) {', '.join(sorted(unknown))}; use embedded, llamacpp, url")
    ctx = max(8192, 2048 * slots)  # the embedded backend needs >= 2048 tokens per slot
    results: list[dict[str, Any]] = []
    for t in targets:
        if t == "embedded":
            b = make_llm(llm, parallel=slots, ctx_size=ctx, threads=threads)
            try:
                r = _measure("embedded", b, calls, concurrency, max_tokens)
                r["setup"] = {"llm": llm, "slots": slots, "threads": threads, "ctx_size": ctx}
            finally:
                b.close()
        elif t == "llamacpp":
            from gaji.llm.llamacpp_server import LlamaCppServerProcess

            with LlamaCppServerProcess(llm, parallel=slots, threads=threads, ctx_size=ctx) as srv:
                b = make_llm("openai:gaji-small", base_url=srv.url, timeout_s=600, parallel_slots=slots)
                r = _measure("llama.cpp server", b, calls, concurrency, max_tokens)
                r["setup"] = {"llm": llm, "slots": slots, "threads": threads, "ctx_size": ctx, "url": srv.url,
                              "start_s": round(srv.started_s or 0, 2)}
        else:
            if not base_url:
                raise ConfigError("the `url` target needs --base-url")
            b = make_llm(f"openai:{model}", base_url=base_url, timeout_s=600, parallel_slots=concurrency)
            r = _measure(label, b, calls, concurrency, max_tokens)
            r["setup"] = {"url": base_url, "model": model}
        results.append(r)
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cores": __import__("os").cpu_count(), "platform": platform.platform()},
        "calls": calls, "concurrency": concurrency, "max_tokens": max_tokens, "results": results,
    }


def markdown(res: dict[str, Any]) -> str:
    lines = [f"LLM throughput, {res['calls']} chat calls x {res['max_tokens']} max tokens, "
             f"{res['date']}, {res['machine']['cores']} cores", "",
             "| target | mode | wall s | calls/s | completion tok/s | p50 s | p95 s | errors |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in res["results"]:
        for mode in ("sequential", "concurrent"):
            m = r[mode]
            label = "1 at a time" if mode == "sequential" else f"{m['concurrency']} at once"
            lines.append(f"| {r['target']} | {label} | {m['wall_s']} | {m['calls_per_s']} | {m['tokens_per_s']} | "
                         f"{m['latency_p50_s']} | {m['latency_p95_s']} | {m['errors']} |")
    return "\n".join(lines) + "\n"
