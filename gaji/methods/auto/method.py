"""`auto`: the right amount of search for every question (gaji's default method).

Before any LLM call, a trained router (router.py; features.py) decides how much the question needs:

    closed  answer closed book (nor)              one call
    one     one retrieval (oner)                  one call
    chain   retrieval interleaved with reasoning  IRCoT: stops when its reasoning states the answer, or repeats
            (ircot)
    tree    the question tree (toq, routed        ToQ: a comparison or intersection splits into parallel branches,
            decomposer)                           a bridge into a chain through [ANS_1]; a node stops as soon as
                                                  ToQ's evaluator accepts its answer

and runs that route's method with the options its recorded results were measured with. With `verify`, a
closed-book or one-retrieval answer is checked by ToQ's query evaluator and, when it is rejected, the chain
answers instead (off by default: on the recorded dev questions the evaluator rejected 1 answer in 30-50 and
the check cost more tokens than it saved, benchmarks/auto/README.md).

Trace: the routed method runs on the trace itself, so a OneR trace of `auto` looks like OneR's, a ToQ trace
like ToQ's; the root also holds the decision (data{"auto": Decision.to_dict(), "route_method", "verify"};
Node.stop when `verify` judged the answer), and every node is marked data{"routed_to": method} and described
by that method (the root: the decision first). A rejected answer's chain hangs under the root as a sub-tree
(kind "route").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gaji.coerce import MAX_K
from gaji.errors import ConfigError
from gaji.methods.auto.router import ROUTE_WORDS, ROUTES, Decision, shared_auto_router
from gaji.methods.base import Method, RunContext
from gaji.methods.describe import Facts, stop_facts, word
from gaji.registry import METHODS
from gaji.types import Fact, Node, Stop, Trace

NEEDS_INDEX = ("one", "chain", "tree")


@METHODS.register("auto", help="adaptive (default): a trained router picks closed book, one retrieval, a chain or "
                               "the question tree for each question")
class Auto(Method):
    name = "auto"
    needs_retriever = False  # closed book when there is no index
    optional_retriever = True
    option_ranges = {"k": (0, MAX_K)}  # 0: the routed method's own k

    @dataclass
    class Options:
        router: str = ""  # a router file from `gaji classifier train-auto` ("" = the shipped one)
        route: str = ""  # closed | one | chain | tree: skip the router ("" = the router decides)
        verify: bool = False  # check a closed-book / one-retrieval answer with ToQ's evaluator; rejected -> chain
        k: int = 0  # passages per retrieval for the route's method (0 = the method's own default)

        def __post_init__(self) -> None:
            if self.route and self.route not in ROUTES:
                raise ConfigError(f"option route of method 'auto' must be one of {', '.join(ROUTES)}, not {self.route!r}")
            if self.k < 0:
                raise ConfigError(f"option k of method 'auto' must be at least 0, not {self.k}")
            shared_auto_router(self.router)  # a missing or malformed router file fails here

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        by = node.data.get("routed_to")
        own = METHODS.get(by).describe(node, lang) if by in METHODS.names() and by != cls.name else []
        if "auto" not in node.data:
            return own
        d = node.data["auto"]
        f = Facts(lang)
        route = d.get("route")
        if route in ROUTE_WORDS:
            f.tag("route", "경로", route, ROUTE_WORDS[route][1 if lang == "ko" else 0])
            decision = Decision(route, d.get("probs") or {}, d.get("features") or {},
                                [(c, 0.0) for c in d.get("cues") or []], bool(d.get("forced")))
            f.decision("route", "경로", route, decision.reason(lang))
        f.decision("escalated", "확대", node.data.get("escalated"),
                   word(lang, "the evaluator rejected the answer: the chain answered", "평가기가 답을 거부: 연쇄 검색으로 다시 답함"))
        lines = f.lines + [x for x in own if x not in f.lines]
        return lines + [x for x in stop_facts(node, lang) if x not in lines]

    def route_method(self, route: str, router_methods: dict[str, dict[str, Any]]) -> Method:
        spec = router_methods[route]
        cls = METHODS.get(spec["method"])
        raw = {k: str(v) for k, v in (spec.get("options") or {}).items()}
        opts = cls.parse_options(raw)
        if self.opts.k and "k" in {f.name for f in dataclasses.fields(opts)}:
            opts = dataclasses.replace(opts, k=self.opts.k)
        return cls(opts)

    def long_answers(self) -> bool:
        return False  # every route answers with a span (the routes run with their short-answer options)

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        root, q = trace.root, trace.question
        router = shared_auto_router(self.opts.router)
        allowed = ROUTES if ctx.retriever is not None else tuple(r for r in ROUTES if r not in NEEDS_INDEX)
        if self.opts.route:
            if self.opts.route not in allowed:
                raise ConfigError(f"route {self.opts.route!r} of method 'auto' needs an index: pass --index DIR")
            decision = Decision(self.opts.route, {}, {}, forced=True)
        else:
            decision = router.decide(q, allowed)
        method = self.route_method(decision.route, router.methods)
        root.data["auto"] = decision.to_dict()
        root.data["route_method"] = {"method": method.name, "options": dataclasses.asdict(method.opts)}
        ctx.emit(root)
        self.run_route(trace, ctx, method)
        if self.opts.verify and decision.route in ("closed", "one") and "chain" in allowed:
            self.verify(trace, ctx, router.methods)

    def run_route(self, trace: Trace, ctx: RunContext, method: Method) -> None:
        """Run the routed method on the trace itself: its root is the trace's root (which also holds the decision),
        its nodes are marked with its name so they are described by it."""
        root = trace.root
        root.data["routed_to"] = method.name

        def describe(node: Node, lang: str) -> list[Fact]:
            return self.describe(node, lang) if node is root else method.describe(node, lang)

        try:
            method.solve(trace, dataclasses.replace(ctx, describe=describe))
        finally:
            for n in root.walk():
                n.data.setdefault("routed_to", method.name)

    def run_escalation(self, trace: Trace, ctx: RunContext, method: Method) -> Node:
        """Run `method` as a sub-tree of the root (a second opinion after a rejected answer); it takes the answer."""
        sub = Trace(question=trace.question, method=method.name, params=dataclasses.asdict(method.opts),
                    lang=trace.lang, model=trace.model, retriever=trace.retriever)
        sub.passages = trace.passages  # one passage store: the sub-run's retrievals land in the trace
        sub.root.kind = "route"
        sub.root.data["routed_to"] = method.name
        trace.root.add(sub.root)
        try:
            method.solve(sub, dataclasses.replace(ctx, trace=sub, describe=method.describe))
        finally:
            for n in sub.root.walk():
                n.data.setdefault("routed_to", method.name)
            sub.root.answer = sub.root.answer or sub.answer
            trace.answer, trace.citations, trace.explanation = sub.answer, list(sub.citations), sub.explanation
            ctx.emit(sub.root)
        return sub.root

    def verify(self, trace: Trace, ctx: RunContext, router_methods: dict[str, dict[str, Any]]) -> None:
        """ToQ's evaluator judges the cheap answer; a rejected one is answered again by the chain."""
        from gaji.methods.toq.evaluator import QueryEvaluator
        from gaji.methods.toq.prompts import is_unknown

        root = trace.root
        passages = [trace.passages[i] for i in trace.citations if i in trace.passages]
        if trace.answer and not is_unknown(trace.answer):
            scores = QueryEvaluator(ctx.llm).evaluate(root, trace.question, trace.answer, ctx.lang, passages or None)
            root.scores = scores
            accepted = bool(scores["response_validity"])
        else:
            accepted = False
        root.data["verify"] = {"accepted": accepted}
        if accepted:
            root.stop = Stop(True, reason=word(ctx.lang, "the evaluator accepted the answer", "평가기가 답을 받아들임"),
                             by="evaluator", score=root.scores.get("overall"))
            return
        root.stop = Stop(False, reason=word(ctx.lang, "the evaluator rejected the answer", "평가기가 답을 거부함"),
                         by="evaluator", score=root.scores.get("overall") if root.scores else None)
        root.data["escalated"] = "chain"
        trace.explanation = ""
        self.run_escalation(trace, ctx, self.route_method("chain", router_methods))
