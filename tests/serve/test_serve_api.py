"""The HTTP API with a ScriptedLLM and an in-memory index: answers, errors, auth, limits, uploads, metrics."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from servefakes import NDJSON

EN_Q = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
KO_Q = "훈민정음은 언제 반포되었나?"


@pytest.fixture
def client(make_app):
    with TestClient(make_app()) as c:
        yield c


def test_ask_returns_answer_citations_and_trace(client):
    r = client.post("/api/ask", json={"question": EN_Q, "options": {"k": 2}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["answer"] == "Battle of Guam" and body["status"] == "ok"
    assert body["citations"][0]["title"] == "Battle of Guam"
    assert body["trace"]["method"] == "oner" and body["trace"]["root"]["passage_ids"]
    assert body["usage"]["calls"] == 1
    # prompts are dropped unless asked for (they repeat every passage)
    assert body["trace"]["root"]["calls"][0]["prompt"] is None
    r = client.post("/api/ask", json={"question": EN_Q, "include_prompts": True})
    assert "<documents>" in json.dumps(r.json()["trace"]["root"]["calls"][0]["prompt"])


def test_ask_a_tree_method_in_korean(client):
    r = client.post("/api/ask", json={"question": KO_Q, "method": "test_tree", "index": "demo"})
    assert r.status_code == 200, r.text
    t = r.json()["trace"]
    assert r.json()["answer"] == "1446년" and t["lang"] == "ko"
    subs = t["root"]["children"]
    assert [s["answer"] for s in subs] == ["세종", "1446년"]
    assert subs[1]["question"].startswith("[ANS_1]") and subs[1]["filled_question"].startswith("세종")


def test_chain_uses_the_index_it_is_served_with(make_app, scripted):
    """chain's retriever is optional (closed book without an index); the service must hand it the index."""
    llm = scripted(_extra=[(r"Main question:", "When was the Battle of Guam?"), (r"Short answer:", "1944"),
                           (r"Final answer:", "Battle of Guam")])
    with TestClient(make_app(llm=llm)) as client:
        r = client.post("/api/ask", json={"question": EN_Q, "method": "chain", "options": {"max_length": 1}})
        assert r.status_code == 200, r.text
        root = r.json()["trace"]["root"]
        assert root["passage_ids"] and root["children"][0]["passage_ids"]  # D(Q) and D_1 retrieved
        r = client.post("/api/ask", json={"question": EN_Q, "method": "chain",
                                          "options": {"max_length": 1, "closed_book": True}})
        assert r.status_code == 200, r.text
        assert not r.json()["trace"]["root"]["passage_ids"]


def test_methods_and_indexes(client):
    m = client.get("/api/methods").json()
    names = {x["name"]: x for x in m["methods"]}
    assert "oner" in names and "test_tree" in names and m["default"] == "oner"
    assert {"name": "k", "type": "int", "default": 2} in names["test_tree"]["options"]
    assert client.get("/api/indexes").json() == {"indexes": [{"name": "demo", "default": True, "status": "ok"}]}
    st = client.get("/api/indexes/demo").json()
    assert st["chunks"] == 4 and st["status"] == "ok"
    assert "/secret" not in json.dumps(st)  # no filesystem paths reach clients


def test_unknown_index_and_method_are_404(client):
    r = client.post("/api/ask", json={"question": "q", "index": "nope"})
    assert r.status_code == 404 and "unknown index 'nope'" in r.json()["error"]
    r = client.post("/api/ask", json={"question": "q", "method": "nope"})
    assert r.status_code == 404 and "unknown method" in r.json()["error"]
    assert client.get("/api/indexes/nope").status_code == 404
    assert client.post("/api/indexes/nope/documents", content=b'{"id":"a","text":"b"}', headers=NDJSON).status_code == 404


