"""`auto`: the right amount of search for every question (gaji's default method) -- decided after looking.

A cascade (Yue et al., ICLR 2024; Moskvoretskii et al., ACL 2025; ProbTree 2023: docs/auto.md):

0. **A question that wants a paragraph** (several asks, or what follows from the facts it sets out: explain.py) is
   answered by one retrieval and a cited paragraph, kept whole: one call, no look.
1. **Answer cheaply.** One retrieval and one call (the `one` route: OneR with the Korean passage cut and the
   re-ask), asking for the answer tokens' log-probabilities.
2. **Look.** The answer's signals (signals.py: how sure the model was, whether the answer is grounded in a
   passage, whether the passages hold the question's names, its shape, ...) give P(right) under a logistic
   safety model (gaji/methods/safety.py) trained on recorded dev runs.
   A choice between two named items by a date or a number ("Who was born first, A or B?") is also decided by
   code from each item's value, looked up one item at a time (gaji/methods/compare.py); that verdict, when there
   is one, replaces or confirms the answer and nothing escalates; so is a yes/no or which-one question about two
   items ("Are both A and B American?", "A와 B는 같은 대학교를 나왔나?": gaji/methods/check.py). A Korean bridge question ("…서울시장이 태어난
   도시는?") is split by code: its described subject resolved to a name, the rest asked about that name
   (gaji/methods/bridge.py); the second hop's answer is the answer. With the default bridge policy (`always`) that
   Korean split runs before the one retrieval, whose answer it would replace anyway (two calls, not three); a split
   that finds no name or no answer falls back to the one retrieval and the look. An English bridge is split the
   same way by the question tree's chain prompt when it has a bridge marker (a relative clause, "of the", a
   possessive, a role such as "the director of film X"; one more call; code checks the split keeps the question's
   names).
3. **Decide.** At or above the effort's threshold the answer stands: one call. Below it the question escalates
   to the route its shape calls for (the text router, features.py/router.py, is now only this prior: a
   comparison or an intersection goes to the question tree, whose branches answer each side or constraint; a
   bridge to the chain, which follows its hops), which reuses the cheap attempt's searches (a per-run search memo) and, when it finds
   nothing, leaves the cheap answer standing.

    effort  low | medium | high: how unsure an answer must be before it escalates (the file's thresholds)

Without an index auto answers closed book (`nor`); `route=` forces one route with no cascade.

Trace: the first rung runs on the trace itself (its root is OneR's root); the root also holds the prior
(data{"auto": Decision.to_dict()}), the look (data{"cascade": {"signals", "p_right", "threshold", "effort",
"decision", "to", "reasons", ...}}) and the decision as its Stop (by "cascade"). An escalation hangs under the
root as a sub-tree (kind "route") and takes the answer.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

from gaji import recipes
from gaji.coerce import MAX_K
from gaji.errors import ConfigError
from gaji.methods import bridge, check, compare, intersection, reask
from gaji.methods.auto.explain import wants_paragraph
from gaji.methods.auto.features import bridge_marked, shape_of
from gaji.methods.auto.router import ROUTE_WORDS, ROUTES, Decision, shared_auto_router
from gaji.methods.safety import EFFORT_WORDS, EFFORTS, shared_safety
from gaji.methods.signals import node_signals
from gaji.methods.base import Method, RunContext
from gaji.methods.describe import Facts, stop_facts, word
from gaji.methods.span import is_unknown
from gaji.registry import METHODS
from gaji.text.answers import normalize_en, normalize_ko
from gaji.text.ko_phrases import asks_for_person, without_title
from gaji.text.lang import resolve_lang
from gaji.types import Fact, Node, Stop, Trace

NEEDS_INDEX = ("one", "chain", "tree", "steps")
# a paragraph answer's length, in words (the Korean legal answers of KoBLEX run 10-90 words)
PARAGRAPH_WORDS = 80
BRIDGE_POLICIES = ("off", "short", "always")
# rungs the cascade can start on or escalate to beyond the text router's routes (gaji/recipes.py)
CASCADE_RECIPES = {"steps": "chain-steps"}
# how a signal reads in the trace's reasons, in English and Korean
SIGNAL_WORDS = {
    "lp_mean": ("model's certainty", "모델 확신도"), "lp_min": ("least certain token", "가장 불확실한 토큰"),
    "lp_first": ("certainty of the first token", "첫 토큰 확신도"), "margin": ("margin to the runner-up", "차점과의 차이"),
    "no_logprobs": ("no log-probabilities", "확률 정보 없음"), "unknown": ("says it does not know", "모른다고 답함"),
    "wrong_shape": ("wrong shape after the re-ask", "다시 물어도 답의 형태가 틀림"),
    "reasked": ("asked again", "다시 물음"), "grounded": ("answer found in a passage", "답이 문단에 있음"),
    "names_found": ("the question's names found", "질문의 이름이 문단에 있음"),
    "score_gap": ("top passage stands out", "첫 문단이 두드러짐"),
    "kind_mismatch": ("answer of the wrong kind", "묻는 것과 다른 종류의 답"),
    "answer_words": ("answer length", "답 길이"), "compare": ("comparison", "비교 질문"),
    "intersection": ("two constraints", "두 조건 교집합"), "ko": ("Korean", "한국어"),
}


@METHODS.register("auto", help="adaptive (default): answers with one retrieval, judges that answer's confidence, and "
                               "escalates to a chain or the question tree only when it is unsafe")
class Auto(Method):
    name = "auto"
    needs_retriever = False  # closed book when there is no index
    optional_retriever = True
    option_ranges = {"k": (0, MAX_K)}  # 0: the routed method's own k

    @dataclass
    class Options:
        router: str = ""  # the text router (the prior) from `gaji classifier train-auto` ("" = the shipped one)
        safety: str = ""  # the safety model from `gaji classifier train-cascade` ("" = the shipped one)
        effort: str = "medium"  # low | medium | high: how readily an unsure answer escalates
        route: str = ""  # closed | one | chain | tree: run this route, no cascade ("" = the cascade decides)
        k: int = 0  # passages per retrieval for the route's method (0 = the method's own default)
        # a question that picks one of two named items by a date or a number ("Who was born first, A or B?") is
        # decided by code from each item's value, read one item at a time (gaji/methods/compare.py; two short
        # calls), at effort medium and high; its verdict replaces the cheap answer where they differ. So is a
        # yes/no or which-one question about two items ("Are both A and B American?", "A와 B는 같은 대학교를
        # 나왔나?", "Which author is an economist, A or B?": gaji/methods/check.py)
        compare: bool = True
        # a bridge question ("…정책을 편 당시 서울시장이 태어난 도시는?", "What position was held by the woman who
        # portrayed Corliss Archer?") is split at effort medium and high, a Korean one by code and an English one by
        # the chain prompt (one more call): the described entity resolved to a name, then the rest asked about that
        # name (gaji/methods/bridge.py; two short calls). off | short: its answer replaces the cheap answer when
        # that names the bridge entity (one hop short) | always: whenever it answers
        bridge: str = "always"
        # a Korean intersection question ("…출연한 배우 가운데 청룡영화상 남우주연상을 받은 사람은?") is asked by its
        # second condition alone, retrieved with the set's names, instead of the one retrieval of the whole question
        # (gaji/methods/intersection.py; one call), at effort medium and high
        intersect: bool = True

        def __post_init__(self) -> None:
            if self.route and self.route not in ROUTES + tuple(CASCADE_RECIPES):
                raise ConfigError(f"option route of method 'auto' must be one of "
                                  f"{', '.join(ROUTES + tuple(CASCADE_RECIPES))}, not {self.route!r}")
            if self.bridge not in BRIDGE_POLICIES:
                raise ConfigError(f"option bridge of method 'auto' must be one of {', '.join(BRIDGE_POLICIES)}, "
                                  f"not {self.bridge!r}")
            if self.effort not in EFFORTS:
                raise ConfigError(f"option effort of method 'auto' must be one of {', '.join(EFFORTS)}, "
                                  f"not {self.effort!r}")
            if self.k < 0:
                raise ConfigError(f"option k of method 'auto' must be at least 0, not {self.k}")
            shared_auto_router(self.router)  # a missing or malformed router file fails here
            try:
                shared_safety(self.safety)
            except ConfigError as e:
                raise ConfigError(f"option safety of method 'auto': {e}") from None

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        if "check" in node.data:
            return check.describe(node, lang)
        if "compare_item" in node.data:
            return compare.describe(node, lang)
        if "bridge_hop" in node.data:
            return bridge.describe(node, lang)
        if "intersect_filter" in node.data or "intersect_check" in node.data:
            return intersection.describe(node, lang)
        by = node.data.get("routed_to")
        own = METHODS.get(by).describe(node, lang) if by in METHODS.names() and by != cls.name else []
        if "auto" not in node.data:
            return own
        d = node.data["auto"]
        f = Facts(lang)
        route = d.get("route")
        c = node.data.get("cascade")
        if c:
            f.tag("cascade", "단계", c.get("decision"), word(lang, *CASCADE_WORDS[c["decision"]]))
            sure = c.get("p_right") is not None or c.get("decision") in ("start", "bridged", "narrowed", "long")
            f.decision("confidence", "확신도", sure, cascade_reason(c, lang))
        elif route in ROUTE_WORDS:
            f.tag("route", "경로", route, ROUTE_WORDS[route][1 if lang == "ko" else 0])
            decision = Decision(route, d.get("probs") or {}, d.get("features") or {},
                                [(x, 0.0) for x in d.get("cues") or []], bool(d.get("forced")))
            f.decision("route", "경로", route, decision.reason(lang))
        lines = f.lines + [x for x in own if x not in f.lines]
        if c:  # the cascade's decision is the root's Stop, already said by the confidence line
            return [x for x in lines if x not in stop_facts(node, lang)]
        return lines + [x for x in stop_facts(node, lang) if x not in lines]

    def route_method(self, route: str, router_methods: dict[str, dict[str, Any]], **extra: str) -> Method:
        if route in router_methods:
            spec = router_methods[route]
        else:
            r = recipes.get(CASCADE_RECIPES[route])
            spec = {"method": r.method, "options": dict(r.options)}
        cls = METHODS.get(spec["method"])
        raw = {k: str(v) for k, v in (spec.get("options") or {}).items()}
        raw.update(extra)
        opts = cls.parse_options(raw)
        if self.opts.k and "k" in {f.name for f in dataclasses.fields(opts)}:
            opts = dataclasses.replace(opts, k=self.opts.k)
        return cls(opts)

    def long_answers(self) -> bool:
        return False  # every route answers with a span (the routes run with their short-answer options)

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        self.answer_by_cascade(trace, ctx)
        self.name_without_title(trace, ctx)

    def name_without_title(self, trace: Trace, ctx: RunContext) -> None:
        """A Korean question asking for a person is answered by the name, without the title or role a passage or the
        question gives with it ("오세훈 변호사" -> "오세훈", "윤정훈 목사" -> "윤정훈"); the trace keeps what it was."""
        c = trace.root.data.get("cascade")
        # trace.lang: the language Method.run resolved (ctx.lang, or detected from the question)
        if not c or c.get("decision") == "long" or trace.lang != "ko" or not asks_for_person(trace.question):
            return
        name = without_title(trace.answer or "")
        if name == trace.answer:
            return
        c["untitled"] = {"from": trace.answer, "to": name}
        trace.answer = trace.root.answer = name
        ctx.emit(trace.root)

    def answer_by_cascade(self, trace: Trace, ctx: RunContext) -> None:
        root, q = trace.root, trace.question
        router = shared_auto_router(self.opts.router)
        allowed = ROUTES if ctx.retriever is not None else tuple(r for r in ROUTES if r not in NEEDS_INDEX)
        if self.opts.route:
            if self.opts.route in NEEDS_INDEX and ctx.retriever is None:
                raise ConfigError(f"route {self.opts.route!r} of method 'auto' needs an index: pass --index DIR")
            decision = Decision(self.opts.route, {}, {}, forced=True)
        else:
            decision = router.decide(q, allowed)
        root.data["auto"] = decision.to_dict()
        if self.opts.route or ctx.retriever is None:
            method = self.route_method(decision.route if self.opts.route else "closed", router.methods)
            root.data["route_method"] = {"method": method.name, "options": dataclasses.asdict(method.opts)}
            ctx.emit(root)
            self.run_route(trace, ctx, method)
            return
        ctx = dataclasses.replace(ctx, search_memo={} if ctx.search_memo is None else ctx.search_memo)
        # the question's shape (the text router's features are the prior) and language pick where it starts and
        # where an unsafe answer escalates
        shape = shape_of(q, decision.features or None)
        lang = resolve_lang(ctx.lang, q)
        why_long = wants_paragraph(q, lang)
        if why_long:  # several asks, or what follows from a story: a span would answer none of it
            self.answer_in_paragraph(trace, ctx, shape, why_long, router.methods)
            return
        if self.start_deeper(trace, ctx, shape, lang, router.methods):
            return
        narrowed = self.korean_filter_first(trace, ctx, shape, lang)
        if narrowed is not None and narrowed.answer:
            return
        tried = self.korean_bridge_first(trace, ctx, shape, lang)
        if tried is not None and tried.answer:
            return
        first = self.route_method("one", router.methods, logprobs="true")
        root.data["route_method"] = {"method": first.name, "options": dataclasses.asdict(first.opts)}
        ctx.emit(root)
        self.run_route(trace, ctx, first)
        self.look_and_decide(trace, ctx, shape, lang, router.methods, tried=tried)
        self.word_yes_no(trace, ctx, lang)

    def answer_in_paragraph(self, trace: Trace, ctx: RunContext, shape: str, why: str,
                            router_methods: dict[str, dict[str, Any]]) -> None:
        """A question that wants a paragraph (explain.py) is answered by one retrieval and a cited paragraph (OneR's
        long style), kept whole: one call. The safety model judges short answers, so nothing escalates."""
        method = self.route_method("one", router_methods, style="long", words=str(PARAGRAPH_WORDS))
        cascade = {"decision": "long", "why": why, "shape": shape, "effort": self.opts.effort, "to": None,
                   "first_answer": None}
        trace.root.data["cascade"] = cascade
        trace.root.data["route_method"] = {"method": method.name, "options": dataclasses.asdict(method.opts)}
        trace.root.stop = Stop(True, reason=cascade_reason(cascade, ctx.lang), by="cascade")
        ctx.emit(trace.root)
        self.run_route(trace, ctx, method)

    def answered_long(self, trace: Trace) -> bool:
        return (trace.root.data.get("cascade") or {}).get("decision") == "long"

    def korean_bridge_first(self, trace: Trace, ctx: RunContext, shape: str, lang: str) -> bridge.Hop | None:
        """A Korean bridge that code splits, followed before any other call when its second hop's answer will be the
        answer whatever the one retrieval says (policy `always`): the one-retrieval call would only be thrown away.
        Its answer settles the question (two calls); a hop that finds no name or no answer is returned, and the
        question goes on as any other (one retrieval, the look) without asking the split again. None when it is
        no such question or the split does not apply."""
        if lang != "ko" or self.opts.bridge != "always" or self.opts.effort == "low" or shape == "intersection":
            return None
        q, root = trace.question, trace.root
        if compare.parse_comparison(q, lang) is not None or check.parse_check(q, lang) is not None:
            return None  # a choice or a yes/no question: the code comparison's, after the first look
        b = bridge.parse_bridge(q, lang)
        if b is None:
            return None
        ctx.emit(root)
        hop = within_time(ctx, root, lambda c: bridge.follow(c, root, b))
        if hop is None or not hop.answer:
            return hop
        root.data["cascade"] = {"effort": self.opts.effort, "shape": shape, "first_answer": None, "bridge_first": True,
                                "bridge": hop.to_dict()}
        self.take_hop(trace, ctx, hop, root.data["cascade"])
        return hop

    def korean_filter_first(self, trace: Trace, ctx: RunContext, shape: str, lang: str
                            ) -> intersection.Narrowed | None:
        """A Korean intersection question that code splits, asked by its second condition in place of the one
        retrieval (one call). Its answer settles the question; a filter that finds nothing is returned, and the
        question goes on as any other. None when it is no such question or the option is off."""
        if lang != "ko" or not self.opts.intersect or self.opts.effort == "low":
            return None
        x = intersection.parse_intersection(trace.question, lang)
        if x is None:
            return None
        root = trace.root
        ctx.emit(root)
        narrowed = within_time(ctx, root, lambda c: intersection.narrow(c, root, x))
        if narrowed is not None:  # the answer checked against the set's own passages
            narrowed = within_time(ctx, root, lambda c: intersection.confirm(c, root, narrowed)) or narrowed
        if narrowed is None or not narrowed.answer:
            return narrowed
        cascade = {"effort": self.opts.effort, "shape": shape, "decision": "narrowed", "to": None,
                   "first_answer": None, "intersection": narrowed.to_dict()}
        root.data["cascade"] = cascade
        trace.answer = narrowed.answer
        trace.citations = narrowed.citations or list(trace.citations)
        trace.explanation = f"{x.filter} {narrowed.answer}"
        settle(trace, ctx, cascade)
        return narrowed

    def word_yes_no(self, trace: Trace, ctx: RunContext, lang: str) -> None:
        """A yes/no question's answer is the plain word ("예", "no"), like every other short answer a span; the
        sentence the reader wrapped it in ("네, 두 사람 모두 …") stays as the explanation."""
        plain = check.plain_yes_no(trace.question, trace.answer or "", lang)
        if plain is None or plain.lower() == (trace.answer or "").strip().strip(".!").lower():
            return
        trace.explanation = trace.explanation or trace.answer
        trace.root.data.setdefault("cascade", {})["worded"] = {"from": trace.answer, "to": plain}
        trace.answer = trace.root.answer = plain
        ctx.emit(trace.root)

    def start_deeper(self, trace: Trace, ctx: RunContext, shape: str, lang: str,
                     router_methods: dict[str, dict[str, Any]]) -> bool:
        """A question of a shape the safety model starts deeper in its language skips the one retrieval (where a
        deeper route beats it on nearly every such question, a first look would only add its cost and time; the
        shipped model starts nothing deeper). Returns whether it did."""
        to = shared_safety(self.opts.safety).start_route(shape, lang, self.opts.effort)
        if to is None:
            return False
        cascade = {"decision": "start", "shape": shape, "to": to, "effort": self.opts.effort}
        trace.root.data["cascade"] = cascade
        trace.root.stop = Stop(False, reason=cascade_reason(cascade, ctx.lang), by="cascade")
        method = self.route_method(to, router_methods)
        trace.root.data["route_method"] = {"method": method.name, "options": dataclasses.asdict(method.opts)}
        ctx.emit(trace.root)
        self.run_route(trace, ctx, method)
        return True

    def look_and_decide(self, trace: Trace, ctx: RunContext, shape: str, lang: str,
                        router_methods: dict[str, dict[str, Any]], tried: bridge.Hop | None = None) -> None:
        """Judge the cheap answer; let it stand, or escalate to the route the question's shape calls for. `tried`: a
        bridge split already followed (before the cheap answer) that found no answer: not asked again."""
        root, q = trace.root, trace.question
        safety = shared_safety(self.opts.safety)
        passages = [trace.passages[i] for i in root.passage_ids if i in trace.passages]
        signals = node_signals(root, q, trace.answer, passages, ctx.lang, shape=shape)
        p = safety.p_right(signals)
        threshold = safety.threshold(self.opts.effort, lang)
        # an answer that, after the re-ask, still says the question back answers nothing, however sure the model
        # was of its tokens (they are the question's own): it never stands
        restated = reask.restates(trace.answer or "", q)
        # nor does one that, after the re-ask, is still only a name the question itself gives where the question
        # offers no options ("프랑스" for "… 견준 프랑스 왕비가 태어난 도시는?"): the reader found nothing new
        echoed = not restated and reask.echoes(trace.answer or "", q, lang)
        stands = p >= threshold and not restated and not echoed
        to = safety.escalation(shape, lang)
        cascade: dict[str, Any] = {
            "signals": signals, "p_right": round(p, 4), "threshold": threshold, "effort": self.opts.effort,
            "decision": "stand" if stands else "escalate", "shape": shape, "to": None if stands else to,
            "reasons": [[name, round(v, 3)] for name, v in safety.reasons(signals)],
        }
        if restated:
            cascade["restated"] = True
        if echoed:
            cascade["echoed"] = True
        root.data["cascade"] = cascade
        verdict = self.compare_by_values(trace, ctx, lang)
        if verdict is not None and verdict.answer is None and not isinstance(verdict, check.CheckVerdict):
            # a first answer that ends as its question does ("…배우는 김태희가 먼저 영화에 데뷔했나") asks the choice
            # back, whichever name it holds: it picks nothing
            asked_back = not restated and reask.asks_back(trace.answer or "", q)
            if asked_back:
                cascade["asked_back"] = True
            if restated or asked_back or not verdict.names_an_item(trace.answer or ""):
                # the values left the choice open and the first answer names neither item ("유아인" for "전지현과
                # 김태희 중") or only says the question back: it cannot be right, so the reader picks one of the
                # two names over their passages
                verdict = within_time(ctx, root, lambda c: compare.choose(c, root, verdict)) or verdict
        if verdict is not None:
            cascade["computed"] = verdict.to_dict()
            if verdict.answer is not None:
                self.take_verdict(trace, ctx, verdict, cascade)
                return
        hop = tried if tried is not None else self.follow_bridge(trace, ctx, shape, lang, p)
        if hop is not None:
            cascade["bridge"] = hop.to_dict()
            if hop.answer and (self.opts.bridge == "always" or hop.names_bridge(trace.answer)):
                if restated or echoed or not sentence_for_name(hop.answer, trace.answer or ""):
                    self.take_hop(trace, ctx, hop, cascade)
                    return
                # the second hop said a sentence where one retrieval named something: the sentence restates the
                # question around its answer, or answers beside it, more often than it corrects the name
                cascade["bridge"]["kept_first"] = "sentence"
        root.stop = Stop(stands, reason=cascade_reason(cascade, ctx.lang), by="cascade", score=round(p, 4))
        if stands:
            ctx.emit(root)
            return
        cheap = (trace.answer, list(trace.citations), trace.explanation)
        cascade["first_answer"] = trace.answer  # what one retrieval said: kept for the record and for comparison
        budget = EscalationBudget.of(ctx, root)
        if budget is not None and not budget.can_start():
            self.keep_cheap(trace, ctx, cheap, cascade, out_of_time=True)
            return
        ctx.emit(root)
        esc_ctx = ctx if budget is None else dataclasses.replace(ctx, llm=ctx.llm.checked(budget.check))
        try:
            self.run_escalation(trace, esc_ctx, self.route_method(to, router_methods))
        except OutOfTime:
            self.keep_cheap(trace, ctx, cheap, cascade, out_of_time=True)
            return
        if not trace.answer or is_unknown(trace.answer):
            self.keep_cheap(trace, ctx, cheap, cascade)
            return
        root.answer = trace.answer
        ctx.emit(root)

    def compare_by_values(self, trace: Trace, ctx: RunContext, lang: str) -> compare.Verdict | None:
        """A comparison of two named items by a date or a number, or a yes/no or which-one question about two
        items (gaji/methods/check.py), looked up item by item and decided by code; None when the question is no
        such question, the option is off, the effort is low or the run's time limit leaves no room."""
        if not self.opts.compare or self.opts.effort == "low":
            return None
        comparison = compare.parse_comparison(trace.question, lang)
        yes_no = check.parse_check(trace.question, lang) if comparison is None else None
        if (comparison is None and yes_no is None) or not EscalationBudget.room(ctx, trace.root):
            return None
        # a described item is resolved as a Korean bridge when its description hides another entity
        resolve = bridge.resolve_described
        if yes_no is not None:
            return within_time(ctx, trace.root, lambda c: check.look_up(c, trace.root, yes_no, resolve))
        return within_time(ctx, trace.root, lambda c: compare.look_up(c, trace.root, comparison, resolve))

    def take_verdict(self, trace: Trace, ctx: RunContext, verdict: compare.Verdict, cascade: dict[str, Any]) -> None:
        """The values decided the comparison: the answer stands when it names the picked item (worded as the item),
        else the picked item replaces it (the order line is the explanation, the items' passages the citations)."""
        if verdict.agrees_with(trace.answer):
            # the item as the question names it: an answer that agrees may be a sentence around it ("강완구 판사는
            # 1945년 …에서 태어났습니다"), whose span would be cut to the date
            cascade.update(decision="stand", to=None, first_answer=trace.answer)
            trace.answer = verdict.worded(trace.answer)
        else:
            cascade.update(decision="computed", to=None, first_answer=trace.answer)
            trace.answer = verdict.answer or trace.answer
            trace.citations = verdict.citations or list(trace.citations)
            trace.explanation = verdict.hint
        settle(trace, ctx, cascade)

    def follow_bridge(self, trace: Trace, ctx: RunContext, shape: str, lang: str, p_right: float
                      ) -> bridge.Hop | None:
        """A bridge question split in two and followed (resolve, then ask the rest): a Korean one split by code, an
        English one by the chain prompt when the first answer's P(right) is below the effort's `SPLIT_BELOW`; None
        when it is no such question, the option is off, the effort is low or the run's time limit leaves no
        room."""
        if self.opts.bridge == "off" or self.opts.effort == "low" or shape == "intersection":
            return None
        if shape != "other" and lang != "ko":
            return None
        if lang not in ("ko", "en") or not EscalationBudget.room(ctx, trace.root):
            return None
        root, q = trace.root, trace.question
        if lang == "ko":
            # by code, whatever the shape's text cues say: a described entity with two names in it reads as "compare"
            # ("유길준이 … 명성황후를 그보다 더 악하다고 비판하며 견준 프랑스 왕비가 태어난 도시는?"), and a real choice
            # is no bridge (parse_bridge refuses "A와 B 중", and the comparison rung has already taken it)
            b = bridge.parse_bridge(q, lang)
            return None if b is None else within_time(ctx, root, lambda c: bridge.follow(c, root, b))
        if not bridge_marked(q) or p_right >= SPLIT_BELOW.get(self.opts.effort, math.inf):
            # no relative clause, "of the" or possessive to hide an entity behind (on HotpotQA's dev questions every
            # split that answered but one had such a marker), or a first answer sure enough: it keeps its one call
            return None

        def split_and_follow(c: RunContext) -> bridge.Hop | None:
            s = bridge.split(c, root, q, lang)
            return None if s is None else bridge.follow(c, root, s)
        return within_time(ctx, root, split_and_follow)

    def take_hop(self, trace: Trace, ctx: RunContext, hop: bridge.Hop, cascade: dict[str, Any]) -> None:
        """The second hop's answer is the answer (the first answer, when there was one, is kept in the record)."""
        cascade.update(decision="bridged", to=None)
        cascade.setdefault("first_answer", trace.answer)
        trace.answer = hop.answer
        trace.citations = hop.citations or list(trace.citations)
        trace.explanation = f"{hop.name}: {hop.bridge.second_question(hop.name or '')}"
        settle(trace, ctx, cascade)

    def keep_cheap(self, trace: Trace, ctx: RunContext, cheap: tuple, cascade: dict[str, Any],
                   out_of_time: bool = False) -> None:
        """The one-retrieval answer is the answer: the escalation found nothing, or the run's time limit came too
        near to start or finish it (the answer in hand beats a timed-out request)."""
        trace.answer, trace.citations, trace.explanation = cheap[0], cheap[1], cheap[2]
        cascade["kept_cheap"] = True
        if out_of_time:
            cascade["out_of_time"] = True
            stop_running(trace.root)
        trace.root.answer = trace.answer
        trace.root.stop = Stop(False, reason=cascade_reason(cascade, ctx.lang), by="cascade",
                               score=cascade.get("p_right"))
        ctx.emit(trace.root)

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
        """Run `method` as a sub-tree of the root (after an unsafe cheap answer); it takes the answer."""
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
            sub.root.kind = "route"  # a method may name its own root (the tree does)
            sub.root.answer = sub.root.answer or sub.answer
            trace.answer, trace.citations, trace.explanation = sub.answer, list(sub.citations), sub.explanation
            ctx.emit(sub.root)
        return sub.root


