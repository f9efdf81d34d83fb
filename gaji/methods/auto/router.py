"""The adaptive method's router: how much search a question gets, decided before any LLM call.

Routes, from cheapest to dearest, and the recipe (gaji/recipes.py) each runs:

    closed  closed book, one call                      recipe closed       (nor)
    one     one retrieval, one call                    recipe one          (oner, the Korean passage cut, re-ask)
    chain   retrieval interleaved with reasoning       recipe chain-ircot  (ircot)
    tree    the question tree (routed decomposer:      recipe tree         (toq, routed)
            comparisons as parallel branches,
            bridges as chains, intersections split
            by code)

The model is multinomial logistic regression over standardised question features (features.py), trained by
`gaji classifier train-auto` (lab/gaji_lab/learn/auto_router.py) on every recorded per-question result: the label of a
question is the cheapest route whose F1 is within epsilon of the best route's. The file records the features,
the weights, the training split, the held-out numbers and, as provenance, the methods and options the routes ran
when it was trained (`AutoRouter.recorded_methods`); the routes run their recipes (`methods`).

    router = shared_auto_router()
    d = router.decide("Who was born first, Park Chan-wook or Bong Joon-ho?")
    d.route, d.probs, d.reason("en")
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji import recipes
from gaji.errors import ConfigError
from gaji.methods.auto.features import FEATURES, question_features

DEFAULT_PATH = Path(__file__).with_name("data") / "auto_router.json"
FORMAT = "gaji-auto-router/1"
ROUTES: tuple[str, ...] = ("closed", "one", "chain", "tree")
# the recipe each route runs (gaji/recipes.py, where the routed tree and the Korean one retrieval are defined).
# The router file records the methods and options its training runs used, as provenance only: what a route runs
# comes from here, so that editing a recipe changes auto without retraining the router
ROUTE_RECIPES: dict[str, str] = {"closed": "closed", "one": "one", "chain": "chain-ircot", "tree": "tree"}


def route_methods() -> dict[str, dict[str, Any]]:
    """{route: {"method", "options"}} from ROUTE_RECIPES, in the shape the router file records."""
    return {route: {"method": recipes.get(name).method, "options": dict(recipes.get(name).options)}
            for route, name in ROUTE_RECIPES.items()}


ROUTE_METHODS: dict[str, dict[str, Any]] = route_methods()
# how each feature reads in a reason, in English and Korean
_CUES = {
    "words": ("length", "길이"), "names": ("names", "이름 수"),
    "compare": ("comparison cue", "비교 표현"), "yes_no": ("yes/no question", "예/아니오 질문"),
    "when": ("asks when", "시점 질문"), "who": ("asks who", "인물 질문"), "where": ("asks where", "장소 질문"),
    "number": ("asks how many", "수량 질문"), "which": ("asks which", "선택 질문"),
    "nesting": ("nested description", "겹친 수식"), "commas": ("clauses", "쉼표"), "digits": ("a number", "숫자"),
    "p_compare": ("comparison shape", "비교 형태"),
}
ROUTE_WORDS = {"closed": ("closed book", "검색 없이"), "one": ("one retrieval", "한 번 검색"),
               "chain": ("a chain", "연쇄 검색"), "tree": ("the tree", "질문 트리"),
               "steps": ("the step chain", "짧은 연쇄 검색")}


# routes whose probabilities are this close are a tie, and a tie goes to the cheaper route: when the router cannot
# tell, it spends less (the demo's "훈민정음은 몇 년에 반포되었나요?" was chain 0.393 against one 0.392). Wider margins
# were replayed held out (`gaji classifier train-auto`'s report): they save tokens and lose F1 on every English set
TIE = 0.01


def pick(p: np.ndarray, routes: tuple[str, ...] | list[str], allowed, tie: float = TIE) -> str:
    """The most probable of `allowed`, or the cheapest (earliest in ROUTES order) of those within `tie` of it."""
    best = max(p[routes.index(r)] for r in allowed)
    return min((r for r in allowed if p[routes.index(r)] >= best - tie), key=lambda r: ROUTES.index(r))


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass
class Decision:
    route: str
    probs: dict[str, float]  # P(route) for every route
    features: dict[str, float]
    cues: list[tuple[str, float]] = field(default_factory=list)  # features that pushed most toward the route
    forced: bool = False  # the route was given (option), not decided

    def reason(self, lang: str) -> str:
        """The decision in words: "one retrieval: P 0.62 (…); comparison cue, 2 names"."""
        ko = lang == "ko"
        what = ROUTE_WORDS[self.route][1 if ko else 0]
        if self.forced:
            return f"{what} ({'옵션으로 지정' if ko else 'set by option'})"
        others = ", ".join(f"{r} {p:.2f}" for r, p in self.probs.items() if r != self.route)
        cues = ", ".join(_cue_text(name, self.features.get(name, 0.0), ko) for name, _ in self.cues)
        return f"{what}: P {self.probs[self.route]:.2f} ({others})" + (f"; {cues}" if cues else "")

    def to_dict(self) -> dict[str, Any]:
        return {"route": self.route, "probs": self.probs, "features": {k: round(v, 4) for k, v in self.features.items()},
                "cues": [n for n, _ in self.cues], "forced": self.forced}


def _cue_text(name: str, value: float, ko: bool) -> str:
    label = _CUES.get(name, (name, name))[1 if ko else 0]
    if name in ("names", "nesting", "commas"):
        return f"{label} {int(value)}"
    if name == "words":
        return f"{label} {round(np.expm1(value))}{'단어' if ko else ' words'}"
    if name == "p_compare":
        return f"{label} {value:.2f}"
    return label


@dataclass
class AutoRouter:
    weights: np.ndarray  # (routes, features) over standardised features
    bias: np.ndarray  # (routes,)
    mean: np.ndarray  # (features,) standardisation
    scale: np.ndarray
    routes: tuple[str, ...] = ROUTES
    features: tuple[str, ...] = FEATURES
    methods: dict[str, dict[str, Any]] = field(default_factory=route_methods)  # what each route runs (recipes)
    meta: dict[str, Any] = field(default_factory=dict)  # training data, split, held-out numbers
    # the methods and options the file says its routes ran when it was trained (provenance; None: as `methods`)
    recorded_methods: dict[str, dict[str, Any]] | None = None

    def probs(self, X: np.ndarray) -> np.ndarray:
        Z = ((np.asarray(X, dtype=np.float64) - self.mean) / self.scale) @ self.weights.T + self.bias
        return softmax(Z)

    def vector(self, feats: dict[str, float]) -> np.ndarray:
        return np.array([float(feats.get(n, 0.0)) for n in self.features])

    def decide(self, question: str, allowed: tuple[str, ...] | None = None) -> Decision:
        """The route for `question` (the most probable of `allowed`, default all) and why."""
        feats = question_features(question) if "p_compare" in self.features else \
            question_features(question, p_compare=0.5)
        x = self.vector(feats)
        p = self.probs(x[None, :])[0]
        allowed = tuple(r for r in (allowed or self.routes) if r in self.routes) or self.routes
        k = self.routes.index(pick(p, self.routes, allowed))
        # what the question has more of than usual that pushed toward the route: its standardised value times the
        # route's weight beyond the mean weight (an absent cue is not named as a reason)
        xs = (x - self.mean) / self.scale
        push = (self.weights[k] - self.weights.mean(axis=0)) * xs
        cues = [(self.features[i], float(push[i])) for i in np.argsort(-push)[:2] if push[i] > 0.1 and xs[i] > 0]
        return Decision(self.routes[k], {r: round(float(p[i]), 3) for i, r in enumerate(self.routes)}, feats, cues)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "routes": list(self.routes), "features": list(self.features),
                "methods": self.recorded_methods if self.recorded_methods is not None else self.methods,
                "mean": [round(float(v), 6) for v in self.mean], "scale": [round(float(v), 6) for v in self.scale],
                "weights": [[round(float(v), 6) for v in row] for row in self.weights],
                "bias": [round(float(v), 6) for v in self.bias], **self.meta}

    def save(self, path: str | Path) -> None:
        from gaji.io import atomic_write_json

        atomic_write_json(Path(path), self.to_dict())

    @classmethod
    def load(cls, path: str | Path | None = None) -> "AutoRouter":
        from gaji.io import read_model_file

        p = Path(path) if path else DEFAULT_PATH
        obj = read_model_file(p, "auto router", FORMAT, "gaji classifier train-auto")
        try:
            routes, features = tuple(obj["routes"]), tuple(obj["features"])
            W, b = np.asarray(obj["weights"], dtype=np.float64), np.asarray(obj["bias"], dtype=np.float64)
            mean, scale = np.asarray(obj["mean"], dtype=np.float64), np.asarray(obj["scale"], dtype=np.float64)
            methods = dict(obj["methods"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{p}: missing or malformed field {e}") from None
        unknown = [r for r in routes if r not in ROUTES]
        if unknown:
            raise ConfigError(f"{p}: field 'routes' has unknown route(s) {unknown}; known: {', '.join(ROUTES)}")
        bad = [f for f in features if f not in FEATURES]
        if bad:
            raise ConfigError(f"{p}: field 'features' has unknown feature(s) {bad}; known: {', '.join(FEATURES)} "
                              "(retrain it with `gaji classifier train-auto`)")
        if W.shape != (len(routes), len(features)) or b.shape != (len(routes),) or mean.shape != (len(features),) \
                or scale.shape != (len(features),):
            raise ConfigError(f"{p}: fields 'weights', 'bias', 'mean', 'scale' do not match {len(routes)} routes "
                              f"and {len(features)} features")
        missing = [r for r in routes if r not in methods or "method" not in methods[r]]
        if missing:
            raise ConfigError(f"{p}: field 'methods' has no method for route(s) {missing}")
        meta = {k: v for k, v in obj.items()
                if k not in ("format", "routes", "features", "methods", "mean", "scale", "weights", "bias")}
        return cls(W, b, mean, np.where(scale > 0, scale, 1.0), routes, features, route_methods(), meta, methods)


@functools.lru_cache(maxsize=8)
def shared_auto_router(path: str = "") -> AutoRouter:
    """The router in `path` ("" = the shipped one), read once per process."""
    return AutoRouter.load(path or None)
