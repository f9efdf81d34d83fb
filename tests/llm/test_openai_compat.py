"""The openai backend against a fake stdlib HTTP server: wire format, retries, clear errors, timeouts."""
from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gaji.errors import ConfigError, LLMError
from gaji.llm.base import Request
from gaji.llm.factory import make_llm
from gaji.llm.openai_compat import OpenAICompatLLM, api_base, parse_logprobs


def llm_for(url: str, **kw) -> OpenAICompatLLM:
    kw.setdefault("backoff_s", 0.01)
    return OpenAICompatLLM("test-model", url, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_chat_success_and_wire_format(fake_openai):
    fake_openai.replies = [(200, fake_openai.chat("Seoul", 11, 3, cached=8))]
    llm = llm_for(fake_openai.url, api_key="k-123")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    res = llm.generate(
        Request(messages=[{"role": "user", "content": "수도?"}], max_tokens=9, stop=["\n"], json_schema=schema, seed=5)
    )
    assert (res.text, res.prompt_tokens, res.completion_tokens, res.cached_tokens) == ("Seoul", 11, 3, 8)
    assert res.finish_reason == "stop" and res.model == "test-model" and res.wall_ms > 0
    path, body, headers = fake_openai.requests[0]
    assert path == "/v1/chat/completions"
    assert body["model"] == "test-model" and body["max_tokens"] == 9 and body["stop"] == ["\n"] and body["seed"] == 5
    assert body["messages"][0]["content"] == "수도?"
    assert body["response_format"]["json_schema"]["schema"] == schema
    assert headers["Authorization"] == "Bearer k-123"


def test_completion_endpoint_and_logprobs(fake_openai):
    fake_openai.replies = [
        (
            200,
            {
                "choices": [
                    {
                        "text": " Tokyo",
                        "finish_reason": "length",
                        "logprobs": {"tokens": [" Tok", "yo"], "token_logprobs": [-0.5, -0.1], "top_logprobs": [{" Tok": -0.5}, {"yo": -0.1}]},
                    }
                ],
                "usage": {"prompt_tokens": 4, "completion_tokens": 2},
            },
        )
    ]
    res = llm_for(fake_openai.url + "/v1/").generate(Request(prompt="Capital of Japan:", logprobs=1))
    assert res.text == " Tokyo" and res.finish_reason == "length" and res.cached_tokens == 0
    assert [t["token"] for t in res.logprobs] == [" Tok", "yo"]
    assert res.logprobs[0]["logprob"] == -0.5 and res.logprobs[0]["top"] == [{"token": " Tok", "logprob": -0.5}]
    path, body, headers = fake_openai.requests[0]
    assert path == "/v1/completions" and body["prompt"] == "Capital of Japan:" and body["logprobs"] == 1
    assert "Authorization" not in headers


def test_retries_after_500_then_succeeds(fake_openai):
    fake_openai.replies = [(500, {"error": {"message": "busy"}}), (503, b"oops"), (200, fake_openai.chat("ok"))]
    res = llm_for(fake_openai.url, retries=2).generate(Request(messages=[{"role": "user", "content": "hi"}]))
    assert res.text == "ok" and len(fake_openai.requests) == 3


def test_retries_429_then_gives_up_with_message(fake_openai):
    fake_openai.replies = [(429, {"error": {"message": "rate limited"}})]
    with pytest.raises(LLMError, match=r"HTTP 429 after 3 attempts: rate limited"):
        llm_for(fake_openai.url, retries=2).generate(Request(prompt="x"))
    assert len(fake_openai.requests) == 3


def test_client_error_is_not_retried(fake_openai):
    fake_openai.replies = [(400, {"error": {"message": "request (9000 tokens) exceeds the available context size"}})]
    with pytest.raises(LLMError, match="HTTP 400: request .* exceeds the available context size"):
        llm_for(fake_openai.url, retries=3).generate(Request(prompt="x"))
    assert len(fake_openai.requests) == 1


def test_unreachable_port_is_a_clear_error():
    url = f"http://127.0.0.1:{free_port()}"
    t0 = time.perf_counter()
    with pytest.raises(LLMError) as e:
        llm_for(url, retries=2).generate(Request(prompt="x"))
    assert str(e.value) == (f"cannot reach {url}/v1/completions: connection refused (3 attempts); "
                            "is the server running there? (check --base-url)")
    assert time.perf_counter() - t0 < 5


def test_timeout(fake_openai):
    fake_openai.delay_s = 1.0
    fake_openai.replies = [(200, fake_openai.chat("late"))]
    with pytest.raises(LLMError, match=r"no answer within 0.2 s"):
        llm_for(fake_openai.url, timeout_s=0.2).generate(Request(messages=[{"role": "user", "content": "hi"}]))


def test_not_json_and_no_choices(fake_openai):
    fake_openai.replies = [(200, b"<html>proxy</html>")]
    with pytest.raises(LLMError, match="not JSON"):
        llm_for(fake_openai.url).generate(Request(prompt="x"))
    fake_openai.replies = [(200, {"error": {"message": "model not loaded"}})]
    with pytest.raises(LLMError, match="model not loaded"):
        llm_for(fake_openai.url).generate(Request(prompt="x"))
    fake_openai.replies = [(200, {"choices": []})]
    with pytest.raises(LLMError, match="without choices"):
        llm_for(fake_openai.url).generate(Request(prompt="x"))


def test_parallel_calls_from_threads(fake_openai):
    fake_openai.delay_s = 0.2
    fake_openai.replies = [lambda path, body: (200, fake_openai.chat(body["messages"][0]["content"].upper()))]
    llm = llm_for(fake_openai.url)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(4) as ex:
        out = list(ex.map(lambda i: llm.generate(Request(messages=[{"role": "user", "content": f"q{i}"}])).text, range(4)))
    assert out == ["Q0", "Q1", "Q2", "Q3"]
    assert time.perf_counter() - t0 < 0.7  # ran concurrently, not 4 x 0.2 s


def test_factory_settings_and_errors(fake_openai, monkeypatch):
    with pytest.raises(ConfigError, match="needs a server: pass --base-url"):
        make_llm("openai:m")
    with pytest.raises(ConfigError, match="needs a model name"):
        make_llm("openai", base_url=fake_openai.url)
    with pytest.raises(ConfigError, match="http://"):
        make_llm("openai:m", base_url="127.0.0.1:8080")
    monkeypatch.setenv("OPENAI_API_KEY", "from-openai")
    assert make_llm("openai:m", base_url=fake_openai.url).api_key == "from-openai"
    monkeypatch.setenv("GAJI_LLM_API_KEY", "from-gaji")
    llm = make_llm("openai:m", base_url=fake_openai.url, timeout_s=7, parallel=2, ctx_size=4096, threads=1, unknown=1)
    assert llm.api_key == "from-gaji" and llm.timeout_s == 7 and llm.parallel_slots == 4 and llm.name == "m"
    assert make_llm("openai:m", base_url=fake_openai.url, parallel_slots=8).parallel_slots == 8


def test_api_base_and_logprob_formats():
    assert api_base("http://h:1") == api_base("http://h:1/") == api_base("http://h:1/v1/") == "http://h:1/v1"
    chat = {"content": [{"token": "a", "logprob": -1.0, "bytes": [97], "top_logprobs": [{"token": "a", "logprob": -1.0}]}]}
    assert parse_logprobs(chat) == [{"token": "a", "logprob": -1.0, "bytes": [97], "top": [{"token": "a", "logprob": -1.0}]}]
    assert parse_logprobs(None) is None and parse_logprobs({"x": 1}) is None


def test_loopback_ignores_proxy_env(fake_openai, monkeypatch):
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # a proxy that does not exist
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    fake_openai.replies = [(200, fake_openai.chat("direct"))]
    assert llm_for(fake_openai.url).generate(Request(messages=[{"role": "user", "content": "x"}])).text == "direct"


def test_server_closing_the_connection_is_retried_then_reported(fake_openai):
    class Hangup(Exception):
        pass

    def hang_up(path, body):
        raise Hangup  # the handler dies: the client sees the connection closed without an answer

    fake_openai.replies = [hang_up, (200, fake_openai.chat("back"))]
    assert llm_for(fake_openai.url).generate(Request(messages=[{"role": "user", "content": "x"}])).text == "back"
    fake_openai.replies = [hang_up]
    with pytest.raises(LLMError, match=r"cannot reach .*: .*\(3 attempts\)"):
        llm_for(fake_openai.url).generate(Request(prompt="x"))


# -- one total deadline per call: a hung or dripping server cannot hold a question ----------------------
@pytest.mark.parametrize("drip_s", [None, 0.5], ids=["never-answers", "drips-a-byte-every-0.5s"])
def test_a_stalling_server_fails_the_call_within_its_deadline(stalling_server, drip_s):
    srv = stalling_server(drip_s)
    llm = llm_for(srv.url, timeout_s=120, retries=2, deadline_s=1.5)  # 120 s per read would never trip
    t0 = time.perf_counter()
    with pytest.raises(LLMError) as e:
        llm.generate(Request(messages=[{"role": "user", "content": "hi"}]))
    took = time.perf_counter() - t0
    assert 1.4 < took < 3.0, took
    assert str(e.value).startswith(f"{srv.url}/v1/chat/completions: no complete answer within 1.5 s")
    assert "GAJI_DEADLINE_S" in str(e.value)


def test_tracked_retries_share_one_deadline(stalling_server):
    from gaji.llm.tracked import TrackedLLM
    from gaji.types import Node

    srv = stalling_server(0.5)
    tracked = TrackedLLM(llm_for(srv.url, timeout_s=120, deadline_s=1.5), retries=2, backoff_s=0.01)
    assert tracked.deadline_s == 1.5  # the backend's, by default
    node = Node()
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match=r"no complete answer within 1.5 s"):
        tracked.chat(node, "answer", [{"role": "user", "content": "hi"}])
    assert time.perf_counter() - t0 < 3.0  # not 3 attempts x 1.5 s
    assert node.calls[-1].ok is False and srv.url in node.calls[-1].error


