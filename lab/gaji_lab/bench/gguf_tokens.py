"""A GGUF model's tokenizer without its weights: token counts for replaying recorded runs.

Methods budget their prompts with the backend's token count (gaji.llm.fit, the few-shot reader, IRCoT's paragraph
collection), so a replay must count as the recorded model did. The embedded backend asks its llama.cpp server, which
needs the model loaded; this reads only the GGUF header's key-value section (the vocabulary and merges of a `gpt2`
byte-level BPE; no tensor is read) and builds the same tokenizer with `tokenizers`. The pre-tokenizer patterns are
llama.cpp's for the `tokenizer.ggml.pre` names known here.

    count = gguf_counter("~/.cache/gaji/models/qwen2.5-coder-1.5b-instruct.gguf")
    count("Which battle occurred first?")
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO, Callable

from gaji.errors import ConfigError

# pre-tokenizer split patterns by `tokenizer.ggml.pre` (those of llama.cpp's llama-vocab for the same names)
PRE_PATTERNS = {
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
             r"|\s+(?!\S)|\s+",
}
CONTROL = 3  # tokenizer.ggml.token_type of special tokens (<|im_start|>, ...)

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9


class _Reader:
    def __init__(self, f: BinaryIO, path: Path):
        self.f, self.path = f, path

    def take(self, fmt: str, n: int = 1) -> Any:
        size = struct.calcsize(fmt[0] + fmt[1:] * n)
        raw = self.f.read(size)
        if len(raw) != size:
            raise ConfigError(f"{self.path}: the GGUF header ends early (a truncated model file?)")
        vals = struct.unpack(fmt[0] + fmt[1:] * n, raw)
        return vals if n != 1 else vals[0]

    def string(self) -> str:
        n = self.take("<Q")
        return self.f.read(n).decode("utf-8", "surrogateescape")

    def value(self, kind: int) -> Any:
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            inner, n = self.take("<I"), self.take("<Q")
            if inner == STRING:
                return [self.string() for _ in range(n)]
            if inner not in _SCALARS:
                raise ConfigError(f"{self.path}: GGUF array of value type {inner} is not supported")
            return list(self.take(_SCALARS[inner], n)) if n else []
        if kind not in _SCALARS:
            raise ConfigError(f"{self.path}: GGUF value type {kind} is not supported")
        return self.take(_SCALARS[kind])


def read_metadata(path: str | Path, prefix: str = "tokenizer.") -> dict[str, Any]:
    """The GGUF file's key-value metadata whose keys start with `prefix` (the tensors are not read)."""
    p = Path(path).expanduser()
    try:
        f = open(p, "rb")
    except OSError as e:
        raise ConfigError(f"cannot read the model file {p}: {e.strerror or e}") from None
    with f:
        if f.read(4) != b"GGUF":
            raise ConfigError(f"{p}: not a GGUF model file")
        r = _Reader(f, p)
        _version, _tensors, count = r.take("<I"), r.take("<Q"), r.take("<Q")
        out: dict[str, Any] = {}
        for _ in range(count):
            key = r.string()
            val = r.value(r.take("<I"))
            if key.startswith(prefix):
                out[key] = val
    return out


def gguf_tokenizer(path: str | Path) -> Any:
    """A `tokenizers.Tokenizer` equal to the GGUF model's own (byte-level BPE models only)."""
    from tokenizers import AddedToken, Regex, Tokenizer, pre_tokenizers
    from tokenizers.models import BPE

    meta = read_metadata(path)
    model, pre = meta.get("tokenizer.ggml.model"), meta.get("tokenizer.ggml.pre")
    if model != "gpt2" or pre not in PRE_PATTERNS:
        raise ConfigError(f"{path}: tokenizer {model}/{pre} is not supported for counting "
                          f"(known: gpt2 with {', '.join(PRE_PATTERNS)})")
    tokens = meta["tokenizer.ggml.tokens"]
    types = meta.get("tokenizer.ggml.token_type") or [1] * len(tokens)
    merges = [tuple(m.split(" ", 1)) for m in meta["tokenizer.ggml.merges"]]
    tok = Tokenizer(BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges, fuse_unk=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PRE_PATTERNS[pre]), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                            for t, kind in zip(tokens, types) if kind == CONTROL])
    return tok


def gguf_counter(path: str | Path) -> Callable[[str], int]:
    """count(text) -> the number of tokens the GGUF model's tokenizer makes of `text` (no BOS)."""
    tok = gguf_tokenizer(path)
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)
