"""The server under attack, as `gaji bench security` runs it: two live servers on loopback (one keyless, one
with a key) over a real BM25 index, and every check of gaji_lab.bench.security -- CSRF (text/plain, form and
untyped posts, foreign Origins), DNS rebinding (foreign Host), path traversal (static files, index names,
upload ids), keys (missing, wrong, other length; constant-time compare), size limits and prompt-injection
titles -- plus the guard's parts on their own."""
from __future__ import annotations

from importlib import resources

import pytest
from fastapi.testclient import TestClient

from gaji_lab.bench.security import AREAS, Target, format_table, run_checks
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from gaji.serve.guard import HostPolicy, RequestGuardMiddleware, is_json_type, same_origin, split_host

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip
LIMITS = {"max_body": 16 * 1024, "max_upload": 256 * 1024}
MIN_CHECKS = {"csrf": 10, "rebinding": 8, "traversal": 10, "keys": 10, "limits": 4, "injection": 2}  # all ran


@pytest.fixture(scope="module")
def targets(tmp_path_factory, live_server):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    out = tmp_path_factory.mktemp("sec") / "sec"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")

    def app(key: str | None):
        llm = ScriptedLLM(default="Answer: 1446\nSources: [1]")
        indexes = IndexSet.from_specs([f"sec={out}"], Settings(retriever="bm25", retries=0), llm)
        return create_app(indexes, ServeConfig(api_key=key, max_body_bytes=LIMITS["max_body"],
                                               max_upload_bytes=LIMITS["max_upload"], default_method="oner"))

    with live_server(app(None)) as url, live_server(app("k3y-0123456789abcdef")) as kurl:
        yield Target(url, "sec", **LIMITS), Target(kurl, "sec", key="k3y-0123456789abcdef", **LIMITS)


@pytest.mark.parametrize("area", AREAS)
def test_every_check_of_the_area_holds(targets, area):
    t, keyed = targets
    checks = run_checks(t, keyed, (area,))
    assert len(checks) >= MIN_CHECKS[area], format_table(checks)
    assert all(c.passed for c in checks), "\n" + format_table([c for c in checks if not c.passed])


def test_a_write_from_an_origin_cors_allows_passes_the_guard(make_app):
    app = make_app(cors_origins=["http://ok.example"])
    with TestClient(app) as c:
        h = {"Origin": "http://ok.example", "content-type": "application/x-ndjson"}
        assert c.post("/api/indexes/demo/documents", content=b'{"id": "c", "text": "cors"}', headers=h).status_code == 200
        h["Origin"] = "http://evil.example"
        r = c.post("/api/indexes/demo/documents", content=b'{"id": "d", "text": "no"}', headers=h)
        assert r.status_code == 403 and "--cors-origin" in r.json()["error"]


def test_a_server_on_every_address_answers_any_ip_but_no_foreign_name(make_app):
    with TestClient(make_app(allowed_hosts=["0.0.0.0", "gaji.lan"]), base_url="http://192.168.1.20:8000") as c:
        assert c.get("/api/health").status_code == 200
        assert c.get("/api/health", headers={"Host": "[fe80::1]:8000"}).status_code == 200
        assert c.get("/api/health", headers={"Host": "gaji.lan"}).status_code == 200
        r = c.get("/api/health", headers={"Host": "attacker.example:8000"})
        assert r.status_code == 421 and "--allowed-host" in r.json()["error"]


def test_the_default_config_answers_only_loopback_names():
    from gaji.cli.serve_cmd import allowed_hosts
    from gaji.serve.app import ServeConfig

    policy = HostPolicy.build(ServeConfig().allowed_hosts)
    assert policy.allows("127.0.0.1") and policy.allows("localhost") and policy.allows("::1")
    assert not policy.allows("testserver") and not policy.allows("10.0.0.1") and not policy.allows("evil.example")
    assert allowed_hosts("127.0.0.1", ["gaji.lan"], env={"GAJI_ALLOWED_HOSTS": "a.example, b.example"}) == [
        "127.0.0.1", "localhost", "::1", "gaji.lan", "a.example", "b.example"]
    assert HostPolicy.build(["*"]).allows("anything.example")


def test_guard_parts():
    assert split_host("127.0.0.1:8000") == ("127.0.0.1", 8000) and split_host("[::1]:80") == ("::1", 80)
    assert split_host("Gaji.LAN.") == ("gaji.lan", None)
    for bad in ("", "a b", "user@host", "host/path", "host:99999"):
        assert split_host(bad) is None, bad
    assert same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert same_origin("https://gaji.example", "gaji.example")  # TLS ended at a proxy that kept the Host
    assert same_origin("http://localhost", "localhost:80")
    assert not same_origin("http://127.0.0.1:8001", "127.0.0.1:8000")
    assert not same_origin("http://localhost:8000", "127.0.0.1:8000")
    assert not same_origin("null", "127.0.0.1:8000") and not same_origin("http://x:bad", "x")
    assert is_json_type("application/json") and is_json_type("application/x-ndjson")
    assert is_json_type("application/merge-patch+json")
    assert not is_json_type("text/plain") and not is_json_type("") and not is_json_type("text/json")


def test_missing_host_is_400():
    guard = RequestGuardMiddleware(app=None)  # type: ignore[arg-type]
    scope = {"type": "http", "method": "GET", "path": "/", "headers": []}
    assert guard.refusal(scope)[0] == 400
    scope["headers"] = [(b"host", b"127.0.0.1:8000")]
    assert guard.refusal(scope) is None


def test_bodies_that_are_json_but_not_unicode_or_mistyped_are_400(make_app):
    with TestClient(make_app(), raise_server_exceptions=False) as c:
        for body in (b'{"question": "hi", "options": {"style": "\\ud800"}}',
                     b'{"question": "hi", "retriever": "bm\\udfff25"}',
                     b'{"question": "hi", "options": {"k": 1.5}}'):
            r = c.post("/api/ask", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 400, (body, r.text)
        r = c.post("/api/indexes/demo/documents", content=b'{"id": "a", "text": "x\\ud800"}',
                   headers={"content-type": "application/x-ndjson"})
        assert r.status_code == 400 and "unpaired surrogate" in r.json()["error"]
