"""Token counts from a GGUF file's header alone: a tiny hand-written GGUF with a byte-level BPE vocabulary."""
import struct

import pytest

from gaji.errors import ConfigError
from gaji_lab.bench.gguf_tokens import gguf_counter, read_metadata


def gguf_string(s: str) -> bytes:
    raw = s.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def kv_string(key: str, value: str) -> bytes:
    return gguf_string(key) + struct.pack("<I", 8) + gguf_string(value)


def kv_strings(key: str, values: list[str]) -> bytes:
    return gguf_string(key) + struct.pack("<IIQ", 9, 8, len(values)) + b"".join(gguf_string(v) for v in values)


def kv_ints(key: str, values: list[int]) -> bytes:
    return gguf_string(key) + struct.pack("<IIQ", 9, 5, len(values)) + struct.pack(f"<{len(values)}i", *values)


def write_gguf(path, pre="qwen2"):
    # byte-level symbols: "Ġ" is the space byte; the merges build "ab", "Ġab" and "Ġa"
    tokens = ["a", "b", "c", "Ġ", "ab", "Ġa", "Ġab", "<|im_start|>"]
    kvs = [kv_string("general.name", "tiny"), kv_string("tokenizer.ggml.model", "gpt2"),
           kv_string("tokenizer.ggml.pre", pre), kv_strings("tokenizer.ggml.tokens", tokens),
           kv_ints("tokenizer.ggml.token_type", [1] * 7 + [3]),
           kv_strings("tokenizer.ggml.merges", ["Ġ a", "Ġa b", "a b"]),
           gguf_string("tokenizer.ggml.add_bos_token") + struct.pack("<I?", 7, False)]
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path


def test_the_header_is_read_and_counts_follow_the_merges(tmp_path):
    p = write_gguf(tmp_path / "tiny.gguf")
    meta = read_metadata(p)
    assert meta["tokenizer.ggml.pre"] == "qwen2" and meta["tokenizer.ggml.add_bos_token"] is False
    assert "general.name" not in meta  # only the tokenizer's keys
    count = gguf_counter(p)
    assert count("ab") == 1  # one merge
    assert count("ab ab") == 2  # "ab", "Ġab"
    assert count("abc") == 2  # "ab", "c"
    assert count("<|im_start|>ab") == 2  # a special token is one token


def test_a_file_that_is_not_a_supported_gguf_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the model file"):
        read_metadata(tmp_path / "missing.gguf")
    (tmp_path / "x.gguf").write_bytes(b"NOPE")
    with pytest.raises(ConfigError, match="not a GGUF"):
        read_metadata(tmp_path / "x.gguf")
    (tmp_path / "cut.gguf").write_bytes(write_gguf(tmp_path / "whole.gguf").read_bytes()[:60])
    with pytest.raises(ConfigError, match="ends early"):
        read_metadata(tmp_path / "cut.gguf")
    with pytest.raises(ConfigError, match="not supported"):
        gguf_counter(write_gguf(tmp_path / "llama.gguf", pre="llama-bpe"))
