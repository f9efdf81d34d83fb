"""Errors sent before any route runs (the guard, the key, the size limit) and by the routes: on /v1 in OpenAI's
shape, `{"error": {"message", "type", "param", "code"}}`, which the official `openai` client turns into its
exception classes; elsewhere the plain `{"error": message}`. No body names an internal exception class."""
from __future__ import annotations

import re

import httpx
import pytest
from fastapi.testclient import TestClient

openai = pytest.importorskip("openai", reason="the openai client is in the `test` extra")

from gaji.serve.asgi import error_json, is_openai_path, openai_error  # noqa: E402

KEY = "k3y-for-errors"
AUTH = {"Authorization": f"Bearer {KEY}"}
JSON = {"content-type": "application/json"}
LIMIT = 4096
Q = [{"role": "user", "content": "Which battle occurred first?"}]
# what an error body must never carry: a Python exception class name (the server log has those)
CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception|Exceeded|TooLarge|Unusable)\b|Traceback")


@pytest.fixture
def app(make_app):
    return make_app(api_key=KEY, max_body_bytes=LIMIT)


def client(url: str, key: str = KEY, **headers: str) -> "openai.OpenAI":
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=30, default_headers=headers)


def openai_shaped(r: httpx.Response) -> dict:
    body = r.json()
    assert set(body) == {"error"} and isinstance(body["error"], dict), r.text
    err = body["error"]
    assert set(err) == {"message", "type", "param", "code"}, r.text
    assert isinstance(err["message"], str) and err["message"] and isinstance(err["type"], str)
    assert not CLASS_NAME.search(r.text), r.text
    return err


def test_the_openai_client_raises_its_own_errors_for_what_the_middleware_refuses(app, live_server):
    with live_server(app) as url:
        with pytest.raises(openai.APIStatusError) as too_big:
            client(url).chat.completions.create(model="gaji-oner",
                                                messages=[{"role": "user", "content": "가" * LIMIT}])
        with pytest.raises(openai.PermissionDeniedError) as foreign_origin:
            client(url, Origin="http://evil.example").chat.completions.create(model="gaji-oner", messages=Q)
        with pytest.raises(openai.APIStatusError) as foreign_host:
            client(url, Host="rebind.evil.example").chat.completions.create(model="gaji-oner", messages=Q)
        with pytest.raises(openai.AuthenticationError) as bad_key:
            client(url, key="wrong").models.list()
        with pytest.raises(openai.BadRequestError) as bad_body:
            client(url).chat.completions.create(model="gaji-oner", messages=[])
    assert too_big.value.status_code == 413 and too_big.value.code == "request_too_large"
    assert "request body too large" in too_big.value.body["message"]
    assert foreign_origin.value.code == "cross_origin_refused" and "--cors-origin" in foreign_origin.value.body["message"]
    assert foreign_host.value.status_code == 421 and "--allowed-host" in foreign_host.value.body["message"]
    assert bad_key.value.code == "invalid_api_key"
    assert bad_body.value.type == "invalid_request_error" and "messages" in bad_body.value.body["message"]
    for e in (too_big, foreign_origin, foreign_host, bad_key, bad_body):
        assert not CLASS_NAME.search(str(e.value.body)), e.value.body


def chunked(n: int):
    for _ in range(n):
        yield b" " * 1024


@pytest.mark.parametrize("method, path, kw, status", [
    ("POST", "/v1/chat/completions", {"content": b"{}", "headers": {**AUTH, "content-type": "text/plain"}}, 415),
    ("POST", "/v1/chat/completions", {"content": b"{}", "headers": AUTH}, 415),  # no type at all
    ("POST", "/v1/chat/completions", {"content": b"{", "headers": {**AUTH, **JSON}}, 400),  # not JSON
    ("POST", "/v1/chat/completions", {"content": b'{"model": 5, "messages": "x"}', "headers": {**AUTH, **JSON}}, 400),
    ("POST", "/v1/chat/completions", {"content": b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "q"}]}',
                                      "headers": {**AUTH, **JSON}}, 404),
    ("POST", "/v1/chat/completions", {"content": b"x" * (LIMIT + 1), "headers": {**AUTH, **JSON}}, 413),
    ("POST", "/v1/chat/completions", {"content": chunked(8), "headers": {**AUTH, **JSON}}, 413),  # counted as it came
    ("POST", "/v1/chat/completions", {"content": b"{}", "headers": {**JSON, "Authorization": "Bearer nope"}}, 401),
    ("GET", "/v1/models", {"headers": {"Host": "evil.example"}}, 421),
    ("POST", "/v1/chat/completions", {"content": b"{}", "headers": {**AUTH, **JSON, "Origin": "http://evil.example"}},
     403),
    ("GET", "/v1/chat/completions", {"headers": AUTH}, 405),
    ("GET", "/v1/no-such-route", {"headers": AUTH}, 404),
    ("GET", "/v1/models/gaji-nope", {"headers": AUTH}, 404),
])
def test_every_refusal_on_v1_comes_in_openai_shape(app, live_server, method, path, kw, status):
    with live_server(app) as url:
        r = httpx.request(method, url + path, **kw)
    assert r.status_code == status, r.text
    err = openai_shaped(r)
    assert err["type"] == openai_error(status, "")["error"]["type"]