def test_bad_input_is_400_with_a_message(client):
    cases = [
        ({"question": ""}, "question"),
        ({"question": "   "}, "empty question"),
        ({"question": "q", "methd": "oner"}, "methd"),
        ({"question": "q", "options": {"nope": 1}}, "has no option 'nope'"),
        ({"question": "q", "options": {"k": "many"}}, "cannot read 'many'"),
        ({"question": "q", "method": "ircot", "options": {"reader": "bogus"}}, "reader must be one of"),
        ({"question": "q", "method": "chain", "options": {"stop": "sometimes"}}, "stop must be one of"),
        ({"question": "q", "lang": "fr"}, "lang"),
    ]
    for body, needle in cases:
        r = client.post("/api/ask", json=body)
        assert r.status_code == 400, (body, r.text)
        assert needle in r.json()["error"], (body, r.json())
    r = client.post("/api/ask", content=b"{bad json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]


def test_auth_on(make_app):
    with TestClient(make_app(api_key="s3cret")) as c:
        assert c.get("/api/health").status_code == 200
        r = c.get("/api/methods")
        assert r.status_code == 401 and "missing API key" in r.json()["error"]
        assert r.headers["www-authenticate"].startswith("Bearer")
        assert c.get("/api/methods", headers={"X-API-Key": "wrong"}).json() == {"error": "bad API key"}
        assert c.get("/api/methods", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert c.get("/api/metrics", headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.post("/api/ask", json={"question": EN_Q}).status_code == 401
        assert c.post("/api/ask", json={"question": EN_Q}, headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.get("/openapi.json").status_code == 401
        assert c.get("/").status_code == 200  # the page itself holds no data; it asks for the key


def test_auth_off_and_page_and_openapi(client):
    assert client.get("/api/methods").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    spec = client.get("/openapi.json").json()
    assert "/api/ask/stream" in spec["paths"] and "/api/indexes/{name}/documents" in spec["paths"]
    assert client.get("/docs").status_code == 404  # the Swagger page needs a CDN: off (offline)


def test_cors_is_off_by_default_and_on_for_listed_origins(make_app):
    with TestClient(make_app()) as c:
        r = c.get("/api/health", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in r.headers
    with TestClient(make_app(cors_origins=["http://ok.example"])) as c:
        assert c.get("/api/health", headers={"Origin": "http://ok.example"}).headers[
            "access-control-allow-origin"] == "http://ok.example"
        assert "access-control-allow-origin" not in c.get("/api/health", headers={"Origin": "http://evil.example"}).headers


def test_body_size_limits(make_app):
    with TestClient(make_app(max_body_bytes=1000, max_upload_bytes=2048)) as c:
        r = c.post("/api/ask", json={"question": "x" * 2000})
        assert r.status_code == 413 and "too large" in r.json()["error"]

        def chunks():  # no Content-Length: counted as it streams
            for _ in range(10):
                yield b'{"id": "a", "text": "' + b"y" * 300 + b'"}\n'

        r = c.post("/api/indexes/demo/documents", content=chunks(), headers=NDJSON)
        assert r.status_code == 413 and "2 KiB" in r.json()["error"]
        ok = b'{"id": "a", "text": "small"}\n'
        assert c.post("/api/indexes/demo/documents", content=ok, headers=NDJSON).status_code == 200


def test_upload_documents_then_ask_finds_them(client):
    data = "\n".join(json.dumps(d, ensure_ascii=False) for d in [
        {"id": "ko-hangul-day", "title": "한글날", "text": "한글날은 10월 9일이다.", "lang": "ko"},
        {"id": 7, "text": "Seven is a number.", "metadata": {"src": "t"}},
    ]).encode("utf-8")
    r = client.post("/api/indexes/demo/documents", content=data, headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    assert r.json()["added"] == 2 and r.json()["status"]["chunks"] == 6
    r = client.post("/api/ask", json={"question": "한글날은 언제인가", "options": {"k": 1}})
    assert r.json()["trace"]["root"]["passage_ids"] == ["ko-hangul-day"]


def test_bad_upload_is_400_with_line_numbers(client):
    data = b'{"id": "a", "text": "fine"}\n\n{"id": "b"}\nnot json\n{"id": "a", "text": "dup"}\n[1]\n{"id": "c", "text": "x", "title": 3}\n'
    r = client.post("/api/indexes/demo/documents", content=data, headers=NDJSON)
    assert r.status_code == 400
    body = r.json()
    assert body["line"] == 3 and body["field"] == "text"
    assert body["error"].startswith("upload:3 (field 'text'):")
    assert [(e["line"], e["field"]) for e in body["errors"]] == [(3, "text"), (4, None), (5, "id"), (6, None), (7, "title")]
    assert "first on line 1" in body["errors"][2]["message"]
    assert client.get("/api/indexes/demo").json()["chunks"] == 4  # nothing was added
    r = client.post("/api/indexes/demo/documents", content=b"\xff\xfe\n", headers=NDJSON)
    assert r.status_code == 400 and "not UTF-8" in r.json()["error"]
    assert client.post("/api/indexes/demo/documents", content=b"\n\n", headers=NDJSON).status_code == 400


def test_metrics_count_requests_outcomes_and_tokens(client):
    for _ in range(3):
        assert client.post("/api/ask", json={"question": EN_Q}).status_code == 200
    assert client.post("/api/ask", json={"question": EN_Q, "index": "nope"}).status_code == 404
    m = client.get("/api/metrics").json()
    assert m["requests"]["by_route"]["POST /api/ask"] == 4
    assert m["requests"]["by_status"]["200"] == 3 and m["requests"]["by_status"]["404"] == 1
    assert m["questions"]["by_outcome"] == {"ok": 3}
    assert m["latency_ms"]["count"] == 3 and m["latency_ms"]["p50"] is not None and m["latency_ms"]["p95"] >= m["latency_ms"]["p50"]
    assert m["tokens"]["prompt"] > 0 and m["llm"]["calls"] == 3
    assert m["queue"]["running"] == 0 and m["queue"]["slots"] == 4


@pytest.mark.parametrize("method, options, needle", [
    ("oner", {"k": 1e9}, "option 'k' of method 'oner' must be between 1 and 100, not 1000000000"),
    ("oner", {"k": -5}, "option 'k' of method 'oner' must be between 1 and 100, not -5"),
    ("toq", {"max_depth": 10**6}, "option 'max_depth' of method 'toq' must be between 1 and 8"),
    ("ircot", {"max_steps": 10**6}, "option 'max_steps' of method 'ircot' must be between 1 and 50"),
])
def test_an_option_out_of_range_is_400_on_every_ask_route_before_any_llm_call(make_app, scripted, method, options,
                                                                              needle):
    llm = scripted()
    body = {"question": EN_Q, "method": method, "options": options}
    chat = {"model": f"gaji-{method}", "messages": [{"role": "user", "content": EN_Q}], "gaji": {"options": options}}
    with TestClient(make_app(llm=llm)) as c:
        ask = c.post("/api/ask", json=body)
        stream = c.post("/api/ask/stream", json=body)
        v1 = c.post("/v1/chat/completions", json=chat)
        v1_stream = c.post("/v1/chat/completions", json={**chat, "stream": True})
    for r in (ask, stream):
        assert r.status_code == 400 and r.headers["content-type"].startswith("application/json"), r.text
        assert needle in r.json()["error"]
    for r in (v1, v1_stream):
        assert r.status_code == 400, r.text
        assert r.json()["error"]["type"] == "invalid_request_error" and needle in r.json()["error"]["message"]
    assert llm.requests == []


def test_methods_lists_recipes_with_their_words_and_the_knobs(client):
    m = client.get("/api/methods").json()
    by_name = {r["name"]: r for r in m["recipes"]}
    tree = by_name["tree"]
    assert tree["method"] == "toq" and tree["ref"] == "tree@1" and tree["options"]["decomposer"] == "routed"
    assert tree["title_ko"] == "질문 트리" and tree["title_en"] and tree["help_ko"] and tree["help_en"]
    assert {"passages", "depth", "lang"} <= set(tree["knobs"]) and by_name["closed"]["knobs"] == ["lang"]
    assert by_name["closed"]["needs_retriever"] is False
    knobs = {k["name"]: k for k in m["knobs"]}
    assert knobs["passages"]["option"] == "k" and knobs["lang"]["request_field"] == "lang"
    assert knobs["lang"]["choices"] == ["auto", "ko", "en"] and knobs["depth"]["title_ko"] == "트리 깊이"
    assert "passages" in {x["name"]: x for x in m["methods"]}["oner"]["knobs"]


def test_a_recipe_is_asked_for_like_a_method_and_the_trace_says_so(client):
    r = client.post("/api/ask", json={"question": EN_Q, "method": "one", "options": {"k": 2}})
    assert r.status_code == 200, r.text
    t = r.json()["trace"]
    assert t["method"] == "oner" and t["recipe"] == "one@1" and t["params"]["passage_trim"] == "relevant"
    r = client.post("/api/ask", json={"question": EN_Q, "method": "tree@7"})
    assert r.status_code == 404 and "known methods and recipes" in r.json()["error"]
    r = client.post("/api/ask", json={"question": EN_Q, "method": "one", "options": {"passage_trim": "middle"}})
    assert r.status_code == 400 and "passage_trim" in r.json()["error"]


def test_v1_model_names_take_recipes():
    from gaji.serve.chat import offered_models, parse_model
    from gaji.serve.errors import ApiError

    class Indexes:
        default = "demo"

        def names(self):
            return ["demo"]

    assert parse_model("gaji-tree@demo", "gaji-oner") == ("tree", "demo")
    assert parse_model("gaji-toq-paper", "gaji-oner") == ("toq-paper", None)
    with pytest.raises(ApiError, match="methods and recipes: .*chain-ircot"):
        parse_model("gaji-forest", "gaji-oner")
    cards = {m["id"]: m for m in offered_models(Indexes(), "gaji-oner", 0)}
    assert {"gaji-tree", "gaji-tree@demo", "gaji-one", "gaji-closed", "gaji-toq-paper@demo"} <= set(cards)
    assert cards["gaji-tree@demo"]["gaji"]["name_ko"].startswith("질문 트리")  # the recipe's own words
    assert cards["gaji-tree"]["gaji"]["method"] == "tree"
