"""End to end: the openai backend against a REAL OpenAI-compatible server, llama.cpp's own HTTP
server (run in-process by xllamacpp) serving the 0.5B model on 127.0.0.1."""
from __future__ import annotations

import gc
import json
import urllib.request

import pytest

from gaji.errors import LLMError
from gaji.llm.base import Request
from gaji.llm.factory import make_llm
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node


@pytest.fixture
def llama_server(small_model_path):
    xllamacpp = pytest.importorskip("xllamacpp")
    p = xllamacpp.CommonParams()
    p.model.path = str(small_model_path)
    p.n_ctx = 4096
    p.n_parallel = 2
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = 1
    p.warmup = False
    p.verbosity = -1
    p.hostnames = ["127.0.0.1"]
    p.port = 0  # the OS picks a free port; the server tells which
    holder = {"server": xllamacpp.Server(p)}
    url = holder["server"].listening_address
    assert url.startswith("http://127.0.0.1:")
    # answered by llama.cpp's task loop: once it has run, stopping the server cannot hang (see local.py)
    urllib.request.urlopen(url + "/slots", timeout=60).read()
    yield url, holder
    holder["server"] = None
    gc.collect()


@pytest.mark.model
def test_openai_backend_against_llama_cpp_server(llama_server):
    url, holder = llama_server
    with urllib.request.urlopen(url + "/health", timeout=10) as r:
        assert json.loads(r.read())["status"] == "ok"

    llm = make_llm("openai:qwen2.5-0.5b", base_url=url, timeout_s=60)
    tracked = TrackedLLM(llm)
    node = Node()
    assert "paris" in tracked.chat(node, "answer", [{"role": "user", "content": "Capital of France? One word."}], max_tokens=8).lower()
    assert "서울" in tracked.chat(node, "answer", [{"role": "user", "content": "대한민국의 수도는? 한 단어로."}], max_tokens=8)
    obj = tracked.json(
        node,
        "answer",
        [{"role": "user", "content": "Capital of Japan, as JSON."}],
        schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        max_tokens=24,
    )
    assert isinstance(obj["city"], str)
    assert all(c.ok and c.prompt_tokens > 0 and c.completion_tokens > 0 for c in node.calls)

    prompt = "Q: What is the capital of Italy?\nA:"
    res = llm.generate(Request(prompt=prompt, max_tokens=6, stop=["\n"], logprobs=1))
    assert "Rome" in res.text and res.logprobs
    again = llm.generate(Request(prompt=prompt, max_tokens=6, stop=["\n"]))
    assert again.cached_tokens > 0

    with pytest.raises(LLMError, match="HTTP 400: .*exceeds the available context size"):
        llm.generate(Request(prompt="word " * 2500, max_tokens=2))

    holder["server"] = None  # stop it: the same backend now gets a clear error
    gc.collect()
    llm.retries, llm.backoff_s = 1, 0.01
    with pytest.raises(LLMError, match=r"cannot reach http://127\.0\.0\.1:\d+/v1/completions: connection refused"):
        llm.generate(Request(prompt=prompt, max_tokens=2))
