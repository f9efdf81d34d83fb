"""A topic gate before verification step (i): our extension, not in the paper.

The paper's step (i) asks the LLM whether a proposed sub-question is needed for the main question.
The 1.5B model answers "needed" for more than half of the sub-questions planned for *another* question
(`gaji bench verifier`, benchmarks/contregen/NOTES.md "Can the verifier say no?"): it does not notice a change of
subject. The multilingual-E5 embedding does: the cosine between a sub-question and the main question
(both embedded as queries) separates a question's own sub-questions from another question's far better.

    cos(sub, Q) < threshold  ->  the sub-question is skipped as off-topic, without any LLM call
                                 (no step (i), no retrieval, no step (ii))

`threshold = 0` turns the gate off (the paper's behaviour, the default): `make_gate` then returns None,
the one way "off" is expressed. The threshold is a property of the embedding model, so it is set per
model and language; `gaji bench verifier --topic-gate T` measures a candidate on a finished run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from gaji.errors import ConfigError


@dataclass
class GateVerdict:
    cosine: float
    keep: bool


class TopicGate:
    """Keeps sub-questions whose query embedding is close enough to the main question's."""

    def __init__(self, threshold: float, embedder: Any = None):
        if not 0.0 < threshold < 1.0:
            raise ConfigError(f"topic_gate must be a cosine in (0, 1), not {threshold} (the option's 0 means off)")
        self.threshold = threshold
        self._embedder = embedder
        self._mains: dict[str, np.ndarray] = {}  # main question -> its embedding

    def embedder(self) -> Any:
        if self._embedder is None:
            from gaji.index.dense import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def similarities(self, main: str, subs: Sequence[str]) -> list[float]:
        """Cosine of each sub-question to `main` (the embedder returns unit vectors). The main question is
        embedded once per gate, however many tree levels ask."""
        if not subs:
            return []
        known = self._mains.get(main)
        texts = list(subs) if known is not None else [main, *subs]
        vecs = np.asarray(self.embedder().embed_queries(texts), dtype=np.float32)
        if known is None:
            known, vecs = vecs[0], vecs[1:]
            if len(self._mains) >= 256:  # a retriever's gate lives for many questions: keep the memo small
                self._mains.clear()
            self._mains[main] = known
        return [float(x) for x in vecs @ known]

    def check(self, main: str, subs: Sequence[str]) -> list[GateVerdict]:
        return [GateVerdict(round(c, 4), c >= self.threshold) for c in self.similarities(main, subs)]


def make_gate(threshold: float, embedder: Any = None) -> TopicGate | None:
    """The gate for an option value: None for 0 (off), else a TopicGate (which checks the range)."""
    return None if threshold == 0.0 else TopicGate(threshold, embedder)
