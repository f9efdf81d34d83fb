"""TrackedLLM on top of the real backends: failed calls recorded on the node, JSON retries, cache hits."""
from __future__ import annotations

import socket

import pytest

from gaji.errors import LLMError
from gaji.llm.cache import CachedLLM
from gaji.llm.openai_compat import OpenAICompatLLM
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def test_unreachable_server_is_recorded_as_failed_call():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    backend = OpenAICompatLLM("m", f"http://127.0.0.1:{port}", retries=0, backoff_s=0.01)
    llm = TrackedLLM(backend, retries=1, backoff_s=0.01)
    node = Node(question="q")
    with pytest.raises(LLMError, match="failed after 2 attempt"):
        llm.chat(node, "answer", [{"role": "user", "content": "hi"}])
    [call] = node.calls
    assert not call.ok and call.attempts == 2 and call.purpose == "answer" and call.model == "m"
    assert "connection refused" in call.error
    assert node.to_dict()["calls"][0]["ok"] is False  # survives into the trace


def test_openai_usage_recorded(fake_openai):
    fake_openai.replies = [(500, {"error": {"message": "busy"}}), (200, fake_openai.chat("Seoul", 20, 2, cached=16))]
    llm = TrackedLLM(OpenAICompatLLM("m", fake_openai.url, backoff_s=0.01))
    node = Node()
    assert llm.chat(node, "answer", [{"role": "user", "content": "capital?"}]) == "Seoul"
    [call] = node.calls
    assert call.ok and (call.prompt_tokens, call.completion_tokens, call.cached_tokens) == (20, 2, 16)
    assert call.attempts == 1  # the backend's own retry is invisible to TrackedLLM


def test_json_retry_on_invalid_then_valid_output(fake_openai):
    fake_openai.replies = [(200, fake_openai.chat("not json at all")), (200, fake_openai.chat('{"answer": "Seoul"}'))]
    llm = TrackedLLM(OpenAICompatLLM("m", fake_openai.url, backoff_s=0.01))
    node = Node()
    assert llm.json(node, "evaluate", [{"role": "user", "content": "q"}], schema=SCHEMA) == {"answer": "Seoul"}
    assert [c.ok for c in node.calls] == [False, True]
    assert "invalid JSON" in node.calls[0].error
    seeds = [body["seed"] for _, body, _ in fake_openai.requests]
    assert seeds == [0, 1]  # the retry changes the seed
    assert all(body["response_format"]["type"] == "json_schema" for _, body, _ in fake_openai.requests)


def test_json_gives_up_with_llm_error():
    llm = TrackedLLM(ScriptedLLM(default='{"other": 1}'), retries=1, backoff_s=0)
    node = Node()
    with pytest.raises(LLMError, match="not valid JSON"):
        llm.json(node, "evaluate", [{"role": "user", "content": "q"}], schema=SCHEMA)
    assert [c.ok for c in node.calls] == [False, False]


def test_cache_hit_is_recorded(tmp_path):
    llm = TrackedLLM(CachedLLM(ScriptedLLM(default="Seoul"), cache_dir=tmp_path))
    node = Node()
    llm.chat(node, "answer", [{"role": "user", "content": "capital of Korea?"}])
    llm.chat(node, "answer", [{"role": "user", "content": "capital of Korea?"}])
    assert [c.cache_hit for c in node.calls] == [False, True]
    assert node.calls[1].prompt_tokens == node.calls[0].prompt_tokens > 0