def sentence_for_name(new: str, first: str) -> bool:
    """Is `new` a sentence (SENTENCE_WORDS words or more) where the first answer was a short name (at most NAME_WORDS
    words, not "unknown")?"""
    n = len(first.split())
    return len(new.split()) >= SENTENCE_WORDS and 0 < n <= NAME_WORDS and not is_unknown(first)


# a bridge hop's answer of SENTENCE_WORDS words or more does not replace a first answer of NAME_WORDS words or fewer:
# over every recorded auto run (benchmarks/auto/cascade/NOTES.md) such replacements lowered F1 7 times, raised it
# 2 times (by 0.38 and 0.09) and left it 3 times; on the Korean and HotpotQA dev parts alone 3 lowered, none raised
SENTENCE_WORDS = 8
NAME_WORDS = 4

# an English bridge is split (one more call, then two) only when the first answer's P(right) is below this: on the
# 28 "other"-shaped HotpotQA dev questions (benchmarks/auto/cascade/NOTES.md) splitting below 0.6 scored 45.6 F1,
# below 0.45-0.55 44.2, always 42.1 (the two hops that made answers worse followed answers at 0.58 and 0.61); an
# effort not named here (high) splits whatever the P(right)
SPLIT_BELOW = {"medium": 0.6}

CASCADE_WORDS = {"stand": ("answered with one retrieval", "한 번 검색으로 답함"),
                 "computed": ("compared by code", "코드로 비교함"),
                 "bridged": ("followed the bridge", "연결 개체를 따라감"),
                 "narrowed": ("asked the second condition", "두 번째 조건으로 물음"),
                 "long": ("answered in a paragraph", "문단으로 답함"),
                 "escalate": ("escalated", "더 찾아봄"),
                 "start": ("started deeper", "처음부터 깊게 찾음")}
