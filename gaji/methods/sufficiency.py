"""The chain sufficiency classifier as the chain uses it: the model (the multilingual-e5-small encoder with a
linear head on the mean-pooled states, gaji/index/e5_torch.py), its input format and its loader. Training it is
the lab's job (`gaji classifier train`, gaji_lab/learn/classifier.py); the chain only loads a trained one.

    clf = load_classifier("runs/classifier/model")
    clf.prob_sufficient(question, [(q1, a1), (q2, a2)])  -> P([Sufficient])

torch comes from the optional extra `train`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gaji.errors import ConfigError
from gaji.index.e5_torch import E5Encoder, require_torch, save_state, torch

SUFFICIENT, INSUFFICIENT = "[Sufficient]", "[Insufficient]"
FORMAT_VERSION = 1


def format_input(question: str, history: Sequence[Sequence[str]]) -> str:
    lines = [f"Question: {question.strip()}"]
    for i, (q, a) in enumerate(history, 1):
        lines += [f"Sub-question {i}: {str(q).strip()}", f"Answer {i}: {str(a).strip()}"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------------
if torch is not None:
    from torch import nn

    class SufficiencyClassifier(nn.Module):
        def __init__(self, encoder: E5Encoder, max_tokens: int = 256, threshold: float = 0.5):
            super().__init__()
            self.encoder = encoder
            self.dropout = nn.Dropout(0.1)
            self.head = nn.Linear(encoder.hidden_size, 2)  # logits of [Insufficient], [Sufficient]
            self.max_tokens = max_tokens
            self.threshold = threshold

        def forward(self, ids: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
            states = self.encoder(ids, mask)
            return self.head(self.dropout(self.encoder.pool(states, mask)))

        def tensors(self, texts: Sequence[str]) -> tuple["torch.Tensor", "torch.Tensor"]:
            return self.encoder.batch(list(texts), max_tokens=self.max_tokens)

        @torch.no_grad()
        def probs(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
            was = self.training
            self.eval()
            out = []
            for i in range(0, len(texts), batch_size):
                ids, mask = self.tensors(texts[i:i + batch_size])
                out.append(torch.softmax(self(ids, mask), dim=-1)[:, 1])
            self.train(was)
            return torch.cat(out).numpy() if out else np.zeros(0, np.float32)

        def prob_sufficient(self, question: str, history: Sequence[Sequence[str]]) -> float:
            return float(self.probs([format_input(question, history)])[0])

        def save(self, directory: str | Path, meta: dict[str, Any] | None = None) -> None:
            from gaji.io import atomic_write_json

            d = Path(directory)
            d.mkdir(parents=True, exist_ok=True)
            self.encoder.save(d / "encoder")
            save_state(d / "head.pt", self.head.state_dict())
            atomic_write_json(d / "classifier.json", {
                "format_version": FORMAT_VERSION, "kind": "e5-small + linear head (mean pooled)",
                "labels": [INSUFFICIENT, SUFFICIENT], "max_tokens": self.max_tokens, "threshold": self.threshold,
                "input_format": "Question: <Q>\\nSub-question i: <Q_i>\\nAnswer i: <A_i> ...", **(meta or {})})


def load_classifier(directory: str | Path) -> "SufficiencyClassifier":
    """A classifier saved by `gaji classifier train` (CPU, eval mode)."""
    require_torch()
    d = Path(directory)
    cfg_path = d / "classifier.json"
    if not cfg_path.exists():
        raise ConfigError(f"{d}: not a classifier directory (no classifier.json); train one with `gaji classifier train`")
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    if cfg.get("format_version") != FORMAT_VERSION:
        raise ConfigError(f"{cfg_path}: format version {cfg.get('format_version')} is not {FORMAT_VERSION}")
    clf = SufficiencyClassifier(E5Encoder.load(d / "encoder"), cfg.get("max_tokens", 256), cfg.get("threshold", 0.5))
    clf.head.load_state_dict(torch.load(d / "head.pt", map_location="cpu", weights_only=True))
    clf.eval()
    torch.set_num_threads(1)  # one short forward pass per chain step: a single thread is fastest on a shared CPU
    return clf
