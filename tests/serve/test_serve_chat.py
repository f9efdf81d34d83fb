"""The OpenAI-compatible API, driven by the official `openai` client against a live `gaji serve` on loopback
(uvicorn in a thread, a free port, the scripted LLM), streamed and not."""
from __future__ import annotations

from dataclasses import dataclass

import httpx
import pytest

openai = pytest.importorskip("openai", reason="the openai client is in the `test` extra")

from gaji.history.keys import KeyStore  # noqa: E402
from gaji.history.store import HistoryStore  # noqa: E402
from gaji.methods.base import Method  # noqa: E402
from gaji.registry import METHODS  # noqa: E402

KEY = "s3cret-key"
QUESTION = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
FOLLOW = "When did it end?"
STANDALONE = "When did the Battle of Guam end?"


@pytest.fixture
def store(tmp_path):
    s = HistoryStore.open(str(tmp_path / "history.sqlite3"))
    yield s
    s.close()


@pytest.fixture
def chat_app(make_app, scripted, store):
    llm = scripted(**{
        r"(?:Question|질문):": "Battle of Guam",
        "_extra": [(r"Last question: When did it end\?", STANDALONE)],
    })
    llm.stream_delay_s = 0.01
    return make_app(llm=llm, api_key=KEY, history=store)


def client(url: str, key: str = KEY) -> "openai.OpenAI":
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=30)


@METHODS.register("test_redraft", help="test double: answers the root, then answers it again")
class Redraft(Method):
    name = "test_redraft"
    needs_retriever = False

    @dataclass
    class Options:
        pass

    def solve(self, trace, ctx):
        ctx.llm.chat(trace.root, "answer", [{"role": "user", "content": "FIRST DRAFT"}])
        trace.answer = ctx.llm.chat(trace.root, "answer", [{"role": "user", "content": "SECOND DRAFT"}])


def test_openai_client_gets_an_answer_with_citations_and_real_usage(chat_app, live_server, store):
    with live_server(chat_app) as url:
        resp = client(url).chat.completions.create(
            model="gaji-oner", messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": QUESTION}])
        extra = resp.model_extra["gaji"]
        trace = httpx.get(f"{url}{extra['trace_url']}", headers={"Authorization": f"Bearer {KEY}"}).json()
    assert resp.object == "chat.completion" and resp.model == "gaji-oner"
    content = resp.choices[0].message.content
    # the answer, its markers, the evidence sentence, the sources with their passage links
    assert content.startswith("Battle of Guam [1][2]\n\nEvidence: The Battle of Guam was fought from 21 July")
    assert "\n\n**Sources**\n[1] [Battle of Guam](http://127.0.0.1:" in content
    assert resp.choices[0].finish_reason == "stop"
    marks = [a.url_citation for a in resp.choices[0].message.annotations]
    assert [content[m.start_index:m.end_index] for m in marks] == ["[1]", "[2]"]
    assert [m.title for m in marks] == ["Battle of Guam", "Battle of Manila"] and marks[0].url in content
    assert resp.id == "chatcmpl-" + extra["trace_id"]
    assert [c["id"] for c in extra["citations"]] == ["en-guam", "en-manila"]  # the answer's passage, then the compared one
    assert extra["citations"][0]["title"] == "Battle of Guam" and extra["citations"][0]["n"] == 1
    assert extra["method"] == "oner" and extra["status"] == "ok" and extra["question"] == QUESTION
    # usage: the real counts of every LLM call, as the stored trace has them
    calls = [c for n in walk(trace["trace"]["root"]) for c in n["calls"]]
    assert resp.usage.prompt_tokens == sum(c["prompt_tokens"] for c in calls) > 0
    assert resp.usage.completion_tokens == sum(c["completion_tokens"] for c in calls) > 0
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    rec = store.question(extra["trace_id"])
    # the history keeps what the client was shown
    assert (rec.endpoint, rec.client, rec.answer, rec.prompt_tokens) == ("chat", "default", content,
                                                                          resp.usage.prompt_tokens)


def test_streaming_sends_standard_chunks_token_by_token(chat_app, live_server, store):
    with live_server(chat_app) as url:
        stream = client(url).chat.completions.create(
            model="gaji-oner@demo", messages=[{"role": "user", "content": QUESTION}], stream=True,
            stream_options={"include_usage": True})
        chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" and c.model == "gaji-oner@demo" for c in chunks)
    assert len({c.id for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert pieces[:3] == ["Battle ", "of ", "Guam"]  # the answer call, streamed as the model wrote it
    assert pieces[3].startswith(" [1][2]\n\nEvidence: ") and "**Sources**" in pieces[3]  # then the rest, once
    marks = [a for c in chunks if c.choices for a in (c.choices[0].delta.model_extra.get("annotations") or [])]
    assert [m["type"] for m in marks] == ["url_citation", "url_citation"]
    finish = [c for c in chunks if c.choices and c.choices[0].finish_reason][0]
    assert finish.choices[0].finish_reason == "stop"
    extra = finish.model_extra["gaji"]
    assert [c["id"] for c in extra["citations"]] == ["en-guam", "en-manila"] and extra["index"] == "demo"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0
    rec = store.question(extra["trace_id"], trace=True)
    assert chunks[-1].usage.prompt_tokens == rec.prompt_tokens and rec.index == "demo"


def test_a_follow_up_in_the_messages_is_rewritten_and_counted(chat_app, live_server, store):
    msgs = [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": "Battle of Guam"},
            {"role": "user", "content": FOLLOW}]
    with live_server(chat_app) as url:
        resp = client(url).chat.completions.create(model="gaji", messages=msgs)
        again = client(url).chat.completions.create(model="gaji", messages=msgs)
    extra = resp.model_extra["gaji"]
    assert resp.model == "gaji-oner" and extra["question"] == STANDALONE
    rec = store.question(extra["trace_id"], trace=True)
    rewrite = rec.trace["root"]["children"][0]
    assert (rewrite["kind"], rewrite["question"], rewrite["filled_question"]) == ("rewrite", FOLLOW, STANDALONE)
    assert [c["purpose"] for c in rewrite["calls"]] == ["rewrite"]
    assert resp.usage.prompt_tokens == sum(c["prompt_tokens"] for n in walk(rec.trace["root"]) for c in n["calls"])
    assert rec.standalone == STANDALONE and rec.question == FOLLOW
    # one chat (the same first question from the same client) is one conversation
    assert again.model_extra["gaji"]["conversation_id"] == extra["conversation_id"]


def test_models_lists_what_the_server_offers(chat_app, live_server):
    with live_server(chat_app) as url:
        ids = [m.id for m in client(url).models.list()]
        one = client(url).models.retrieve("gaji-toq@demo")
    assert ids[0] == "gaji-oner"  # the default model first
    assert {"gaji-oner", "gaji-oner@demo", "gaji-toq", "gaji-toq@demo", "gaji-nor"} <= set(ids)
    assert one.id == "gaji-toq@demo" and one.owned_by == "gaji"


def test_errors_come_in_openai_shape(chat_app, live_server):
    with live_server(chat_app) as url:
        c = client(url)
        with pytest.raises(openai.NotFoundError, match="unknown model 'gpt-4o'"):
            c.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "q"}])
        with pytest.raises(openai.NotFoundError, match="unknown index 'nope'"):
            c.chat.completions.create(model="gaji-oner@nope", messages=[{"role": "user", "content": "q"}])
        with pytest.raises(openai.BadRequestError, match="the last message must be the user"):
            c.chat.completions.create(model="gaji-oner", messages=[{"role": "assistant", "content": "hi"}])
        with pytest.raises(openai.AuthenticationError):
            client(url, "wrong").chat.completions.create(model="gaji-oner", messages=[{"role": "user", "content": "q"}])
        r = httpx.post(f"{url}/v1/chat/completions", headers={"Authorization": f"Bearer {KEY}"},
                       json={"model": "gaji-oner"})
        r401 = httpx.get(f"{url}/v1/models")
        form = httpx.post(f"{url}/v1/chat/completions", headers={"Authorization": f"Bearer {KEY}"},
                          content=b"{}")  # no JSON content type: what a cross-site form could send
    assert form.status_code == 415
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["type"] == "invalid_request_error" and "messages" in err["message"]
    assert r401.status_code == 401 and r401.json()["error"]["code"] == "invalid_api_key"


