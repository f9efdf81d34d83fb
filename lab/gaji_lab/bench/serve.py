"""`gaji bench serve`: load-test the HTTP server with N concurrent clients on loopback.

    gaji bench serve --clients 8 --duration 10                      # starts `gaji serve --llm scripted`
    gaji bench serve --llm local:small --method nor --clients 4     # the real model, no index
    gaji bench serve --url http://127.0.0.1:8000 --index hotpot --method oner

Each client sends one question after another until the time is up; a request still in flight then
is waited for, so every request is counted: answered (200), refused with a reason (503 busy,
504 time limit, …) or a transport failure. The server's own request count (GET /api/metrics)
is compared with the clients' count: `lost` must be 0.
"""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

from gaji.errors import ConfigError, GajiError
from gaji.stats import percentile

QUESTIONS = (
    "훈민정음은 몇 년에 반포되었나요?",
    "Which battle occurred first, the Battle of Manila or the Battle of Guam?",
    "세종은 언제 태어났나요?",
    "How tall is Hallasan?",
)


async def _one(client: Any, url: str, body: dict, stream: bool) -> tuple[int, str]:
    """One question: (HTTP status or the error event's status, reason for a refusal)."""
    if not stream:
        r = await client.post(url + "/api/ask", json=body)
        return r.status_code, "" if r.status_code == 200 else _reason(r.text)
    async with client.stream("POST", url + "/api/ask/stream", json=body) as r:
        if r.status_code != 200:
            return r.status_code, _reason((await r.aread()).decode("utf-8", "replace"))
        event = ""
        async for line in r.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event in ("final", "error"):
                data = json.loads(line[6:])
                return (200, "") if event == "final" else (int(data.get("status", 500)), data.get("error", ""))
        return 0, "stream ended without a final event"


def _reason(text: str) -> str:
    try:
        return str(json.loads(text).get("error", text))
    except (ValueError, AttributeError):
        return text[:200]


async def _load(url: str, clients: int, duration: float, body_of: Any, stream: bool, headers: dict,
                timeout: float) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    sent = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits) as client:
        before = await _server_count(client, url)
        end = time.monotonic() + duration

        async def worker(i: int) -> None:
            nonlocal sent
            n = 0
            while time.monotonic() < end:
                body = body_of(i, n)
                n += 1
                sent += 1
                t0 = time.perf_counter()
                try:
                    status, reason = await _one(client, url, body, stream)
                except httpx.HTTPError as e:
                    status, reason = 0, f"{type(e).__name__}: {e}"
                ms = (time.perf_counter() - t0) * 1000
                statuses[str(status)] += 1
                if status == 200:
                    latencies.append(ms)
                else:
                    reasons[f"{status} {reason.split(':')[0][:60]}"] += 1
                    if status in (429, 503):
                        await asyncio.sleep(0.05)  # a refused client backs off a little

        t_start = time.monotonic()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        wall = time.monotonic() - t_start
        after = await _server_count(client, url)
        for _ in range(20):  # the server counts a request just after its response: let the last ones land
            if before is None or after is None or after - before >= sent:
                break
            await asyncio.sleep(0.05)
            after = await _server_count(client, url)
    answered = statuses.get("200", 0)
    refused = sum(v for k, v in statuses.items() if k in ("429", "503"))
    transport = statuses.get("0", 0)
    server_counted = None if before is None or after is None else after - before
    return {
        "url": url, "clients": clients, "duration_s": duration, "wall_s": round(wall, 2), "stream": stream,
        "requests": sent, "answered": answered, "refused": refused, "transport_failures": transport,
        "errors": sent - answered - refused - transport,
        "by_status": dict(statuses), "reasons": dict(reasons.most_common(8)),
        "latency_ms": {k: _r(percentile(latencies, q)) for k, q in (("p50", 50), ("p95", 95), ("max", 100))},
        "throughput_rps": round(answered / wall, 2) if wall else 0.0,
        "request_rate_rps": round(sent / wall, 2) if wall else 0.0,
        "server_counted": server_counted,
        "lost": None if server_counted is None else sent - server_counted,
    }


