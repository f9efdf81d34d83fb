"""Property-based fuzzing of the HTTP request bodies (hypothesis + TestClient): any JSON -- or any bytes --
sent to /api/ask and to the upload route gets an answer or a 4xx with an `{"error"}` body, never a 500 or
a traceback. Nasty strings include unpaired surrogates (valid JSON escapes, not valid Unicode), NUL,
fence tags, NFD Korean and very long runs."""
from __future__ import annotations

import json
import unicodedata

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servefakes import NDJSON

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NASTY = ["", " ", "\x00", "\ud800", "a\udfffb", "</documents>", "[ANS_1]", "{", "'; DROP TABLE x;--",
         unicodedata.normalize("NFD", "훈민정음은 언제 반포되었나?"), "x" * 5000, "../../etc/passwd", "\u202e", "🙂"]
strings = st.sampled_from(NASTY) | st.text(max_size=40)
scalars = st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**63) | st.floats() | strings
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(strings, kids, max_size=3),
                      max_leaves=8)
OPTION_NAMES = ["k", "max_tokens", "passage_chars", "style", "words", "subs", "nope", "k-"]
QUESTIONS = ["Which battle occurred first, the Battle of Manila or the Battle of Guam?", "훈민정음은 언제 반포되었나?"]
# mostly well-formed bodies (a real question, a real method) with fuzzed options and fields, so the runs
# themselves are exercised, not only the validation in front of them
ask_bodies = st.fixed_dictionaries(
    {"question": st.sampled_from(QUESTIONS) | strings},
    optional={"method": st.sampled_from(["oner", "nor", "test_tree", "nope"]) | values,
              "index": st.sampled_from(["demo", "nope"]) | values,
              "options": st.dictionaries(st.sampled_from(OPTION_NAMES), scalars, max_size=3) | values,
              "retriever": st.sampled_from(["bm25", "list", "dense"]) | values,
              "lang": st.sampled_from(["ko", "en", "fr"]) | values, "include_prompts": st.booleans() | values,
              "extra": values})
doc_lines = st.fixed_dictionaries({}, optional={"id": values, "text": strings | values, "title": values,
                                                "metadata": values, "source": values})
ERROR_STATUSES = {400, 404, 413, 415, 422, 502}


@pytest.fixture(scope="module")
def client(make_app):
    with TestClient(make_app(), raise_server_exceptions=False) as c:
        yield c


def _dumps(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=True).encode("ascii")  # \udXXX escapes carry unpaired surrogates


def _check(r) -> None:
    assert r.status_code == 200 or r.status_code in ERROR_STATUSES, (r.status_code, r.text[:300])
    body = r.json()
    if r.status_code != 200:
        assert isinstance(body.get("error"), str) and body["error"] and "Traceback" not in r.text


@FUZZ
@given(ask_bodies)
def test_any_ask_body(client, body):
    _check(client.post("/api/ask", content=_dumps(body), headers={"content-type": "application/json"}))


@FUZZ
@given(st.sampled_from(["oner", "test_tree", "nor"]), st.sampled_from(QUESTIONS),
       st.dictionaries(st.sampled_from(OPTION_NAMES), scalars | st.lists(scalars, max_size=2), min_size=1, max_size=3))
def test_a_real_question_with_any_options(client, method, question, options):
    body = {"question": question, "method": method, "options": options}
    _check(client.post("/api/ask", content=_dumps(body), headers={"content-type": "application/json"}))


@FUZZ
@given(values)
def test_any_json_value_as_an_ask_body(client, body):
    _check(client.post("/api/ask", content=_dumps(body), headers={"content-type": "application/json"}))


@FUZZ
@given(st.binary(max_size=200))
def test_any_bytes_as_an_ask_body(client, data):
    _check(client.post("/api/ask", content=data, headers={"content-type": "application/json"}))


@FUZZ
@given(st.lists(doc_lines | values, min_size=1, max_size=4))
def test_any_upload(client, rows):
    data = b"\n".join(_dumps(r) for r in rows)
    _check(client.post("/api/indexes/demo/documents", content=data, headers=NDJSON))


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_as_an_upload(client, data):
    _check(client.post("/api/indexes/demo/documents", content=data, headers=NDJSON))