def test_named_keys_work_as_openai_keys_and_are_revoked_without_a_restart(chat_app, live_server, store):
    keys = KeyStore(store.db)
    _, alice = keys.add("alice")
    with live_server(chat_app) as url:
        resp = client(url, alice).chat.completions.create(model="gaji-nor",
                                                          messages=[{"role": "user", "content": QUESTION}])
        tid = resp.model_extra["gaji"]["trace_id"]
        mine = httpx.get(f"{url}/api/traces/{tid}", headers={"Authorization": f"Bearer {alice}"})
        _, bob = keys.add("bob")
        theirs = httpx.get(f"{url}/api/traces/{tid}", headers={"Authorization": f"Bearer {bob}"})
        admin = httpx.get(f"{url}/api/traces/{tid}", headers={"X-API-Key": KEY})
        keys.revoke("alice")
        with pytest.raises(openai.AuthenticationError):
            client(url, alice).chat.completions.create(model="gaji-nor", messages=[{"role": "user", "content": "q"}])
    assert store.question(tid).client == "alice"
    assert mine.status_code == 200 and admin.status_code == 200
    assert theirs.status_code == 404  # another client's trace is not there for bob


def walk(node: dict):
    yield node
    for c in node.get("children", []):
        yield from walk(c)


def test_a_method_that_answers_again_streams_a_second_draft(make_app, scripted, live_server):
    llm = scripted(_extra=[(r"FIRST DRAFT", "Battle of Manila"), (r"SECOND DRAFT", "Battle of Guam")])
    with live_server(make_app(llm=llm, api_key=KEY)) as url:
        chunks = list(client(url).chat.completions.create(
            model="gaji-test_redraft", stream=True, messages=[{"role": "user", "content": QUESTION}]))
        plain = client(url).chat.completions.create(model="gaji-test_redraft",
                                                      messages=[{"role": "user", "content": QUESTION}])
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Battle of Manila\n\n↻ Battle of Guam"  # the revision follows the first draft
    assert plain.choices[0].message.content == "Battle of Guam"  # the final answer only
    assert plain.usage.completion_tokens == 6 and plain.model_extra["gaji"]["llm_calls"] == 2


def test_an_option_out_of_range_is_a_bad_request_for_the_openai_client(chat_app, live_server):
    with live_server(chat_app) as url:
        with pytest.raises(openai.BadRequestError, match=r"option 'k' of method 'oner' must be between 1 and 100"):
            client(url).chat.completions.create(model="gaji-oner", messages=[{"role": "user", "content": QUESTION}],
                                                extra_body={"gaji": {"options": {"k": 10**9}}})
