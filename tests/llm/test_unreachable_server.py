"""`gaji ask` with an OpenAI-compatible server that is down: the failed call is retried, then reported in the
trace (status failed, the address and what to check), the command ends within seconds, no traceback."""
from __future__ import annotations

import json
import time

from gaji.cli.main import main
from gaji.testing import closed_port


def test_ask_reports_an_unreachable_llm_server(tmp_path, capsys):
    from gaji.index.build import build_index

    c = tmp_path / "c.jsonl"
    c.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        {"id": "seoul", "text": "서울은 대한민국의 수도이다."}, {"id": "paris", "text": "Paris is the capital of France."}]),
        encoding="utf-8")
    build_index([str(c)], tmp_path / "idx", dense=False, progress=False).close()
    url = f"http://127.0.0.1:{closed_port()}"
    base = ["--index", str(tmp_path / "idx"), "--retriever", "bm25", "--llm", "openai:x", "--base-url", url,
            "--no-cache"]

    t0 = time.perf_counter()
    rc = main(["ask", "대한민국의 수도는?", "--json", "--method", "oner", *base])  # one chat call, then the error
    assert time.perf_counter() - t0 < 20  # 3 tracked attempts x 3 connects, with backoff: ~6 s
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    trace = json.loads(out.out)
    assert trace["status"] == "failed" and trace["answer"] == ""
    assert f"cannot reach {url}/v1/chat/completions: connection refused" in trace["error"]
    assert "check --base-url" in trace["error"]
    assert trace["usage"]["failed_calls"] == 1
    calls = trace["root"]["calls"]
    assert len(calls) == 1 and calls[0]["ok"] is False and calls[0]["attempts"] == 3  # retried, then reported
    assert trace["passages"]  # retrieval ran; only the LLM failed
    assert rc == 1

    rc = main(["ask", "What is the capital of France?", *base])
    out = capsys.readouterr()
    assert rc == 1 and "Traceback" not in out.out + out.err
    assert "status failed" in out.out and "cannot reach" in out.out
