"""Scoped keys on every route: the OpenAPI listing walked with a read-only key for `docs`, a key for another
index and a full-access key; each route is allowed or refused (403 naming the missing scope) as its kind says.
Existing keys keep full access; a key's rate limit gives 429 with Retry-After."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from gaji.history.keys import KeyStore, Scopes
from gaji.history.store import HistoryStore

QUESTION = "When was the Battle of Guam?"
# what each route does, as the test sees it (not read from gaji's own rule table): a new route fails the
# test until it is listed here, and gets a rule in gaji/serve/scopes.py
KIND = {
    ("GET", "/api/health"): "open",
    ("GET", "/api/methods"): "any",
    ("GET", "/api/metrics"): "any",
    ("GET", "/api/indexes"): "any",
    ("GET", "/api/indexes/{name}"): "read",
    ("GET", "/api/indexes/{name}/documents"): "read",
    ("GET", "/api/indexes/{name}/passage"): "read",
    ("POST", "/api/indexes/{name}/sync"): "write",
    ("POST", "/api/indexes/{name}/documents"): "write",
    ("DELETE", "/api/indexes/{name}/documents"): "write",
    ("POST", "/api/indexes/{name}/files"): "write",
    ("POST", "/api/ask"): "read",
    ("POST", "/api/ask/stream"): "read",
    ("GET", "/api/traces/{trace_id}"): "history",
    ("GET", "/api/conversations"): "history",
    ("GET", "/api/conversations/{conversation_id}"): "history",
    ("POST", "/api/feedback"): "history",
    ("GET", "/v1/models"): "any",
    ("GET", "/v1/models/{model_id}"): "any",
    ("POST", "/v1/chat/completions"): "read",
}


def request_for(method: str, path: str, index: str) -> dict:
    """A well-formed request for the route, aimed at `index`."""
    url = (path.replace("{name}", index).replace("{trace_id}", "0" * 32)
           .replace("{conversation_id}", "0" * 32).replace("{model_id}", f"gaji-oner@{index}"))
    kw: dict = {"method": method, "url": url}
    if path == "/api/indexes/{name}/documents" and method == "POST":
        kw.update(content=json.dumps({"id": "d1", "text": "새 문서"}).encode() + b"\n",
                  headers={"Content-Type": "application/x-ndjson"})
    elif path == "/api/indexes/{name}/documents" and method == "DELETE":
        kw["params"] = {"id": "en-guam"}
    elif path == "/api/indexes/{name}/passage":
        kw["params"] = {"id": "en-guam"}
    elif path == "/api/indexes/{name}/sync":
        kw["json"] = {"file": "a.txt"}
    elif path.endswith("/files"):
        kw["json"] = {"files": [{"name": "a.txt", "content_base64": "7JWI64WV"}]}
    elif path.startswith("/api/ask"):
        kw["json"] = {"question": QUESTION, "method": "oner", "index": index}
    elif path == "/v1/chat/completions":
        kw["json"] = {"model": f"gaji-oner@{index}", "messages": [{"role": "user", "content": QUESTION}]}
    elif path == "/api/feedback":
        kw["json"] = {"trace_id": "0" * 32, "rating": "up"}
    return kw


@pytest.fixture
def served(make_app, tmp_path):
    store = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    keys = KeyStore(store.db)
    made = {"reader": keys.add("webui", Scopes.of(read=["docs"]))[1],
            "stranger": keys.add("elsewhere", Scopes.of(read=["other"]))[1],
            "full": keys.add("admin")[1]}
    app = make_app(names=("docs", "other"), history=store)
    return app, made


def test_every_route_is_allowed_or_refused_by_scope(served):
    app, keys = served
    routes = [(m.upper(), p) for p, ops in app.openapi()["paths"].items() for m in ops]
    assert sorted(routes) == sorted(KIND), "a route without an expected scope: list it in KIND"
    refused: dict[str, list[str]] = {who: [] for who in keys}
    # the in-memory test index lacks some parts a real one has (a 500 there is not what this test is about)
    with TestClient(app, raise_server_exceptions=False) as c:
        for method, path in routes:
            kind = KIND[(method, path)]
            for who, key in keys.items():
                req = request_for(method, path, "docs")
                req["headers"] = {**req.get("headers", {}), "Authorization": f"Bearer {key}"}
                r = c.request(**req)
                assert r.status_code != 401, (who, method, path, r.text)
                if r.status_code == 403:
                    refused[who].append(f"{method} {path}")
                    err = r.json()["error"]
                    err = err["message"] if isinstance(err, dict) else err
                    want = "write:docs" if kind == "write" else "read:docs"
                    assert f"lacks the scope {want}" in err, (who, method, path, err)
    assert refused["full"] == []
    assert sorted(refused["reader"]) == sorted(f"{m} {p}" for (m, p), k in KIND.items() if k == "write")
    assert sorted(refused["stranger"]) == sorted(f"{m} {p}" for (m, p), k in KIND.items()
                                                 if k in ("read", "write"))


def test_a_read_key_asks_and_sees_only_its_indexes(served):
    app, keys = served
    auth = {"Authorization": f"Bearer {keys['reader']}"}
    with TestClient(app) as c:
        ok = c.post("/api/ask", json={"question": QUESTION, "method": "oner", "index": "docs"}, headers=auth)
        default = c.post("/api/ask", json={"question": QUESTION, "method": "oner"}, headers=auth)  # docs: the default
        other = c.post("/v1/chat/completions", headers=auth, json={
            "model": "gaji-oner@other", "messages": [{"role": "user", "content": QUESTION}]})
        listed = c.get("/api/indexes", headers=auth).json()["indexes"]
        models = [m["id"] for m in c.get("/v1/models", headers=auth).json()["data"]]
        trace = c.get(f"/api/traces/{ok.json()['trace_id']}", headers=auth)
    assert ok.status_code == 200 and default.status_code == 200 and trace.status_code == 200
    assert other.status_code == 403 and "read:other" in other.json()["error"]["message"]
    assert [i["name"] for i in listed] == ["docs"]
    assert "gaji-oner@docs" in models and not any(m.endswith("@other") for m in models)


def test_keys_made_before_scopes_keep_full_access(tmp_path):
    from gaji.history.migrations import MIGRATIONS, migrate
    from gaji.history.db import open_database

    db = open_database(str(tmp_path / "h.sqlite3"))
    migrate(db, MIGRATIONS[:2])  # a database from before scoped keys
    db.run("INSERT INTO api_keys (id, name, salt, hash, created_at) VALUES ('0123456789abcdef', 'old', "
           "'00', '00', '2025-01-01T00:00:00.000000Z')")
    db.close()
    store = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    (old,) = KeyStore(store.db).list()
    assert old.name == "old" and old.scopes.full and old.scopes.describe() == "full access"
    assert old.scopes.allows("write", "anything") and old.rate_per_min is None
    store.close()


def test_a_rate_limited_key_gets_429_with_retry_after(make_app, tmp_path):
    store = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    _, key = KeyStore(store.db).add("slow", Scopes.of(read=["*"]), rate_per_min=3)
    app = make_app(history=store)
    with TestClient(app) as c:
        codes = [c.get("/api/methods", headers={"X-API-Key": key}).status_code for _ in range(4)]
        last = c.get("/api/methods", headers={"X-API-Key": key})
    assert codes == [200, 200, 200, 429] and last.status_code == 429
    assert 1 <= int(last.headers["retry-after"]) <= 60 and "3 request(s) a minute" in last.json()["error"]


def test_scopes_parse_and_refuse_bad_names():
    s = Scopes.of(read=["docs,manuals"], write=["inbox"])
    assert s.read == ("docs", "manuals") and s.allows("read", "inbox")  # write includes read
    assert not s.allows("write", "docs") and s.allows("read", None) and not Scopes.of(read=["a"]).allows("write", None)
    assert Scopes.of(write=["*"]).allows("write", "x") and Scopes.from_json(s.to_json()) == s
    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="--read 'a b'"):
        Scopes.of(read=["a b"])
    with pytest.raises(ConfigError, match="at least one --read"):
        Scopes.of()