def test_an_enclosing_deadline_shortens_the_call(stalling_server):
    from gaji.deadline import deadline_scope

    srv = stalling_server()
    t0 = time.perf_counter()
    with deadline_scope(0.5), pytest.raises(LLMError, match=r"within 0.5 s"):
        llm_for(srv.url, deadline_s=30).generate(Request(prompt="x"))
    assert time.perf_counter() - t0 < 2.0


def test_no_time_for_another_attempt_reports_the_last_failure(fake_openai):
    fake_openai.replies = [(503, {"error": {"message": "loading model"}})]
    with pytest.raises(LLMError, match=r"HTTP 503: loading model \(no time left for another attempt within the 0.3 s"):
        llm_for(fake_openai.url, retries=5, backoff_s=0.5, deadline_s=0.3).generate(Request(prompt="x"))
    assert len(fake_openai.requests) == 1


def test_the_deadline_setting_reaches_the_backend(fake_openai, monkeypatch):
    from gaji.config import load_settings
    from gaji.llm.factory import llm_from_settings

    monkeypatch.setenv("GAJI_DEADLINE_S", "12.5")
    s = load_settings(flags={"llm": "openai:m", "base_url": fake_openai.url}, env=dict(__import__("os").environ))
    assert s.deadline_s == 12.5 and s.sources["deadline_s"] == "env GAJI_DEADLINE_S"
    llm = llm_from_settings(s, cache=False)
    assert llm.deadline_s == 12.5 and llm.describe()["deadline_s"] == 12.5
    assert make_llm("openai:m", base_url=fake_openai.url).deadline_s == 45.0  # the default: under a minute
