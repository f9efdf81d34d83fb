"""The embedded backend. Unit checks run everywhere; `model` tests run the real 0.5B GGUF."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from gaji.errors import ConfigError, LLMError
from gaji.llm import local
from gaji.llm.base import Request
from gaji.llm.factory import make_llm
from gaji.llm.local import LocalLLM, gbnf_literal, resolve_model
from gaji.llm.tracked import TrackedLLM
from gaji.registry import LLM_BACKENDS
from gaji.types import Node


# -- without a model --------------------------------------------------------------------------------
def test_registered():
    assert {"local", "openai", "scripted"} <= set(LLM_BACKENDS.names())


def test_per_slot_context_must_be_enough(tmp_path):
    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF")
    with pytest.raises(ConfigError, match=r"leaves 1024 tokens per slot.*--ctx-size to 16384"):
        LocalLLM(f, parallel=8, ctx_size=8192)
    with pytest.raises(ConfigError, match="at least 1"):
        LocalLLM(f, parallel=-1)


def test_resolve_model_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown local model 'large'"):
        resolve_model("large")
    with pytest.raises(ConfigError, match="model file not found"):
        resolve_model(str(tmp_path / "absent.gguf"))
    f = tmp_path / "mine.gguf"
    f.write_bytes(b"GGUF")
    assert resolve_model(str(f)) == ("mine", f.resolve())


def test_bad_gguf_is_a_clear_error(tmp_path):
    f = tmp_path / "broken.gguf"
    f.write_bytes(b"not a model at all" * 100)
    with pytest.raises(LLMError, match="cannot load model .*broken.gguf"):
        make_llm(f"local:{f}", parallel=1, ctx_size=2048)
    assert local.loaded_servers() == [] or all("broken" not in s["model_path"] for s in local.loaded_servers())


def test_gbnf_literal():
    assert gbnf_literal('a "b"\\\n\tc') == '"a \\"b\\"\\\\\\n\\tc"'
    assert gbnf_literal("서울") == '"서울"'


# -- with the real 0.5B model -------------------------------------------------------------------------


def ask(llm, text: str, **kw):
    return llm.generate(Request(messages=[{"role": "user", "content": text}], **{"max_tokens": 12, **kw}))


@pytest.mark.model
def test_english_and_korean_answers(small_llm):
    en = ask(small_llm, "What is the capital of France? Answer with one word.")
    assert "paris" in en.text.lower()
    assert en.prompt_tokens > 0 and en.completion_tokens > 0 and en.wall_ms > 0
    assert en.finish_reason in ("stop", "length") and en.model == "qwen2.5-0.5b"
    ko = ask(small_llm, "대한민국의 수도는 어디입니까? 한 단어로 답하세요.")
    assert "서울" in ko.text


@pytest.mark.model
def test_json_schema_output_parses(small_llm):
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "confidence": {"type": "integer", "minimum": 0, "maximum": 100}},
        "required": ["city", "confidence"],
    }
    node = Node()
    obj = TrackedLLM(small_llm).json(
        node, "answer", [{"role": "user", "content": "Which city is the capital of Japan? Reply in JSON."}], schema=schema, max_tokens=40
    )
    assert set(obj) >= {"city", "confidence"} and isinstance(obj["confidence"], int)
    assert node.calls[-1].ok and node.calls[-1].prompt_tokens > 0


@pytest.mark.model
def test_prompt_cache_on_repeated_prefix(small_llm):
    prefix = "Background notes. " + " ".join(f"Fact {i}: the river number {i} flows north." for i in range(10))
    first = ask(small_llm, prefix + "\nQuestion: which way does river 3 flow?", max_tokens=4)
    second = ask(small_llm, prefix + "\nQuestion: which way does river 7 flow?", max_tokens=4)
    assert first.prompt_tokens > 150
    assert second.cached_tokens > 150


@pytest.mark.model
def test_prompt_cache_can_be_turned_off(small_llm, small_model_path):
    """GAJI_PROMPT_CACHE=0 (cost A/B runs): the same loaded model, no prefix reuse."""
    off = LocalLLM(small_model_path, "qwen2.5-0.5b", parallel=2, ctx_size=4096, threads=1, prompt_cache=False)
    try:
        prefix = "Reference list. " + " ".join(f"Item {i} is painted color number {i}." for i in range(10))
        ask(off, prefix + "\nWhat color is item 2?", max_tokens=3)
        again = ask(off, prefix + "\nWhat color is item 5?", max_tokens=3)
        assert again.prompt_tokens > 100 and again.cached_tokens == 0
        assert off.describe()["prompt_cache"] is False
    finally:
        off.close()


@pytest.mark.model
def test_two_parallel_calls(small_llm):
    qs = ["What is 2 + 2? Answer with a number.", "한국의 수도는? 한 단어로."]
    with ThreadPoolExecutor(2) as ex:
        en, ko = ex.map(lambda q: ask(small_llm, q, max_tokens=8), qs)
    assert "4" in en.text and "서울" in ko.text


@pytest.mark.model
def test_completion_stop_logprobs_and_score(small_llm):
    res = small_llm.generate(Request(prompt="Q: What is the capital of Japan?\nA:", max_tokens=8, stop=["\n"], logprobs=2))
    assert "Tokyo" in res.text and "\n" not in res.text
    assert res.logprobs and all(t["logprob"] <= 0 and len(t["top"]) == 2 for t in res.logprobs)
    good = small_llm.score(Request(prompt="The capital of France is"), " Paris")
    bad = small_llm.score(Request(prompt="The capital of France is"), " Berlin")
    assert good.text == " Paris" and bad.text == " Berlin"
    assert sum(t["logprob"] for t in good.logprobs) > sum(t["logprob"] for t in bad.logprobs)


@pytest.mark.model
def test_real_tokenizer_and_overflow(small_llm):
    assert small_llm.count_tokens("hello") == 1
    assert 3 <= small_llm.count_tokens("대한민국의 수도는 서울입니다") <= 15
    with pytest.raises(LLMError, match=r"prompt too long .* one slot holds 2048"):
        small_llm.generate(Request(prompt="word " * 2500, max_tokens=4))
    assert "paris" in ask(small_llm, "Capital of France? One word.").text.lower()  # still healthy


@pytest.mark.model
def test_one_server_per_config_shared_and_refcounted(small_llm, real_home):
    other = make_llm("local:small", parallel=2, ctx_size=4096, threads=1, base_url=None, timeout_s=5)
    try:
        assert other._loaded is small_llm._loaded
        assert small_llm._loaded.users >= 2
    finally:
        other.close()
    other.close()  # idempotent
    assert small_llm._loaded.users >= 1
    with pytest.raises(LLMError, match="closed"):
        other.generate(Request(prompt="x"))
    assert ask(small_llm, "Say yes.", max_tokens=3).text


@pytest.mark.model
def test_thread_safety_under_load(small_llm):
    errors = []

    def worker(i):
        try:
            r = small_llm.generate(Request(prompt=f"{i} + {i} =", max_tokens=3))
            assert r.completion_tokens > 0
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(5)]  # more threads than slots
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.model
def test_close_right_after_load_does_not_hang(small_model_path):
    # xllamacpp's destructor hangs if it runs before llama.cpp's loop started; LocalLLM waits for it
    llm = LocalLLM(small_model_path, "qwen2.5-0.5b", parallel=1, ctx_size=2048, threads=1)
    closer = threading.Thread(target=llm.close, daemon=True)
    closer.start()
    closer.join(30)
    assert not closer.is_alive()