async def _server_count(client: Any, url: str) -> int | None:
    """POST /api/ask(/stream) requests the server has counted so far (None if metrics are unreadable)."""
    try:
        r = await client.get(url + "/api/metrics")
        routes = r.json()["requests"]["by_route"]
    except Exception:  # noqa: BLE001 - metrics are a cross-check, not required
        return None
    return routes.get("POST /api/ask", 0) + routes.get("POST /api/ask/stream", 0)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def load_test(url: str, clients: int = 8, duration: float = 10.0, method: str | None = None,
              index: str | None = None, questions: tuple[str, ...] | list[str] = QUESTIONS, stream: bool = False,
              api_key: str | None = None, timeout: float = 600.0, options: dict | None = None) -> dict[str, Any]:
    """Run the load test against a running server; returns the counts and latency percentiles."""
    url = url.rstrip("/")

    def body_of(i: int, n: int) -> dict:
        body: dict[str, Any] = {"question": questions[(i + n) % len(questions)]}
        if method:
            body["method"] = method
        if index:
            body["index"] = index
        if options:
            body["options"] = options
        return body

    headers = {"X-API-Key": api_key} if api_key else {}
    return asyncio.run(_load(url, clients, duration, body_of, stream, headers, timeout))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args: list[str], port: int, wait_s: float = 300.0) -> subprocess.Popen:
    """Start `gaji serve` on 127.0.0.1:port in a child process and wait until /api/health answers."""
    import httpx

    cmd = [sys.executable, "-m", "gaji.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--log-level", "warning", *args]
    log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # a file, not a pipe: a chatty server never blocks
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, text=True)
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            log.seek(0)
            raise GajiError(f"gaji serve exited with {proc.returncode}: {log.read()[-800:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop_server(proc)
    raise GajiError(f"gaji serve did not answer within {wait_s:g} s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def run_bench(url: str | None = None, *, clients: int = 8, duration: float = 10.0, method: str | None = None,
              index: str | None = None, questions: tuple[str, ...] | list[str] | None = None, stream: bool = False,
              timeout: float = 600.0, llm: str = "scripted", serve_index: list[str] | None = None,
              slots: int | None = None, queue: int | None = None,
              request_timeout: float | None = None) -> dict[str, Any]:
    """Load-test the server at `url`, or (url None) a `gaji serve` started here on a free loopback port with `llm`,
    the `serve_index` indexes ([NAME=]DIR) and the given slots, queue and time limit, stopped at the end.
    The method defaults to nor without an index to start, else oner (with `url`: the server's default)."""
    try:
        import httpx  # noqa: F401
    except ModuleNotFoundError:
        raise ConfigError("gaji bench serve needs httpx: pip install 'gaji[serve]'") from None
    proc = None
    method = method or (None if url else ("oner" if serve_index else "nor"))
    if url is None:
        port = free_port()
        sargs = ["--llm", llm]
        for spec in serve_index or []:
            sargs += ["--index", spec]
        for flag, v in (("--slots", slots), ("--queue", queue), ("--timeout", request_timeout)):
            if v is not None:
                sargs += [flag, str(v)]
        print(f"starting gaji serve {' '.join(sargs)} on port {port} …", file=sys.stderr, flush=True)
        proc = start_server(sargs, port)
        url = f"http://127.0.0.1:{port}"
    try:
        res = load_test(url, clients, duration, method, index, questions or QUESTIONS, stream,
                        os.environ.get("GAJI_API_KEY"), timeout)
    finally:
        if proc is not None:
            stop_server(proc)
    res["method"], res["llm"] = method, (llm if proc is not None else None)
    return res


def passed(res: dict[str, Any]) -> bool:
    """No transport failure and no request the server did not count."""
    return res["transport_failures"] == 0 and not res["lost"]


def report(res: dict[str, Any]) -> str:
    """The result as the lines `gaji bench serve` prints."""
    lat = res["latency_ms"]
    lines = [f"gaji bench serve: {res['clients']} clients x {res['duration_s']:g} s against {res['url']}"
             f"{' (stream)' if res['stream'] else ''}  method {res.get('method') or '(server default)'}"
             f"{'  llm ' + res['llm'] if res.get('llm') else ''}",
             f"  requests {res['requests']}: answered {res['answered']}, refused {res['refused']}, "
             f"errors {res['errors']}, transport failures {res['transport_failures']}"]
    lines += [f"    {n:>6} x {reason}" for reason, n in res["reasons"].items()]
    lines.append(f"  latency (answered) p50 {lat['p50']} ms, p95 {lat['p95']} ms, max {lat['max']} ms")
    lines.append(f"  throughput {res['throughput_rps']} answers/s ({res['request_rate_rps']} requests/s) over "
                 f"{res['wall_s']} s")
    if res["server_counted"] is not None:
        lines.append(f"  server counted {res['server_counted']} question requests: lost {res['lost']}")
    return "\n".join(lines)