SHAPE_WORDS = {"compare": ("a comparison", "비교 질문"), "intersection": ("two conditions", "두 조건 질문"),
               "other": ("a chain of facts", "사실이 이어지는 질문")}


def settle(trace: Trace, ctx: RunContext, cascade: dict[str, Any]) -> None:
    """The trace's answer is final: the root holds it, and the cascade's decision is the root's Stop."""
    trace.root.answer = trace.answer
    trace.root.stop = Stop(True, reason=cascade_reason(cascade, ctx.lang), by="cascade", score=cascade.get("p_right"))
    ctx.emit(trace.root)


def cascade_reason(c: dict[str, Any], lang: str) -> str:
    """The look in words: "P(right) 0.63 >= 0.16 at effort medium: the answer stands (answer found in a passage +,
    model's certainty +)"."""
    ko = lang == "ko"
    effort = EFFORT_WORDS.get(c.get("effort", ""), (c.get("effort", ""),) * 2)[1 if ko else 0]
    if c.get("decision") == "start":
        shape = SHAPE_WORDS.get(c.get("shape") or "", ("", ""))[1 if ko else 0]
        to = ROUTE_WORDS.get(c.get("to") or "", ("", ""))[1 if ko else 0]
        return (f"{shape}: {to}(으)로 바로 시작 (노력 {effort})" if ko
                else f"{shape}: started on {to} (effort {effort})")
    p, t = c.get("p_right", 0.0), c.get("threshold", 0.0)
    rel = ">=" if p >= t else "<"
    why = ", ".join(f"{SIGNAL_WORDS.get(n, (n, n))[1 if ko else 0]} {'+' if v > 0 else '-'}"
                    for n, v in (c.get("reasons") or [])[:2])
    computed = c.get("computed") or {}
    if computed.get("answer") is not None:
        hint = computed.get("hint") or ""
        if computed.get("why") == "chosen" and (c.get("restated") or c.get("asked_back")):
            return (f"두 항목의 값으로 정하지 못했고 첫 답은 질문을 되풀이함: 두 이름 중 하나를 고르게 함: "
                    f"{computed['answer']} ({hint})" if ko else
                    f"the values left the choice open and the first answer only said the question back: the reader "
                    f"picked one of the two names: {computed['answer']} ({hint})")
        if computed.get("why") == "chosen":
            return (f"두 항목의 값으로 정하지 못해(첫 답 {c.get('first_answer')!r}은(는) 둘 다 아님) 두 이름 중 하나를 "
                    f"고르게 함: {computed['answer']} ({hint})" if ko else
                    f"the values left the choice open and the first answer {c.get('first_answer')!r} named neither "
                    f"item: the reader picked one of the two names: {computed['answer']} ({hint})")
        if c.get("decision") == "computed":
            return (f"두 항목의 값을 하나씩 찾아 코드로 비교: {computed['answer']} ({hint}); 첫 답 "
                    f"{c.get('first_answer')!r}을(를) 바꿈" if ko else
                    f"looked up each item's value and compared them by code: {computed['answer']} ({hint}); "
                    f"replaced the first answer {c.get('first_answer')!r}")
        return (f"두 항목의 값을 하나씩 찾아 코드로 비교한 결과가 답과 같음 ({hint})" if ko else
                f"looked up each item's value and compared them by code: it agrees with the answer ({hint})")
    if c.get("decision") == "long":
        if c.get("why") == "several":
            return ("여러 가지를 묻는 질문: 한 번 검색해 출처를 단 한 문단으로 답함" if ko else
                    "the question asks several things: one retrieval, answered in a cited paragraph")
        return ("사실관계를 들고 그 결과를 묻는 질문: 한 번 검색해 출처를 단 한 문단으로 답함" if ko else
                "the question asks what follows from the facts it sets out: one retrieval, answered in a cited "
                "paragraph")
    if c.get("decision") == "narrowed":
        x = c.get("intersection") or {}
        checked = {"in the set": ("; 첫 번째 조건의 문서에도 나옴", "; the first condition's passages name it too"),
                   "chosen": ("; 첫 번째 조건의 문서에 없어 두 조건의 문서에 함께 나오는 이름 가운데 고름",
                              "; not named by the first condition's passages, so picked among the names both hold"),
                   "unconfirmed": ("; 첫 번째 조건의 문서로 확인하지 못함",
                                   "; not confirmed by the first condition's passages")}.get(x.get("why"), ("", ""))
        return (f"두 조건 질문: 두 번째 조건({x.get('filter')})만 {x.get('members')}의 이름과 함께 찾아 물음{checked[0]}"
                if ko else f"two conditions: asked the second ({x.get('filter')}) alone, retrieved with the names of "
                f"{x.get('members')!r}{checked[1]}")
    if c.get("decision") == "bridged":
        b = c.get("bridge") or {}
        if c.get("bridge_first"):
            return (f"질문이 묘사한 개체를 먼저 찾고({b.get('name')}) 나머지를 물음 (한 번 검색 답은 건너뜀)" if ko else
                    f"found the entity the question describes first ({b.get('name')}) and asked the rest about it "
                    f"(no one-retrieval answer first)")
        first = c.get("first_answer")
        if same_answer(b.get("answer"), first):
            return (f"질문이 묘사한 개체를 먼저 찾고({b.get('name')}) 나머지를 물음; 첫 답 {first!r}과(와) 같은 답"
                    if ko else f"found the entity the question describes first ({b.get('name')}) and asked the rest "
                    f"about it; it agrees with the first answer {first!r}")
        return (f"질문이 묘사한 개체를 먼저 찾고({b.get('name')}) 나머지를 물음; 첫 답 {first!r}을(를) 바꿈"
                if ko else f"found the entity the question describes first ({b.get('name')}) and asked the rest "
                f"about it; replaced the first answer {first!r}")
    if c.get("decision") == "stand":
        what = "답을 그대로 냄" if ko else "the answer stands"
    else:
        to = ROUTE_WORDS.get(c.get("to") or "", ("", ""))[1 if ko else 0]
        what = f"{to}(으)로 확대" if ko else f"escalated to {to}"
    head = f"{'맞을 확률' if ko else 'P(right)'} {p:.2f} {rel} {t:.2f} ({'노력' if ko else 'effort'} {effort}): {what}"
    if c.get("restated"):
        head = (f"답이 질문을 되풀이할 뿐이라 답으로 둘 수 없음: {what}" if ko else
                f"the answer only says the question back, so it cannot stand: {what}")
    elif c.get("echoed"):
        head = (f"답이 질문에 이미 나온 말일 뿐이라 답으로 둘 수 없음: {what}" if ko else
                f"the answer is only something the question itself names, so it cannot stand: {what}")
    tail = f" ({why})" if why else ""
    if (c.get("signals") or {}).get("no_logprobs"):
        tail += "; 확률 정보 없이 판단" if ko else "; no log-probabilities"
    if c.get("out_of_time"):
        tail += "; 시간 제한이 가까워 첫 답 유지" if ko else "; time limit near: first answer kept"
    elif c.get("kept_cheap"):
        tail += "; 확대한 경로가 답을 못 찾아 첫 답 유지" if ko else "; escalation found nothing: first answer kept"
    if (c.get("bridge") or {}).get("kept_first") == "sentence":
        tail += ("; 연결 개체를 따라간 답이 문장이라 첫 답 유지" if ko else
                 "; the bridge's second hop answered with a sentence: first answer kept")
    return head + tail


