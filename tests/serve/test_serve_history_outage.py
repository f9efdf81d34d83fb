"""A real PostgreSQL 15 server stopped and started under a running API: answers given during the outage come
back with `history: not stored` (body and X-Gaji-History header), are stored once the database is back, each
exactly once, and the API serves again within 10 s of the database's return, without a restart. A server with
named keys fails closed (503) while it cannot check them, and heals by itself."""
from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from gaji.history.keys import KeyStore
from gaji.history.store import HistoryStore

QUESTION = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
RECOVER_S = 10.0


def ask(c: TestClient, i: int, **headers: str):
    return c.post("/api/ask", json={"question": f"{QUESTION} ({i})", "method": "oner"}, headers=headers)


def wait_for(check, within_s: float, step: float = 0.1) -> float | None:
    """Seconds until `check()` is true, or None when it is not within `within_s`."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < within_s:
        if check():
            return time.monotonic() - t0
        time.sleep(step)
    return None


def stored_counts(url: str) -> dict[str, int]:
    store = HistoryStore.open(url)
    try:
        return {qid: int(n) for qid, n in store.db.run("SELECT id, COUNT(*) FROM questions GROUP BY id")}
    finally:
        store.close()


def test_answers_during_a_postgresql_outage_are_stored_once_after_it(make_app, scripted, postgres_own, tmp_path):
    url = postgres_own.new_database()
    gate, entered = threading.Event(), threading.Semaphore(0)

    def slow(req):  # the first two questions are still being answered when the database stops
        if "(in-flight" in str(req.messages):
            entered.release()
            gate.wait(30)
        return "Answer: Battle of Guam\nSources: [1]"

    app = make_app(llm=scripted(**{r"(?:Question|질문):": slow}), history=HistoryStore.open(url),
                   history_outbox=tmp_path / "outbox.sqlite3", history_retry_s=0.5)
    figures: dict[str, float] = {}
    with TestClient(app) as c:
        before = ask(c, 0)
        assert before.status_code == 200 and before.json()["history"] == "stored"
        assert before.headers["x-gaji-history"] == "stored"

        in_flight: list = [None, None]
        threads = [threading.Thread(target=lambda j=j: in_flight.__setitem__(
            j, c.post("/api/ask", json={"question": f"{QUESTION} (in-flight {j})", "method": "oner"})))
            for j in range(2)]
        for t in threads:
            t.start()
        assert entered.acquire(timeout=20) and entered.acquire(timeout=20)
        stopped = postgres_own.stop("fast")
        assert stopped.returncode == 0, stopped.stderr
        t_down = time.monotonic()
        gate.set()
        for t in threads:
            t.join(30)

        during = [ask(c, i) for i in range(1, 5)]
        chat = c.post("/v1/chat/completions", json={"model": "gaji-oner", "messages": [
            {"role": "user", "content": f"{QUESTION} (chat)"}]})
        methods = c.get("/api/methods")  # no key configured: key checks never need the database
        trace_down = c.get(f"/api/traces/{before.json()['trace_id']}")
        time.sleep(max(0.0, 3.0 - (time.monotonic() - t_down)))  # an outage of a few seconds at least

        started = postgres_own.start()
        assert started.returncode == 0, started.stderr + postgres_own.log_tail()
        t_up = time.monotonic()
        figures["outage_s"] = t_up - t_down
        last = during[-1].json()["trace_id"]
        recovered = wait_for(lambda: c.get(f"/api/traces/{last}").status_code == 200, RECOVER_S)
        figures["traces_served_again_s"] = recovered if recovered is not None else float("nan")
        after = ask(c, 9)
        figures["first_stored_answer_after_return_s"] = time.monotonic() - t_up
        drained = wait_for(lambda: app.state.ask.durable.status()["queued"] == 0, RECOVER_S)
        replayed = app.state.ask.durable.replayed

    for r in [*in_flight, *during]:
        assert r is not None and r.status_code == 200, r and r.text
        assert r.json()["history"] == "not stored" and r.headers["x-gaji-history"] == "not stored"
        assert r.json()["answer"] == "Battle of Guam"
    assert chat.status_code == 200 and chat.json()["gaji"]["history"] == "not stored"
    assert methods.status_code == 200
    assert trace_down.status_code == 503 and "history database is unavailable" in trace_down.json()["error"]
    assert recovered is not None and recovered < RECOVER_S, figures
    assert after.status_code == 200 and after.json()["history"] == "stored"
    assert drained is not None
    queued = [r.json()["trace_id"] for r in [*in_flight, *during]] + [chat.json()["gaji"]["trace_id"]]
    assert replayed == len(queued)
    counts = stored_counts(url)
    ids = [before.json()["trace_id"], *queued, after.json()["trace_id"]]
    assert sorted(counts) == sorted(ids) and set(counts.values()) == {1}  # all there, none twice
    figures["answers_replayed"] = replayed
    print("outage figures:", {k: round(v, 2) for k, v in figures.items()})


def test_a_keyed_server_fails_closed_while_its_key_store_is_down_and_heals(make_app, scripted, postgres_own,
                                                                           tmp_path):
    url = postgres_own.new_database()
    store = HistoryStore.open(url)
    _, key = KeyStore(store.db).add("webui")
    app = make_app(llm=scripted(), history=store, history_outbox=tmp_path / "outbox.sqlite3")
    auth = {"Authorization": f"Bearer {key}"}
    with TestClient(app) as c:
        assert ask(c, 0, **auth).status_code == 200
        assert c.get("/api/methods").status_code == 401  # keys exist: no key, no answer
        assert postgres_own.stop("fast").returncode == 0
        down = ask(c, 1, **auth)
        nokey = c.get("/api/methods")
        health = c.get("/api/health")
        assert postgres_own.start().returncode == 0
        back = wait_for(lambda: ask(c, 2, **auth).status_code == 200, RECOVER_S)
    assert down.status_code == 503 and "cannot check the API key now" in down.json()["error"]
    assert down.headers["retry-after"] == "5"
    assert nokey.status_code == 401  # still known to need a key: never let in unchecked
    assert health.status_code == 200
    assert back is not None and back < RECOVER_S
