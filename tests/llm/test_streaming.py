"""Streaming LLM calls: each backend hands its text out in pieces, and TrackedLLM still records the call
once with the backend's token counts (gaji/llm/streaming.py, generate_stream in every backend)."""
from __future__ import annotations

import json

import pytest

from gaji.errors import LLMError
from gaji.llm.base import LLMBackend, Request, Result
from gaji.llm.cache import CachedLLM
from gaji.llm.openai_compat import OpenAICompatLLM
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.streaming import AnswerStream
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node

MSGS = [{"role": "user", "content": "capital of Korea?"}]


def sse(*chunks: dict, done: bool = True) -> bytes:
    out = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (out + ("data: [DONE]\n\n" if done else "")).encode()


def delta(text: str) -> dict:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


FINISH = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
USAGE = {"object": "chat.completion.chunk", "choices": [],
         "usage": {"prompt_tokens": 21, "completion_tokens": 3, "total_tokens": 24,
                   "prompt_tokens_details": {"cached_tokens": 16}}}


def test_scripted_streams_its_reply_word_by_word():
    llm = ScriptedLLM(default="The capital is Seoul.")
    pieces: list[str] = []
    res = llm.generate_stream(Request(messages=MSGS), pieces.append)
    assert pieces == ["The ", "capital ", "is ", "Seoul."]
    assert "".join(pieces) == res.text == llm.generate(Request(messages=MSGS)).text
    assert res.completion_tokens == 4


def test_default_generate_stream_hands_the_whole_text_over_once():
    class Plain(LLMBackend):
        def generate(self, request: Request) -> Result:
            return Result(text="Seoul", prompt_tokens=3, completion_tokens=1)

    pieces: list[str] = []
    assert Plain().generate_stream(Request(messages=MSGS), pieces.append).text == "Seoul"
    assert pieces == ["Seoul"] and not Plain.streams


def test_openai_stream_pieces_and_usage_from_the_last_chunk(fake_openai):
    fake_openai.replies = [(200, sse({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
                                     delta("Se"), delta("oul"), FINISH, USAGE))]
    llm = OpenAICompatLLM("m", fake_openai.url, backoff_s=0.01)
    pieces: list[str] = []
    res = llm.generate_stream(Request(messages=MSGS, max_tokens=8), pieces.append)
    assert pieces == ["Se", "oul"] and res.text == "Seoul" and res.finish_reason == "stop"
    assert (res.prompt_tokens, res.completion_tokens, res.cached_tokens) == (21, 3, 16)
    path, body, headers = fake_openai.requests[0]
    assert path == "/v1/chat/completions" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True} and body["max_tokens"] == 8


def test_openai_stream_without_usage_counts_chunks_and_retries_a_refusal(fake_openai):
    fake_openai.replies = [(503, {"error": {"message": "busy"}}), (200, sse(delta("Seoul"), delta("!"), FINISH))]
    res = OpenAICompatLLM("m", fake_openai.url, backoff_s=0.01).generate_stream(Request(messages=MSGS), lambda t: None)
    assert res.text == "Seoul!" and (res.prompt_tokens, res.completion_tokens) == (0, 2)
    assert len(fake_openai.requests) == 2


def test_openai_stream_error_chunk_is_an_llm_error(fake_openai):
    fake_openai.replies = [(200, sse(delta("Se"), {"error": {"message": "the slot died"}}))]
    with pytest.raises(LLMError, match="the slot died"):
        OpenAICompatLLM("m", fake_openai.url, retries=0).generate_stream(Request(messages=MSGS), lambda t: None)


def test_tracked_llm_records_a_streamed_call_once_with_real_counts(fake_openai):
    fake_openai.replies = [(200, sse(delta("Se"), delta("oul"), FINISH, USAGE))]
    llm = TrackedLLM(OpenAICompatLLM("m", fake_openai.url))
    node, pieces = Node(), []
    res = llm.call(node, "answer", Request(messages=MSGS), on_text=pieces.append)
    assert res.text == "Seoul" and pieces == ["Se", "oul"]
    [call] = node.calls
    assert (call.prompt_tokens, call.completion_tokens, call.cached_tokens, call.output) == (21, 3, 16, "Seoul")


def test_answer_stream_takes_only_the_roots_answer_calls_and_numbers_retries_as_drafts():
    root, other = Node(kind="root"), Node(kind="sub")
    got: list = []
    state = {"n": 0}

    def flaky(req: Request) -> str:
        state["n"] += 1
        if state["n"] == 1:
            raise RuntimeError("slot lost")
        return "Busan is second"

    backend = ScriptedLLM([(r"second", flaky)], default="Seoul")
    llm = TrackedLLM(backend, retries=1, backoff_s=0).streaming(AnswerStream(root, {"answer"}, got.append))
    llm.chat(other, "answer", MSGS)  # not the root: not the answer
    llm.chat(root, "decompose", MSGS)  # not an answer purpose
    assert got == []
    assert llm.chat(root, "answer", [{"role": "user", "content": "second city?"}]) == "Busan is second"
    # the first attempt failed before any text; the retry is draft 2
    assert [(d.draft, d.text) for d in got] == [(2, "Busan "), (2, "is "), (2, "second")]
    answer_calls = [c for c in root.calls if c.purpose == "answer"]
    assert len(answer_calls) == 1 and answer_calls[0].attempts == 2 and answer_calls[0].completion_tokens == 3


def test_answer_stream_skips_json_constrained_calls():
    root, got = Node(kind="root"), []
    llm = TrackedLLM(ScriptedLLM(default='{"answer": "Seoul"}')).streaming(AnswerStream(root, {"answer"}, got.append))
    assert llm.json(root, "answer", MSGS, schema={"type": "object"}) == {"answer": "Seoul"}
    assert got == []


def test_cached_llm_streams_a_miss_and_hands_a_hit_over_whole(tmp_path):
    cached = CachedLLM(ScriptedLLM(default="The capital is Seoul"), cache_dir=tmp_path)
    first: list[str] = []
    res = cached.generate_stream(Request(messages=MSGS), first.append)
    assert first == ["The ", "capital ", "is ", "Seoul"] and not res.cache_hit
    again: list[str] = []
    hit = cached.generate_stream(Request(messages=MSGS), again.append)
    assert again == ["The capital is Seoul"] and hit.cache_hit and hit.completion_tokens == res.completion_tokens
    assert cached.streams
