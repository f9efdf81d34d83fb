"""The adaptive method's router: how much search a question gets, decided before any LLM call.

Routes, from cheapest to dearest, and the method (with the options recorded in benchmarks/configs/) each runs:

    closed  closed book, one call                      nor
    one     one retrieval, one call                    oner passage_trim=relevant, passage_chars_ko=400, reask=true
    chain   retrieval interleaved with reasoning       ircot
    tree    the question tree (routed decomposer:      toq  respond=plain, evaluate_root=false, order_hints=true,
            comparisons as parallel branches,               decomposer=routed, order_decide=true, integrate=none,
            bridges as chains, intersections split         evaluate_final=false, final_search=true,
            by code)                                        intersect=true, intersect_decide=true, reask=true

The model is multinomial logistic regression over standardised question features (features.py), trained by
`gaji classifier train-auto` (gaji/learn/auto_router.py) on every recorded per-question result: the label of a
question is the cheapest route whose F1 is within epsilon of the best route's. The file records the features,
the weights, the routes' methods and options, the training split and the held-out numbers.

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

from gaji.errors import ConfigError
from gaji.methods.auto.features import FEATURES, question_features

DEFAULT_PATH = Path(__file__).with_name("data") / "auto_router.json"
FORMAT = "gaji-auto-router/1"
ROUTES: tuple[str, ...] = ("closed", "one", "chain", "tree")
# the method and options each route runs: the configurations whose recorded results trained the router, except
# four tree options added after those runs, chosen on the Korean set's dev part (benchmarks/auto/NOTES.md): order_decide (a
# comparison whose order code knows and whose question asks plainly for one end is answered by code),
# integrate=none (no per-document relevance calls: the 1.5B judged 0 of 16 answer-bearing Korean paragraphs
# relevant, at 43 % of the tree's tokens), evaluate_final=false (the root's last evaluation changes no answer) and
# final_search (the root's reader also reads the whole question's top documents); and two more chosen on the same
# dev part afterwards: intersect (an intersection's constraints split by code into parallel branches, toq/intersect.py)
# and intersect_decide (branches that name the same answer decide it without a reader call); later, on the
# same dev part, reask in both routes (an answer that repeats the question, or a value where the question asks
# which one, is asked about once more: gaji/methods/reask.py) and, for the one route, a Korean question's passages
# cut to their 400 characters most relevant to it (Korean costs about three times the tokens per character)
ROUTE_METHODS: dict[str, dict[str, Any]] = {
    "closed": {"method": "nor", "options": {}},
    "one": {"method": "oner", "options": {"passage_trim": "relevant", "passage_chars_ko": 400, "reask": True}},
    "chain": {"method": "ircot", "options": {}},
    "tree": {"method": "toq", "options": {"respond": "plain", "evaluate_root": False, "order_hints": True,
                                          "decomposer": "routed", "order_decide": True, "integrate": "none",
                                          "evaluate_final": False, "final_search": True, "intersect": True,
                                          "intersect_decide": True, "reask": True}},
}
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
               "chain": ("a chain", "연쇄 검색"), "tree": ("the tree", "질문 트리")}


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
    methods: dict[str, dict[str, Any]] = field(default_factory=lambda: dict(ROUTE_METHODS))
    meta: dict[str, Any] = field(default_factory=dict)  # training data, split, held-out numbers

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
                "methods": self.methods,
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
        return cls(W, b, mean, np.where(scale > 0, scale, 1.0), routes, features, methods, meta)


@functools.lru_cache(maxsize=8)
def shared_auto_router(path: str = "") -> AutoRouter:
    """The router in `path` ("" = the shipped one), read once per process."""
    return AutoRouter.load(path or None)