def same_answer(a: str | None, b: str | None) -> bool:
    """Two answers that say the same once case, punctuation, articles and Korean endings are set aside ("1945" and
    "1945.", "The Pacific War" and "Pacific War", "1446년" and "1446년이다")."""
    if not a or not b:
        return False
    return normalize_ko(normalize_en(a)) == normalize_ko(normalize_en(b))


def within_time(ctx: RunContext, root: Node, rung: Callable[[RunContext], Any]) -> Any:
    """Run a code rung (its look-ups are calls like an escalation's) under the run's time limit: a call that would
    overrun it is not started, and the rung gives nothing (None), so the cheap answer stands."""
    budget = EscalationBudget.of(ctx, root)
    if budget is None:
        return rung(ctx)
    try:
        return rung(dataclasses.replace(ctx, llm=ctx.llm.checked(budget.check)))
    except OutOfTime:
        root.data.setdefault("cascade", {})["out_of_time"] = True
        stop_running(root)
        return None


def stop_running(root: Node) -> None:
    """Mark the nodes under `root` that a time limit cut off mid-call as stopped, not left running."""
    for n in root.walk():
        if n is not root and n.status == "running":
            n.status = "stopped"


class OutOfTime(BaseException):
    """The escalation would overrun the run's time limit. A BaseException, like the server's Cancelled, so that no
    method's `except Exception` inside the escalation swallows it: the run unwinds to auto, which keeps the cheap
    answer."""


