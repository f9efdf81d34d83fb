"""Fixtures for the LLM-layer tests: a scriptable fake OpenAI server and the real 0.5B model."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gaji.config import default_home
from gaji.testing import StallingServer

REAL_HOME = default_home()  # read before any test points GAJI_HOME at a temp dir


class FakeOpenAI:
    """A tiny OpenAI-compatible server on 127.0.0.1. `replies` is a queue of
    (status, body) or callables(path, request_json) -> (status, body); the last one repeats."""

    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.requests: list[tuple[str, dict, dict]] = []  # (path, json body, headers)
        self.delay_s = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                fake.requests.append((self.path, body, dict(self.headers)))
                if fake.delay_s:
                    time.sleep(fake.delay_s)
                reply = fake.replies.pop(0) if len(fake.replies) > 1 else (fake.replies[0] if fake.replies else (200, {}))
                if callable(reply):
                    reply = reply(self.path, body)
                status, payload = reply
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *a: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def chat(text: str, prompt_tokens: int = 7, completion_tokens: int = 2, cached: int = 0) -> dict:
        """A chat.completion answer body."""
        return chat_reply(text, prompt_tokens, completion_tokens, cached)


def chat_reply(text: str, prompt_tokens: int = 7, completion_tokens: int = 2, cached: int = 0) -> dict:
    return {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


@pytest.fixture
def fake_openai():
    srv = FakeOpenAI()
    yield srv
    srv.close()


@pytest.fixture
def stalling_server():
    """Factory: stalling_server(drip_s=None) -> a StallingServer, closed after the test."""
    made: list[StallingServer] = []

    def make(drip_s: float | None = None) -> StallingServer:
        made.append(StallingServer(drip_s))
        return made[-1]

    yield make
    for s in made:
        s.close()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """Caches written by unit tests go to a temp dir; model tests ask for the real home explicitly."""
    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "gaji-home"))
    for k in ("GAJI_LLM_API_KEY", "GAJI_API_KEY_LLM", "OPENAI_API_KEY"):
        monkeypatch.delenv(k, raising=False)


@pytest.fixture
def real_home(monkeypatch):
    """Point GAJI_HOME back at the real one (where the models are assembled)."""
    monkeypatch.setenv("GAJI_HOME", str(REAL_HOME))
    return REAL_HOME


@pytest.fixture(scope="session")
def small_model_path():
    """The assembled 0.5B GGUF in the real $GAJI_HOME (skips when the part wheels are not installed)."""
    from gaji.llm.models import ModelError, ensure_model

    try:
        return ensure_model("qwen2.5-0.5b", home=REAL_HOME)
    except ModelError as e:
        pytest.skip(f"0.5B model unavailable: {e}")


@pytest.fixture(scope="session")
def small_llm(small_model_path):
    """One LocalLLM on the 0.5B model for the whole session (2 slots x 2048 tokens). One thread:
    on a shared 2-core box, llama.cpp's 2-thread barrier is 5-10x slower when the cores are busy."""
    from gaji.llm.local import LocalLLM

    llm = LocalLLM(small_model_path, "qwen2.5-0.5b", parallel=2, ctx_size=4096, threads=1)
    yield llm
    llm.close()
