"""The real `gaji serve` command in a subprocess on a free loopback port (scripted LLM, no index), driven by
the `openai` client: the history database from --history-db, a named key added while it runs, the default
model name from --chat-model."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from gaji.serve.auth import KEYS_REFRESH_S

openai = pytest.importorskip("openai", reason="the openai client is in the `test` extra")

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gaji_serve_answers_openai_clients_and_records_them(tmp_path, capsys):
    from gaji.cli.main import main
    from gaji.history.store import HistoryStore

    port, db = free_port(), str(tmp_path / "history.sqlite3")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAJI_HOME": str(tmp_path / "home")}
    env.pop("GAJI_API_KEY", None)
    cmd = [sys.executable, "-m", "gaji.cli.main", "serve", "--llm", "scripted:Battle of Guam", "--method", "nor",
           "--port", str(port), "--history-db", db, "--chat-model", "gaji-nor", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"gaji serve did not start: {proc.stdout.read() if proc.stdout else ''}")
            time.sleep(0.2)
        anyone = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=30)
        r = anyone.chat.completions.create(model="gaji", messages=[{"role": "user", "content": "Which came first?"}])
        assert r.model == "gaji-nor" and r.choices[0].message.content == "Battle of Guam"
        chunks = anyone.chat.completions.create(model="gaji-nor", stream=True,
                                                messages=[{"role": "user", "content": "Which came first?"}])
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Battle of Guam"
        # a key added while the server runs: a key is required within the server's refresh of "are there keys?"
        # (gaji.serve.auth.KEYS_REFRESH_S: the key database is not read on every request)
        capsys.readouterr()
        assert main(["keys", "add", "webui", "--history-db", db]) == 0
        key = capsys.readouterr().out.strip()
        refused, deadline = False, time.monotonic() + 4 * KEYS_REFRESH_S + 5
        while not refused and time.monotonic() < deadline:
            try:
                anyone.chat.completions.create(model="gaji", messages=[{"role": "user", "content": "q"}])
                time.sleep(0.5)
            except openai.AuthenticationError:
                refused = True
        assert refused, "a key added while serving was never required"
        webui = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=30)
        assert webui.chat.completions.create(model="gaji", messages=[{"role": "user", "content": "q"}]).choices
    finally:
        proc.terminate()
        proc.wait(20)
    store = HistoryStore.open(db)
    recs = store.questions(limit=0, oldest_first=True)
    store.close()
    got = [(r.endpoint, r.method, r.client) for r in recs]
    # the two answers before the key, any the refresh window let through, then the key's
    assert got[-1] == ("chat", "nor", "webui") and len(got) >= 3 and set(got[:-1]) == {("chat", "nor", None)}