@dataclass
class EscalationBudget:
    """When an escalation may start and must stop, from the run's time left (RunContext.time_left).

    One LLM call cannot be cut short once started, so the escalation stops before a call when less than
    `reserve_s` is left, and starts only with at least `start_s` left. Both scale with what the cheap call took on
    this machine (a busy 2-core box is several times slower than an idle one)."""

    time_left: Callable[[], float | None]
    reserve_s: float
    start_s: float

    @classmethod
    def of(cls, ctx: RunContext, root: Node) -> "EscalationBudget | None":
        if ctx.time_left is None or ctx.time_left() is None:
            return None
        call_s = max((c.wall_ms for c in root.calls), default=0.0) / 1000.0
        reserve = RESERVE_MIN_S + RESERVE_CALLS * call_s
        return cls(ctx.time_left, reserve, reserve + START_CALLS * call_s)

    @classmethod
    def room(cls, ctx: RunContext, root: Node) -> bool:
        """Is there time for more calls after the first one (always, without a time limit)?"""
        budget = cls.of(ctx, root)
        return budget is None or budget.can_start()

    def left(self) -> float:
        v = self.time_left()
        return float("inf") if v is None else v

    def can_start(self) -> bool:
        return self.left() >= self.start_s

    def check(self) -> None:
        if self.left() < self.reserve_s:
            raise OutOfTime(f"{self.left():.1f} s left, {self.reserve_s:.1f} s kept in reserve")


RESERVE_MIN_S = 5.0  # seconds always kept for returning the answer
RESERVE_CALLS = 2.0  # ... plus this many cheap calls' time: a call started now must end before the limit
START_CALLS = 3.0  # an escalation starts only with room for this many more calls beyond the reserve
