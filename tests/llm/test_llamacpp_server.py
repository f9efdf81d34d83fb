"""llama.cpp's HTTP server as its own process on 127.0.0.1 (gaji.llm.llamacpp_server), called by many threads
at once through gaji's openai backend: every call answered, batched on the server's slots."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from gaji.errors import LLMError
from gaji.llm.base import Request
from gaji.llm.factory import make_llm
from gaji.llm.llamacpp_server import LlamaCppServerProcess
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node


@pytest.mark.model
def test_server_process_answers_concurrent_calls(small_model_path):
    srv = LlamaCppServerProcess(str(small_model_path), parallel=4, threads=1, ctx_size=4096, start_timeout_s=120)
    with srv:
        assert srv.url.startswith("http://127.0.0.1:") and srv.proc is not None and srv.proc.poll() is None
        llm = make_llm("openai:qwen2.5-0.5b", base_url=srv.url, timeout_s=120, parallel_slots=4)
        tracked = TrackedLLM(llm)
        nodes = [Node() for _ in range(6)]
        qs = ["Capital of France? One word.", "대한민국의 수도는? 한 단어로.", "Capital of Italy? One word.",
              "일본의 수도는? 한 단어로.", "Capital of Spain? One word.", "Capital of Germany? One word."]
        with ThreadPoolExecutor(6) as ex:
            outs = list(ex.map(lambda nq: tracked.chat(nq[0], "answer", [{"role": "user", "content": nq[1]}],
                                                       max_tokens=8), zip(nodes, qs)))
        assert "paris" in outs[0].lower() and "서울" in outs[1] and "rome" in outs[2].lower()
        assert all(c.ok and c.completion_tokens > 0 for n in nodes for c in n.calls)
    assert srv.proc.poll() is not None  # stopped
    llm.retries, llm.backoff_s = 0, 0.01
    with pytest.raises(LLMError, match="connection refused"):
        llm.generate(Request(prompt="Q: hi\nA:", max_tokens=2))


def test_server_process_that_cannot_load_fails_clearly(tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(LLMError, match="llama.cpp server did not start"):
        LlamaCppServerProcess(str(bad), parallel=1, threads=1, start_timeout_s=60).start()
