"""`gaji bench decomposer`: does the ToQ question decomposer (Prompt B.2) split questions the right way?

The tree can only answer a bridge question ("Where is the magazine that X writes for
headquartered?") if the decomposer chains it: a later sub-question uses an earlier answer through
`[ANS_N]` ("Which magazine does X write for?" → "Where is [ANS_1] headquartered?"). Two independent
sub-questions ("What is X's magazine's headquarters?", "What does X write for?") send both searches
after the unknown bridge entity. A comparison question needs the opposite: the same fact asked
independently about each named item. This bench measures that on question sets whose gold data
labels each question's shape, one decomposer call per question, outside the reported questions
(`--offset`, default 50):

  chain     HotpotQA "bridge", 2Wiki "compositional"/"inference", MuSiQue "2hop"…"4hop"   → should be chained
  compare   HotpotQA/2Wiki "comparison", 2Wiki "bridge_comparison"                      → should be independent

Reported per shape: how many decompositions came out chained, independent or single (no split),
how many had a repeated sub-question (dropped by the parser), and the model's own type labels.
"""
from __future__ import annotations

import collections
from dataclasses import asdict, dataclass, field
from typing import Any

from gaji_lab.bench.probing import ProbeReport, map_calls
from gaji.errors import ConfigError, GajiError

RIGHT = {"chain": "chained", "compare": "independent"}
OUTCOMES = ("chained", "independent", "single", "failed")


@dataclass
class Split:
    qid: str
    question: str
    shape: str  # chain | compare
    outcome: str  # chained | independent | single | failed
    type: str = ""  # the type after the parser's checks
    model_type: str = ""  # the type the model wrote
    subquestions: list[str] = field(default_factory=list)
    duplicates: int = 0  # repeated sub-questions the parser dropped
    tokens: int = 0
    error: str | None = None
    route: str = ""  # routed decomposer: the router's shape (chain | compare)
    prompt: str = ""  # the prompt whose answer was used: paper | chain | compare

    @property
    def right(self) -> bool:
        return self.outcome == RIGHT[self.shape]


def decompose_all(items: list[Any], decomposer: Any, concurrency: int = 2) -> list[Split]:
    """One decomposition per question with a known shape, in order; a failed call is a 'failed' Split."""
    from gaji_lab.learn.shape_router import expected_shape  # the datasets' type labels -> shapes (numpy: not at CLI start)
    from gaji.types import Node

    jobs = [(it, shape) for it in items if (shape := expected_shape(it.type))]

    def one(job: tuple[Any, str]) -> Split:
        it, shape = job
        node = Node(kind="root", question=it.question)
        error = None
        try:
            d = decomposer.decompose(node, it.question, it.lang or "en")
        except GajiError as e:
            d, error = None, str(e)
        tokens = sum(c.prompt_tokens + c.completion_tokens for c in node.calls)
        if d is None:
            return Split(it.id, it.question, shape, "failed", error=error, tokens=tokens)
        if d.is_single:
            outcome = "single"
        elif any(sq.depends_on for sq in d.subquestions):
            outcome = "chained"
        else:
            outcome = "independent"
        return Split(it.id, it.question, shape, outcome, d.type, d.model_type, [sq.question for sq in d.subquestions],
                     d.duplicates, tokens, route=d.route.shape if d.route else "", prompt=d.prompt)

    return map_calls(one, jobs, concurrency)


def score(splits: list[Split]) -> dict[str, Any]:
    out: dict[str, Any] = {"shapes": {}}
    for shape in ("chain", "compare"):
        ss = [s for s in splits if s.shape == shape]
        if not ss:
            continue
        pct = lambda n: round(100.0 * n / len(ss), 1)  # noqa: E731
        out["shapes"][shape] = {
            "n": len(ss),
            "right_pct": pct(sum(s.right for s in ss)),
            **{f"{o}_pct": pct(sum(s.outcome == o for s in ss)) for o in OUTCOMES},
            "duplicates_pct": pct(sum(s.duplicates > 0 for s in ss)),
            "model_types": dict(collections.Counter(s.model_type or "–" for s in ss).most_common()),
        }
        if any(s.route for s in ss):  # routed decomposer: how often the router named the gold shape
            out["shapes"][shape]["routed_right_pct"] = pct(sum(s.route == shape for s in ss))
            out["shapes"][shape]["prompts"] = dict(collections.Counter(s.prompt or "–" for s in ss).most_common())
    if splits:
        out["right_pct"] = round(100.0 * sum(s.right for s in splits) / len(splits), 1)
        out["tokens_per_question"] = round(sum(s.tokens for s in splits) / len(splits), 1)
    return out


def render(result: dict, title: str) -> str:
    lines = [f"**{title}**", "", "| gold shape | should be | n | right % | chained % | independent % | single % | "
             "failed % | repeated sub-q % | model's labels |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for shape, s in result["shapes"].items():
        labels = ", ".join(f"{k} {v}" for k, v in s["model_types"].items())
        lines.append(f"| {shape} | {RIGHT[shape]} | {s['n']} | {s['right_pct']} | {s['chained_pct']} | "
                     f"{s['independent_pct']} | {s['single_pct']} | {s['failed_pct']} | {s['duplicates_pct']} | {labels} |")
    routed = [(shape, s) for shape, s in result["shapes"].items() if "routed_right_pct" in s]
    if routed:
        lines += ["", "Shape router: " + "; ".join(
            f"{shape} questions routed to {shape} {s['routed_right_pct']} %, answered by the "
            + ", ".join(f"{k} prompt {v}" for k, v in s["prompts"].items()) for shape, s in routed) + "."]
    lines += ["", f"Right overall: {result.get('right_pct', '–')} %; {result.get('tokens_per_question', '–')} "
              "tokens per question (prompt + completion)."]
    return "\n".join(lines)


def run_bench(data: str, settings: Any, *, offset: int = 50, limit: int = 60, max_children: int = 4,
              decomposer: str = "paper", router: str = "", concurrency: int | None = None) -> ProbeReport:
    """Decompose questions offset+1 … offset+limit of each comma-separated set in `data` with the LLM the settings
    name. decomposer: "paper" (Prompt B.2) or "routed" (the shape router, `router` a router file or "" for the
    shipped one, + one prompt per shape)."""
    from gaji_lab.bench.probing import with_llm
    from gaji.eval.sets import load_dataset
    from gaji_lab.learn.shape_router import expected_shape
    from gaji.methods.toq.decomposer import QuestionDecomposer

    if offset < 0 or limit < 1 or max_children < 2:
        raise ConfigError("--offset must be >= 0, --limit >= 1 and --max-children >= 2")
    names = [n.strip() for n in data.split(",") if n.strip()]
    items = []
    for name in names:
        items += load_dataset(name).items[offset: offset + limit]
    if not any(expected_shape(it.type) for it in items):
        raise ConfigError(f"{data}: no question with a chain/comparison type label after --offset {offset}")
    from gaji.methods.toq.router import ShapeRouter

    shape_router = ShapeRouter.load(router or None) if decomposer == "routed" else None
    splits, used = with_llm(settings, concurrency, lambda llm, n: decompose_all(
        items, QuestionDecomposer(llm, max_children=max_children, router=shape_router), n))
    result = score(splits)
    result.update(data=names, offset=offset, limit=limit, **used, questions=len(splits), decomposer=decomposer)
    md = render(result, f"{', '.join(names)} questions {offset + 1}–{offset + limit}, "
                        f"decomposer {used['model']} ({decomposer} prompt)")
    return ProbeReport(md, {**result, "splits": [asdict(x) for x in splits]})
