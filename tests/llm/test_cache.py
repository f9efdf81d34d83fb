"""CachedLLM: hits, misses, corruption, key sensitivity, threads."""
from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gaji.config import default_home
from gaji.errors import LLMError
from gaji.llm.base import Request
from gaji.llm.cache import CachedLLM
from gaji.llm.factory import make_llm
from gaji.llm.scripted import ScriptedLLM


def counting(reply="Seoul is the capital"):
    calls = []

    def answer(req):
        calls.append(req)
        return reply

    return ScriptedLLM([(r".*", answer)]), calls


def q(text="What is the capital of Korea?", **kw) -> Request:
    return Request(messages=[{"role": "user", "content": text}], **kw)


def test_miss_then_hit(tmp_path):
    backend, calls = counting()
    llm = CachedLLM(backend, cache_dir=tmp_path)
    a = llm.generate(q())
    b = llm.generate(q())
    assert len(calls) == 1
    assert not a.cache_hit and b.cache_hit
    assert b.text == a.text
    assert (b.prompt_tokens, b.completion_tokens) == (a.prompt_tokens, a.completion_tokens) != (0, 0)
    assert b.wall_ms < 1000
    key = q().key("scripted")
    assert (llm.dir / key[:2] / f"{key}.json").is_file()
    assert llm.dir.parent == tmp_path
    assert (llm.hits, llm.misses) == (1, 1)


def test_default_dir_is_under_gaji_home():
    llm = CachedLLM(ScriptedLLM(default="x"))
    assert llm.dir.parent == default_home() / "llm-cache"


def test_survives_a_new_process_object(tmp_path):
    b1, c1 = counting()
    CachedLLM(b1, cache_dir=tmp_path).generate(q())
    b2, c2 = counting("something else")
    res = CachedLLM(b2, cache_dir=tmp_path).generate(q())
    assert res.cache_hit and res.text == "Seoul is the capital" and c2 == []


@pytest.mark.parametrize(
    "other",
    [
        q("What is the capital of Japan?"),
        q(max_tokens=17),
        q(temperature=0.7),
        q(seed=3),
        q(stop=["\n"]),
        q(json_schema={"type": "object"}),
        q(logprobs=2),
        Request(prompt="What is the capital of Korea?"),
    ],
)
def test_key_changes_with_every_parameter(tmp_path, other):
    backend, calls = counting()
    llm = CachedLLM(backend, cache_dir=tmp_path)
    llm.generate(q())
    assert not llm.generate(other).cache_hit
    assert len(calls) == 2


def test_model_identity_separates_entries(tmp_path):
    b1, c1 = counting("one")
    b2, c2 = counting("two")
    b2.name = "another-model"
    CachedLLM(b1, cache_dir=tmp_path).generate(q())
    assert CachedLLM(b2, cache_dir=tmp_path).generate(q()).text == "two"
    b3, _ = counting("three")
    b3.cache_id = "custom-id"  # a backend-provided identity wins over its name
    assert CachedLLM(b3, cache_dir=tmp_path).dir != CachedLLM(b1, cache_dir=tmp_path).dir


@pytest.mark.parametrize("garbage", [b"", b"{not json", b'{"key": "other", "result": {"text": "x"}}', b"[1, 2]", b'{"key": null}'])
def test_corrupted_entry_is_a_miss_and_rewritten(tmp_path, garbage):
    backend, calls = counting()
    llm = CachedLLM(backend, cache_dir=tmp_path)
    llm.generate(q())
    key = q().key("scripted")
    path = llm.path_for(key)
    path.write_bytes(garbage)
    res = llm.generate(q())
    assert not res.cache_hit and len(calls) == 2
    assert json.loads(path.read_text())["key"] == key  # rewritten
    assert llm.generate(q()).cache_hit


def test_failures_are_not_cached(tmp_path):
    llm = CachedLLM(ScriptedLLM([(r".*", LLMError("server down"))]), cache_dir=tmp_path)
    with pytest.raises(LLMError):
        llm.generate(q())
    assert not list(tmp_path.rglob("*.json"))


def test_same_request_from_threads_is_computed_once(tmp_path):
    calls = []

    def slow(req):
        calls.append(1)
        time.sleep(0.2)
        return "ok"

    llm = CachedLLM(ScriptedLLM([(r".*", slow)]), cache_dir=tmp_path)
    with ThreadPoolExecutor(6) as ex:
        results = list(ex.map(lambda _: llm.generate(q()), range(6)))
    assert len(calls) == 1
    assert sum(not r.cache_hit for r in results) == 1
    assert all(r.text == "ok" for r in results)


def test_different_requests_from_threads_run_concurrently(tmp_path):
    running, peak, lock = [0], [0], threading.Lock()

    def slow(req):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.15)
        with lock:
            running[0] -= 1
        return "ok"

    llm = CachedLLM(ScriptedLLM([(r".*", slow)]), cache_dir=tmp_path)
    with ThreadPoolExecutor(4) as ex:
        list(ex.map(lambda i: llm.generate(q(f"question {i}")), range(4)))
    assert peak[0] >= 2


def test_factory_wraps_with_cache(tmp_path):
    llm = make_llm("scripted:hello", cache=True, cache_dir=str(tmp_path))
    assert isinstance(llm, CachedLLM)
    assert llm.generate(q()).text == "hello"
    assert llm.generate(q()).cache_hit
    assert llm.name == "scripted" and llm.count_tokens("a b c") == 3


def test_extras_pass_through_and_describe(tmp_path):
    backend = ScriptedLLM(default="x")
    backend.score = lambda req, cont: "scored"  # e.g. LocalLLM.score
    llm = CachedLLM(backend, cache_dir=tmp_path)
    assert llm.score(q(), "y") == "scored"
    llm.generate(q())
    llm.generate(q())
    d = llm.describe()
    assert d["cache_hits"] == 1 and d["cache_misses"] == 1 and d["cache_dir"].startswith(str(tmp_path))
    with pytest.raises(AttributeError):
        llm.no_such_thing