def test_a_missing_or_malformed_host_on_v1_is_an_openai_400(app):
    with TestClient(app) as c:
        r = c.get("/v1/models", headers={"Host": "bad host!", **AUTH})
    assert r.status_code == 400 and "Host" in openai_shaped(r)["message"]


def test_the_rest_of_the_api_keeps_its_plain_error_shape(app, live_server):
    with live_server(app) as url:
        typed = httpx.post(f"{url}/api/ask", content=b"{}", headers={**AUTH, "content-type": "text/plain"})
        big = httpx.post(f"{url}/api/ask", content=b"x" * (LIMIT + 1), headers={**AUTH, **JSON})
        keyless = httpx.get(f"{url}/api/methods")
        host = httpx.get(f"{url}/api/methods", headers={**AUTH, "Host": "evil.example"})
    for r, status in ((typed, 415), (big, 413), (keyless, 401), (host, 421)):
        assert r.status_code == status and isinstance(r.json()["error"], str), r.text


def test_error_json_picks_the_shape_by_path():
    assert is_openai_path("/v1") and is_openai_path("/v1/models") and not is_openai_path("/v10/x")
    assert not is_openai_path("/api/v1/x")
    assert error_json("/api/ask", 400, "bad", trace=None) == {"error": "bad", "trace": None}
    assert error_json("/v1/models", 415, "bad")["error"] == {
        "message": "bad", "type": "invalid_request_error", "param": None, "code": "unsupported_media_type"}
    assert openai_error(503, "busy")["error"]["type"] == "server_error"


def _run_refusal(middleware, scope: dict, chunks: list[bytes]) -> tuple[list[str], int]:
    """Drive `middleware` with a request whose body comes in `chunks`; return what it did, in order, and the
    status it answered."""
    import asyncio

    events: list[str] = []
    pending = list(chunks)

    async def receive():
        if not pending:
            await asyncio.sleep(3600)  # a client that sends nothing more: the drain must give up on its own
        body = pending.pop(0)
        events.append(f"read {len(body)}")
        return {"type": "http.request", "body": body, "more_body": bool(pending)}

    status = {}

    async def send(msg):
        if msg["type"] == "http.response.start":
            status["code"] = msg["status"]
            events.append("answer")

    asyncio.run(middleware(scope, receive, send))
    return events, status["code"]


def _scope(path: str, ctype: bytes, **extra) -> dict:
    return {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "query_string": b"",
            "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", ctype)], **extra}


def test_a_refused_request_s_body_is_read_before_the_answer():
    """Answering and closing while the body is still unread makes the kernel reset the connection, and the
    client can lose the refusal ("connection reset by peer"): a small body is read first, a huge one is not."""
    from gaji.serve.asgi import drain_request
    from gaji.serve.guard import RequestGuardMiddleware

    async def never(scope, receive, send):  # the route must not run for a refused request
        raise AssertionError("the guard let a cross-site write through")

    guard = RequestGuardMiddleware(never)
    events, status = _run_refusal(guard, _scope("/api/ask", b"text/plain"), [b"x" * 100, b"y" * 50])
    assert status == 415 and events == ["read 100", "read 50", "answer"]

    big = [b"z" * 40_000] * 5  # more than the drain's limit: it stops reading and answers
    events, status = _run_refusal(guard, _scope("/api/ask", b"text/plain"), big)
    assert status == 415 and events.count("answer") == 1 and 1 < events.index("answer") < 5

    import asyncio
    import time

    async def silent():
        await asyncio.sleep(3600)

    t0 = time.monotonic()
    asyncio.run(drain_request(silent, timeout_s=0.2))  # a client that stalls does not hold the refusal
    assert time.monotonic() - t0 < 2


def test_a_refused_key_reads_the_body_too(make_app):
    app = make_app(api_key=KEY)
    events, status = _run_refusal(app, _scope("/api/ask", b"application/json"), [b'{"question": "hi"}'])
    assert status == 401 and events == ["read 18", "answer"]
