"""/v1 says what it honours: refused fields come back as OpenAI 400s naming the field, json_object is
honoured, a "continue" request is refused plainly, and /v1/models names and describes each model."""
from __future__ import annotations

import json

import pytest

from gaji import recipes
from gaji.messages import text
from gaji.registry import METHODS

openai = pytest.importorskip("openai", reason="the openai client is in the `test` extra")

KEY = "s3cret-key"
Q = [{"role": "user", "content": "Which battle occurred first, the Battle of Manila or the Battle of Guam?"}]


def client(url: str) -> "openai.OpenAI":
    return openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0, timeout=180)


@pytest.mark.parametrize("field, value", [
    ("tools", [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]),
    ("tool_choice", "required"),
    ("response_format", {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}),
    ("logprobs", True),
    ("frobnicate", 1),
])
def test_what_gaji_cannot_honour_is_a_400_naming_the_field(make_app, scripted, live_server, field, value):
    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        with pytest.raises(openai.BadRequestError) as e:
            client(url).chat.completions.create(model="gaji-oner", messages=Q, extra_body={field: value})
    err = e.value.body
    assert err["param"] == field and err["message"].startswith(f"{field}: ") and err["type"] == "invalid_request_error"


def test_off_values_and_sampling_knobs_pass_and_are_listed(make_app, scripted, live_server):
    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        r = client(url).chat.completions.create(model="gaji-oner", messages=Q, temperature=0.2, max_tokens=50,
                                                tool_choice="none", extra_body={"tools": []})
    assert sorted(r.model_extra["gaji"]["ignored"]) == ["max_tokens", "temperature"]
    assert r.choices[0].message.content.startswith("Battle of Guam")


def test_json_object_is_honoured_streamed_or_not(make_app, scripted, live_server):
    llm = scripted(**{r"(?:Question|질문):": 'Answer: ```json {"budget": 412}```\nSources: [1]'})
    with live_server(make_app(llm=llm, api_key=KEY)) as url:
        c = client(url)
        plain = c.chat.completions.create(model="gaji-oner", messages=Q, response_format={"type": "json_object"})
        chunks = list(c.chat.completions.create(model="gaji-oner", messages=Q, stream=True,
                                                response_format={"type": "json_object"}))
        other = c.chat.completions.create(model="gaji-oner@demo", messages=Q, response_format={"type": "json_object"},
                                          extra_body={"gaji": {"options": {"k": 1}}})
    assert json.loads(plain.choices[0].message.content) == {"budget": 412}
    streamed = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
    assert streamed == plain.choices[0].message.content  # nothing until the object is whole
    assert isinstance(json.loads(other.choices[0].message.content), dict)


def test_json_object_wraps_a_plain_answer(make_app, scripted, live_server):
    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        r = client(url).chat.completions.create(model="gaji-oner", messages=Q, response_format={"type": "json_object"})
    obj = json.loads(r.choices[0].message.content)
    assert obj["answer"] == "Battle of Guam" and obj["sources"][0]["label"] == "Battle of Guam"
    assert obj["sources"][0]["url"].startswith("http://127.0.0.1:")


def test_continue_is_refused_with_a_clear_message(make_app, scripted, live_server):
    msgs = Q + [{"role": "assistant", "content": "The Battle of"}]
    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        with pytest.raises(openai.BadRequestError) as e:
            client(url).chat.completions.create(model="gaji-oner", messages=msgs)
    msg = e.value.body["message"]
    assert "continue" in msg and "cannot continue a reply" in msg and "이어 쓰지 않습니다" in msg
    assert e.value.body["param"] == "messages"


def test_models_have_names_and_descriptions_in_both_languages(make_app, scripted, live_server):
    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        models = client(url).models.list().data
    by_id = {m.id: m.model_extra for m in models}
    toq = by_id["gaji-toq@demo"]
    assert toq["name"] == "질문 트리 (Question tree) · index demo"
    assert "작은 질문으로 나누어" in toq["description"] and "smaller ones" in toq["description"]
    assert toq["gaji"] == {"method": "toq", "index": "demo", "name_ko": "질문 트리 · 색인 demo",
                           "name_en": "Question tree · index demo",
                           "description_ko": text("method.toq.help", "ko"), "description_en": text("method.toq.help", "en")}
    assert by_id["gaji-tree"]["gaji"]["name_ko"] == "질문 트리 · tree@1 · 기본 색인 (demo)"  # a recipe says it is one
    names = [m["name"] for m in by_id.values()]
    assert len(set(names)) == len(names)  # a person can tell every model apart
    for card in by_id.values():  # every name and description is the message table's, in both languages
        method = card["gaji"]["method"]
        if method not in recipes.RECIPES and not METHODS.get(method).__module__.startswith("gaji."):
            continue  # a test double a test module registered
        assert card["gaji"]["name_en"].startswith(text(f"method.{method}", "en")), card
        assert card["gaji"]["name_ko"].startswith(text(f"method.{method}", "ko")), card
        assert card["gaji"]["description_ko"] == text(f"method.{method}.help", "ko"), card
        assert card["gaji"]["description_en"] == text(f"method.{method}.help", "en"), card


def test_reasoning_effort_is_auto_s_effort_and_ignored_elsewhere(make_app, scripted, live_server):
    from gaji.serve.chat import ChatRequest, apply_reasoning_effort

    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        c = client(url)
        auto = c.chat.completions.create(model="gaji-auto", messages=Q, reasoning_effort="high")
        oner = c.chat.completions.create(model="gaji-oner", messages=Q, reasoning_effort="high")
        with pytest.raises(openai.BadRequestError) as e:
            c.chat.completions.create(model="gaji-auto", messages=Q, extra_body={"reasoning_effort": "extreme"})
    assert "reasoning_effort" not in auto.model_extra["gaji"].get("ignored", [])
    assert "reasoning_effort" in oner.model_extra["gaji"]["ignored"]
    assert e.value.body["param"] == "reasoning_effort"
    req = ChatRequest(model="gaji-auto", messages=Q, reasoning_effort="minimal")
    assert apply_reasoning_effort(req, "auto", {}, ["reasoning_effort"]) == ({"effort": "low"}, [])
    assert apply_reasoning_effort(req, "auto", {"effort": "high"}, [])[0] == {"effort": "high"}  # gaji's own wins
    assert apply_reasoning_effort(req, "oner", {}, ["reasoning_effort"]) == ({}, ["reasoning_effort"])
