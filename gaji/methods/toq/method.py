"""Tree-of-Question (ToQ): the paper's Algorithm 1 as a gaji method (`--method toq`).

    function TREEOFQUESTION(Node)                                   -> TreeOfQuestion.tree_of_question
      5  determine Level of Node (and hop count)                    -> set when the node is created
      6  identify dependent nodes, Answer Integrator fills [ANS_N],
         modify Root or Node if needed                              -> integrate_dependencies
      7  generate query from the (modified) Root or Node            -> search_and_answer: QueryGenerator
      8  generate response from the query and retrieved documents   -> search_and_answer: retrieve,
                                                                       AnswerIntegrator.judge, ResponseGenerator
      9  Eval <- Query Evaluator(query, response)                   -> evaluate
     10  if Eval is positive: return
     13  DecomposedNodes <- decompose Node into sub-questions        -> decompose: QuestionDecomposer
     14  for each SubNode: create Node, update Level, recurse        -> expand_children (waves of independent
                                                                       siblings in parallel; dependents wait)
    (§3.1) the question is then answered from the created nodes'
           responses, and the root re-evaluated                     -> integrate_children

Hybrid questions (Table 1) expand dynamically: a sub-question marked "each" whose `[ANS_N]` turns
out to be a list becomes one comparison node per item (`expand_items`).

A component that fails after its retries (LLMError) marks its node failed (status, error); the run
goes on and ends with the best answer it has.

The algorithm's own state of a node (its slot answers, explanation, cited documents, whether it asks
about each item of a list) lives in a `NodeState`; the trace gets the facts (Node.data, read by the
benchmarks and shown by `describe`) and Node.stop when a node is not split:
    sub-nodes     data{type, index, depends_on, each, item}   how the parent's decomposition made them
    slots         data{slot_answers, unfilled, rewritten, rewrite_error}
    search        data{queries, no_relevant, evidence}
    answer        data{explanation, cited, first_answer}   (first_answer: the level's answer before integration)
    evaluation    data{evaluation, eval_reason, first_scores}
    split         data{decomposition, decomposition_model, repeated_subquestions, route, waves, items,
                  order_hint, order_decided, intersect_decided, depth, rejected_split}
    root          data{answer_from, explanation, depth, failed_nodes}
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from gaji.coerce import MAX_BRANCH, MAX_DEPTH
from gaji.errors import ConfigError, LLMError
from gaji.methods.base import Method, RunContext
from gaji.methods.common import attribute, check_trim, interleave_ranked
from gaji.methods.describe import Facts, stop_facts, word
from gaji.methods.safety import shared_safety
from gaji.methods.signals import node_signals
from gaji.methods.toq.decomposer import INTERSECT_SPLITS, QuestionDecomposer
from gaji.methods.toq.evaluator import QueryEvaluator
from gaji.methods.toq.integrator import MODES as INTEGRATE_MODES
from gaji.methods.toq.integrator import AnswerIntegrator, serial_map
from gaji.methods.toq.intersect import agree
from gaji.methods.toq.order import decide, order_hint
from gaji.methods.toq.prompts import PROMPTS, is_unknown
from gaji.methods.toq.query_generator import QueryGenerator
from gaji.methods.toq.responder import Response, ResponseGenerator
from gaji.methods.toq.router import shared_router
from gaji.methods.toq.tree import fill_slots, slot_refs, split_list_answer
from gaji.registry import METHODS
from gaji.text.longform import tidy_long_answer
from gaji.types import Fact, Node, Passage, Stop, Trace


@METHODS.register("toq", help="Tree-of-Question: answer, evaluate, and decompose into a tree of sub-questions when needed")
class ToQ(Method):
    """Tree-of-Question (Lee et al., Naver): recursive question decomposition with an LLM query evaluator."""

    name = "toq"
    option_ranges = {"max_depth": (1, MAX_DEPTH), "max_children": (2, MAX_BRANCH), "max_items": (2, MAX_BRANCH)}

    @dataclass
    class Options:
        max_depth: int = 4  # the paper's limit: levels 1..4 (the root is level 1)
        k: int = 5  # passages per retrieval (the paper's search engine returned 3)
        max_children: int = 4  # sub-questions per decomposition
        max_items: int = 5  # hybrid: list items expanded into one node each
        max_nodes: int = 16  # budget on the whole tree (root included)
        evaluate_root: bool = True  # level 1: answer the question with one retrieval, stop if positive
        evaluate_subs: bool = True  # evaluate sub-nodes (off: a sub-node with a known answer counts as positive)
        evaluate_final: bool = True  # re-evaluate the root once its children's answers are integrated
        min_overall: float = 0.0  # positive = response_validity (the paper) and overall >= this
        # answer integrator's relevance judgement: one call per document (paper) | "batch" (one call) | "none" (no
        # call: every retrieved document is evidence, as in OneR; the 1.5B judged the answer-bearing Korean paragraph
        # irrelevant often enough that the judgement cost ~45 % of the tree's tokens and bought nothing, benchmarks/auto/NOTES.md)
        integrate: str = "per_doc"
        rewrite_slots: bool = True  # let the integrator rewrite a node whose filled-in answer is long
        doc_chars: int = 700  # each document is cut to this many characters in prompts …
        # … by keeping its head ("head") or, in the node reader's prompt, its sentences most relevant to the
        # node's question, query and sub-answers ("relevant"; gaji.text.select)
        passage_trim: str = "head"
        answer_style: str = "short"  # trace.answer: the root's short answer | "long": its explanation (long-form sets)
        # what f_RG reads: "relevant" = the documents the answer integrator judged relevant (all of them when it
        # judged none relevant) | "all" = every retrieved document (Algorithm 1, line 8: "based on the query and
        # retrieved documents"); the judgements and spans are recorded either way
        evidence: str = "relevant"
        # how f_RG answers: "plain" = OneR's plain prompt over the node's documents (only the answer; sub-answers
        # given as context lines) | "json" = explanation + answer, few-shot (the paper's; recipe toq-paper). On
        # HotpotQA dev questions 51-80 at depth 1, plain scored F1 50.9 against 34.5 for json
        # (benchmarks/toq/NOTES.md), so plain is the default. answer_style=long always uses json.
        respond: str = "plain"
        # respond plain: a node's answer of the wrong shape is asked about once more (gaji.methods.reask; purpose
        # "reask"): one its question names ("명성황후" for "고종과 명성황후의 신임으로 … 복직한 인물은?"), or a value
        # where the question asks which one
        reask: bool = False
        parallel: bool = True  # independent siblings (and per-document judgements) run in parallel
        # what retrieves a node's documents: "query" = the generated search query (Algorithm 1, line 7) | "both" =
        # the generated query and the node's (slot-filled) question, each top k, interleaved (query first) to k
        search: str = "query"
        # a comparison node whose children's answers are all dates (or all numbers) gets one more context line
        # naming its items in order, computed by code (gaji.methods.toq.order): small models misorder dates
        order_hints: bool = False
        # the root, answered from its children, also reads the top documents for the whole question (retrieved with
        # the question itself: no query call), interleaved with what the children cited, k in all: the final
        # reader sees the tree's evidence and OneR's, so a wrong split or a lost hop does not hide what one
        # retrieval finds (not in the paper)
        final_search: bool = False
        # a comparison node whose items code can put in order (as for order_hints) and whose question asks plainly
        # for one end ("first", "more", "먼저", "더 많은"; gaji.methods.toq.comparative) is answered by code: that
        # item, the order line as its explanation, no responder call (the 1.5B model misorders dates it has read;
        # not in the paper: recipe toq-paper and the runs recorded before it turn it off)
        order_decide: bool = True
        # the decomposer's prompt: "paper" = Prompt B.2 decides the split | "routed" = a trained shape router picks
        # chain or compare first and the LLM fills that shape only (gaji/methods/toq/router.py; not in the paper)
        decomposer: str = "paper"
        router: str = ""  # routed: a router file from `gaji classifier train-router` (default: the shipped one)
        # routed: a question the router does not call a comparison and that code reads as two or more constraints
        # on one asked-for thing ("…했고, …한 인물은?", "Which actor was born in A and directed B?";
        # gaji.methods.toq.intersect) is split into independent questions, one per constraint, instead of a chain
        # whose second hop can overwrite a right first answer
        intersect: bool = False
        # how such a question is split: "code" = cut from the question's own clauses (intersect.split; no LLM call;
        # one it cannot cut cleanly is asked as a chain) | "llm" = the intersect prompt (the 1.5B model copied the
        # question or misspelt its names)
        intersect_split: str = "code"
        # an intersection node (the intersect prompt's, or Prompt B.2's "intersection") whose children's answers
        # hold one common item (after the answer metrics' normalisation; "최익현" = "면암 최익현"; a list answer
        # counts as its items) is answered with it by code, no responder call; when they disagree the node's reader
        # runs (not in the paper: recipe toq-paper and the runs recorded before it turn it off)
        intersect_decide: bool = True
        # what decides that a sub-question's answer is good enough to stop there: "evaluator" = the paper's query
        # evaluator (one more call per node) | "confidence" = the reader's own answer judged by auto's safety model
        # (gaji.methods.safety: its log-probabilities, grounding, shape; no extra call): a confident node stops,
        # an unsure one is split. The root is judged as `evaluate_root` says either way
        check: str = "evaluator"
        effort: str = "medium"  # check=confidence: the safety model's threshold (low | medium | high)

        def __post_init__(self) -> None:
            check_trim("toq", self.passage_trim)
            if self.check not in ("evaluator", "confidence"):
                raise ConfigError(f"option check of method 'toq' must be evaluator or confidence, not {self.check!r}")
            if self.check == "confidence":
                shared_safety("").threshold(self.effort)  # a bad effort or a missing model fails here
            if self.intersect_split not in INTERSECT_SPLITS:
                raise ConfigError(f"option intersect_split of method 'toq' must be code or llm, not {self.intersect_split!r}")
            if self.answer_style not in ("short", "long"):
                raise ConfigError(f"option answer_style of method 'toq' must be short or long, not {self.answer_style!r}")
            if self.respond not in ("json", "plain"):
                raise ConfigError(f"option respond of method 'toq' must be json or plain, not {self.respond!r}")
            if self.evidence not in ("relevant", "all"):
                raise ConfigError(f"option evidence of method 'toq' must be relevant or all, not {self.evidence!r}")
            if self.search not in ("query", "both"):
                raise ConfigError(f"option search of method 'toq' must be query or both, not {self.search!r}")
            if self.decomposer not in ("paper", "routed"):
                raise ConfigError(f"option decomposer of method 'toq' must be paper or routed, not {self.decomposer!r}")
            if self.integrate not in INTEGRATE_MODES:
                raise ConfigError(f"option integrate of method 'toq' must be one of {', '.join(INTEGRATE_MODES)}, "
                                  f"not {self.integrate!r}")
            for name, low in (("max_depth", 1), ("k", 1), ("max_children", 2), ("max_items", 2), ("max_nodes", 1)):
                if getattr(self, name) < low:
                    raise ConfigError(f"option {name} of method 'toq' must be at least {low}, not {getattr(self, name)}")
            if self.decomposer == "routed":
                shared_router(self.router)  # a missing or malformed router file fails here (read once, cached)

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        TreeOfQuestion(self.opts, ctx, trace).run()

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        d = node.data
        needs = ", ".join(f"#{n}" for n in d.get("depends_on") or [])
        f = Facts(lang).tag("sub-question", "하위 질문", d.get("index"), f"#{d.get('index')}")
        f.tag("type", "유형", d.get("type") if node.kind != "root" else None)
        f.tag("depends on", "의존", needs, word(lang, f"needs {needs}", f"{needs} 필요"))
        f.note("unanswered slots", "답이 없는 자리", ", ".join(f"[ANS_{n}]" for n in d.get("unfilled") or []))
        f.note("evaluation", "평가", d.get("evaluation"))
        f.decision("split", "분해", d.get("decomposition"), _split_text(d, lang))
        f.note("split rejected", "분해 거부", d.get("rejected_split"))
        f.note("items", "항목", " · ".join(map(str, d.get("items") or [])))
        f.note("order hint", "순서 힌트", d.get("order_hint"))
        f.note("final reader read", "최종 답변이 읽은 문서", ", ".join(d.get("final_evidence") or []))
        f.decision("decided by code", "코드로 결정", d.get("order_decided"), _decided_text(d.get("order_decided"), lang))
        f.decision("decided by code", "코드로 결정", d.get("intersect_decided"),
                   _agreed_text(d.get("intersect_decided"), lang))
        return f.lines + stop_facts(node, lang)


def _split_text(d: dict[str, Any], lang: str) -> str:
    """How a node was split, with the routed decomposer's decision when it made one."""
    text = str(d.get("decomposition"))
    route = d.get("route")
    if isinstance(route, dict) and route:
        via = f"{word(lang, 'router', '라우터')}: {route.get('shape')}, p_compare {route.get('p_compare')}; " \
              f"{route.get('prompt')} {word(lang, 'prompt', '프롬프트')}"
        if route.get("intersect_cue"):
            via += f" ({word(lang, 'cue', '단서')}: {route['intersect_cue']}"
            if route.get("intersect_split"):
                via += f", {word(lang, 'split by', '분해')}: {route['intersect_split']}"
            via += ")"
        if route.get("fallback"):
            via += f"; {word(lang, 'fallback', '대체')}: {route['fallback']}"
        text += f" ({via})"
    return text


_ENDS = {("date", "min"): ("earliest", "가장 이른 것"), ("date", "max"): ("latest", "가장 늦은 것"),
         ("number", "min"): ("smallest", "가장 작은 것"), ("number", "max"): ("largest", "가장 큰 것")}


def _decided_text(decided: Any, lang: str) -> str:
    """A comparison answered by code: the item, which end of the order it is, and the order."""
    if not isinstance(decided, dict):
        return ""
    end = _ENDS.get((decided.get("kind"), decided.get("direction")))
    which = f" ({word(lang, *end)})" if end else ""
    return f"{decided.get('answer')}{which}: {decided.get('hint')}"


def _agreed_text(agreed: Any, lang: str) -> str:
    """An intersection answered by code: the common answer and what each sub-question said."""
    if not isinstance(agreed, dict):
        return ""
    said = " · ".join(map(str, agreed.get("answers") or []))
    return f"{agreed.get('answer')} ({word(lang, 'every sub-answer agrees', '모든 하위 답이 같음')}: {said})"


@dataclass
class NodeState:
    """What the algorithm knows about one node and reads back while it runs (the trace shows it, in
    Node.data, but is never read)."""

    each: bool = False  # hybrid: the sub-question asks about each item of a list answer ([ANS_N] is a list)
    slot_answers: dict[int, str] = field(default_factory=dict)  # [ANS_N] -> the sibling answer filled in
    explanation: str = ""  # the responder's explanation of the node's answer
    cited: list[str] = field(default_factory=list)  # passage ids the answer rests on
    decomposition: str = ""  # how the node was split ("" = not split)
    first_answer: str | None = None  # the level's own answer, before its children's were integrated
    first_scores: dict[str, Any] | None = None  # the evaluator's scores of that answer


# the words Node.stop.reason gives for each way a node ends unsplit, in the trace's language
_STOPS = {
    "evaluator": ("the evaluator accepted the answer", "평가기가 답을 받아들임"),
    "max_depth": ("max depth", "최대 깊이"),
    "single": ("single search suffices", "한 번의 검색으로 충분"),
    "node_budget": ("node budget", "노드 예산 소진"),
}


class TreeOfQuestion:
    """One run of Algorithm 1 over one question (per-run state: components, node budget)."""

    def __init__(self, opts: ToQ.Options, ctx: RunContext, trace: Trace):
        self.opts, self.ctx, self.trace, self.lang = opts, ctx, trace, ctx.lang
        self.map = ctx.map if opts.parallel else serial_map
        llm = ctx.llm
        router = shared_router(opts.router) if opts.decomposer == "routed" else None
        self.decomposer = QuestionDecomposer(llm, max_children=opts.max_children, router=router,
                                             intersect=opts.intersect, intersect_split=opts.intersect_split)
        self.query_generator = QueryGenerator(llm)
        self.integrator = AnswerIntegrator(llm, mode=opts.integrate, doc_chars=opts.doc_chars, map_fn=self.map)
        # a long answer is the root's explanation, which only the json responder writes
        respond = "json" if opts.answer_style == "long" else opts.respond
        self.responder = ResponseGenerator(llm, doc_chars=opts.doc_chars, style=respond, trim=opts.passage_trim,
                                           reask=opts.reask, logprobs=2 if opts.check == "confidence" else 0)
        self.evaluator = QueryEvaluator(llm)
        self._nodes = 1
        self._lock = threading.Lock()
        self._states: dict[str, NodeState] = {}

    def state(self, node: Node) -> NodeState:
        with self._lock:
            return self._states.setdefault(node.id, NodeState())

    def stop(self, node: Node, by: str) -> None:
        """The node ends unsplit: record why (Node.stop), in the trace's language."""
        en, ko = _STOPS[by]
        node.stop = Stop(True, reason=word(self.lang, en, ko), by=by)

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> None:
        root = self.trace.root
        root.kind, root.level = "root", 1  # Algorithm 1, line 1: the root is the original question
        self.tree_of_question(root)
        self.conclude(root)

    def tree_of_question(self, node: Node, siblings: Sequence[Node] = ()) -> None:
        """Algorithm 1, TREEOFQUESTION(Node). Never raises LLMError: a failure marks the node."""
        t0 = time.perf_counter()
        node.status = "running"
        self.ctx.emit(node)
        try:
            question = self.integrate_dependencies(node, siblings)  # line 6
            if self.state(node).each and self.expand_items(node, question):  # hybrid: one node per item
                return
            searched = False
            if node.kind != "root" or self.opts.evaluate_root:
                self.search_and_answer(node, question)  # lines 7-8
                searched = True
                if self.evaluate(node, question):  # lines 9-12
                    if node.stop is None or node.stop.by != "confidence":
                        self.stop(node, "evaluator")
                    return
            children, waves = self.decompose(node, question)  # line 13
            if not children:
                if not searched:  # nothing to decompose into: answer it as it is
                    self.search_and_answer(node, question)
                return
            self.expand_children(children, waves)  # lines 14-18
            self.integrate_children(node, question)
        except LLMError as e:
            node.status, node.error = "failed", str(e)
        except BaseException:  # the run was stopped under this node (time limit, cancelled): it did not finish
            node.status = "stopped"
            raise
        finally:
            if node.status == "running":
                node.status = "ok"
            node.wall_ms = (time.perf_counter() - t0) * 1000
            self.ctx.emit(node)

    # -- line 6: dependencies -----------------------------------------------------------------
    def integrate_dependencies(self, node: Node, siblings: Sequence[Node]) -> str:
        """Fill the node's [ANS_N] slots from its siblings' answers (modifying it if needed)."""
        refs = [n for n in slot_refs(node.question) if 1 <= n <= len(siblings)]
        if not refs:
            node.filled_question = node.question
            return node.question
        answers: dict[int, str] = {}
        unfilled: list[int] = []
        for n in refs:
            sib = siblings[n - 1]
            if sib.answer and not is_unknown(sib.answer):
                answers[n] = sib.answer
            else:  # the earlier sub-question found nothing: keep its question in the slot's place
                answers[n] = "(" + (sib.filled_question or sib.question).rstrip("?？ ") + ")"
                unfilled.append(n)
        st = self.state(node)
        st.slot_answers = dict(answers)
        node.data["slot_answers"] = {str(n): a for n, a in answers.items()}
        if unfilled:
            node.data["unfilled"] = unfilled
        if st.each:  # the list is expanded item by item: no rewrite
            node.filled_question = fill_slots(node.question, answers)
        else:
            known = {n: a for n, a in answers.items() if n not in unfilled}
            filled = self.integrator.fill(node, node.question, known, self.lang, rewrite=self.opts.rewrite_slots)
            node.filled_question = fill_slots(filled, answers)
        self.ctx.emit(node)
        return node.filled_question

    # -- lines 7-8: query, retrieval, answer --------------------------------------------------
    def search_and_answer(self, node: Node, question: str) -> None:
        query = self.query_generator.generate(node, question, self.lang)  # Q = f_QG(q)
        passages = self.ctx.retrieve(node, query, self.opts.k)  # D = f_DR(Q)
        if self.opts.search == "both" and question.strip() != query.strip():
            by_question = self.ctx.retrieve(node, question, self.opts.k)
            passages = interleave_ranked([passages, by_question], self.opts.k)
            node.data["queries"] = [query, question]
        node.query = query
        if self.opts.integrate == "none":  # no judgement: the responder reads every retrieved document
            evidence = passages
        else:
            judgements = self.integrator.judge(node, question, passages, self.lang)
            node.relevance = {p.id: j.to_dict() for p, j in zip(passages, judgements)}
            relevant = [p for p, j in zip(passages, judgements) if j.relevant]
            if not relevant:  # the judge found nothing: let the responder see everything (and say unknown)
                node.data["no_relevant"] = True
            evidence = relevant if relevant and self.opts.evidence == "relevant" else passages
        node.data["evidence"] = [p.id for p in evidence]
        self.ctx.emit(node)
        resp = self.responder.respond(node, question, query, evidence, self.lang)  # R = f_RG(q, Q, D)
        self.set_answer(node, resp, evidence)

    def set_answer(self, node: Node, resp: Response, evidence: list[Passage]) -> None:
        st = self.state(node)
        if node.answer and st.first_answer is None:  # keep the level's earlier response for comparison
            st.first_answer = node.data["first_answer"] = node.answer
        node.answer = resp.answer
        st.explanation = node.data["explanation"] = resp.explanation
        st.cited = resp.cited or [pid for pid in (p.id for p in evidence) if node.relevance.get(pid, {}).get("span")]
        node.data["cited"] = list(st.cited)
        self.ctx.emit(node)

    # -- line 9: evaluation -------------------------------------------------------------------
    def evaluate(self, node: Node, question: str) -> bool:
        """Query evaluator on the node's response; True when positive (stop expanding)."""
        if is_unknown(node.answer):
            node.data["evaluation"] = "skipped: no answer found"
            return False
        if node.kind != "root" and not self.opts.evaluate_subs:
            return True
        if node.kind != "root" and self.opts.check == "confidence":
            return self.confident(node, question)
        st = self.state(node)
        summary = Response(node.answer, st.explanation).summary()
        scores = self.evaluator.evaluate(node, question, summary, self.lang)
        if node.scores and st.first_scores is None:
            st.first_scores = node.data["first_scores"] = node.scores
        node.scores = scores
        self.ctx.emit(node)
        return bool(scores["response_validity"]) and scores["overall"] >= self.opts.min_overall

    def confident(self, node: Node, question: str) -> bool:
        """check=confidence: does the safety model let the reader's answer stand (no evaluator call)?"""
        safety = shared_safety("")
        evidence = [self.trace.passages[i] for i in node.data.get("evidence", node.passage_ids) if i in self.trace.passages]
        signals = node_signals(node, question, node.answer, evidence, self.lang)
        p = safety.p_right(signals)
        threshold = safety.threshold(self.opts.effort, self.lang)
        node.data["confidence"] = {"p_right": round(p, 4), "threshold": threshold, "stands": p >= threshold,
                                   "signals": signals}
        if p >= threshold:
            node.stop = Stop(True, reason=word(self.lang, f"the reader was sure enough (P(right) {p:.2f} >= "
                                               f"{threshold:.2f})", f"답이 충분히 확실함 (맞을 확률 {p:.2f} ≥ {threshold:.2f})"),
                             by="confidence", score=round(p, 4))
            self.ctx.emit(node)
            return True
        node.data["unsure"] = True
        self.ctx.emit(node)
        return False

    # -- line 13: decomposition ---------------------------------------------------------------
    def decompose(self, node: Node, question: str) -> tuple[list[Node], list[list[int]]]:
        """Create the node's children (none when it is at max depth, over budget or single)."""
        if node.level >= self.opts.max_depth:
            self.stop(node, "max_depth")
            return [], []
        d = self.decomposer.decompose(node, question, self.lang)
        self.state(node).decomposition = node.data["decomposition"] = d.type
        if d.model_type != d.type:  # the structure decided the type, or the split was single after all
            node.data["decomposition_model"] = d.model_type
        if d.duplicates:
            node.data["repeated_subquestions"] = d.duplicates
        if d.route is not None:  # routed decomposer: the router's decision and the prompt that answered
            node.data["route"] = {"shape": d.route.shape, "p_compare": d.route.p_compare, "prompt": d.prompt}
            if d.cue:
                node.data["route"]["intersect_cue"] = d.cue
            if d.split:
                node.data["route"]["intersect_split"] = d.split
            if d.fallback:
                node.data["route"]["fallback"] = d.fallback
        if d.rejected:  # every split lost the question's names: answered unsplit
            node.data["rejected_split"] = d.rejected
        if d.is_single:
            self.stop(node, "single")
            return [], []
        if not self._reserve(len(d.subquestions)):
            self.stop(node, "node_budget")
            return [], []
        children = []
        for i, sq in enumerate(d.subquestions):
            child = node.add(Node(question=sq.question, kind="sub"))  # line 16: level = parent + 1
            self.state(child).each = sq.each
            child.data.update(type=d.type, index=i + 1, depends_on=[j + 1 for j in sq.depends_on], each=sq.each)
            children.append(child)
            self.ctx.emit(child)
        node.data["waves"] = [[i + 1 for i in w] for w in d.waves]
        self.ctx.emit(node)
        return children, d.waves

    def _reserve(self, n: int) -> bool:
        with self._lock:
            if self._nodes + n > self.opts.max_nodes:
                return False
            self._nodes += n
            return True

    # -- lines 14-18: recursion ---------------------------------------------------------------
    def expand_children(self, children: list[Node], waves: list[list[int]]) -> None:
        """Recurse on the children wave by wave: siblings in a wave are independent and run in
        parallel; a dependent sibling waits for its wave, when the answers it needs exist."""
        for wave in waves:
            self.map(lambda i: self.tree_of_question(children[i], children), wave)

    def expand_items(self, node: Node, question: str) -> bool:
        """Hybrid (Table 1): the node asks about every item of a list answer, so it becomes one
        comparison node per item. False (nothing done) when the answer is not a list."""
        refs = slot_refs(node.question)
        st = self.state(node)
        listed = st.slot_answers.get(refs[0], "") if refs else ""
        items = split_list_answer(listed, self.opts.max_items)
        if len(items) < 2 or node.level >= self.opts.max_depth or not self._reserve(len(items)):
            return False
        node.data["items"] = items
        st.decomposition = node.data["decomposition"] = "comparison"
        children = []
        for i, item in enumerate(items):
            child = node.add(Node(question=fill_slots(node.question, {refs[0]: item}), kind="sub"))
            child.data.update(type="comparison", index=i + 1, depends_on=[], item=item)
            children.append(child)
            self.ctx.emit(child)
        self.map(lambda c: self.tree_of_question(c, children), children)
        self.integrate_children(node, question)
        return True

    # -- §3.1: answer the node from its children ----------------------------------------------
    def integrate_children(self, node: Node, question: str) -> None:
        """Answer the node from its children's answers and their cited documents; the root is
        evaluated again (the paper's termination test on the created nodes' responses)."""
        subs = [(c.filled_question or c.question, c.answer or PROMPTS[self.lang].unknown) for c in node.children]
        hint, decided, agreed = "", None, None
        kind = self.state(node).decomposition
        if kind == "comparison" and all(c.answer and not is_unknown(c.answer) for c in node.children):
            if self.opts.order_decide:
                decided = decide(question, subs, self.lang)
            if self.opts.order_hints and decided is None:
                hint = order_hint(question, subs, self.lang)
                if hint:
                    node.data["order_hint"] = hint
        if kind == "intersection" and self.opts.intersect_decide:
            agreed = agree([c.answer for c in node.children], self.lang)
        evidence = self.evidence_of(node)
        if decided is None and agreed is None and node.kind == "root" and self.opts.final_search:
            own = self.ctx.retrieve(node, question, self.opts.k)
            evidence = interleave_ranked([evidence, own], self.opts.k)
            node.data["final_evidence"] = [p.id for p in evidence]
        if decided is not None:
            node.data["order_decided"] = decided.to_dict()
            self.answer_by_code(node, decided.answer, decided.hint, evidence)
        elif agreed is not None:
            node.data["intersect_decided"] = agreed.to_dict()
            self.answer_by_code(node, agreed.answer, agreed.explanation(self.lang), evidence)
        else:
            resp = self.responder.respond(node, question, node.query or question, evidence, self.lang,
                                          sub_answers=subs, hint=hint)
            self.set_answer(node, resp, evidence)
        node.data["depth"] = max(n.level for n in node.walk())
        if node.kind == "root" and self.opts.evaluate_final:
            self.evaluate(node, question)

    def answer_by_code(self, node: Node, answer: str, explanation: str, evidence: list[Passage]) -> None:
        """Answer a node decided by code (a comparison's order, an intersection's agreement). The answer rests on
        every child's answer, so it cites the documents the children cited (among the node's evidence), else
        those that hold the answer. A listener to the root's answer as it is written gets it as a new draft too:
        no call wrote it, and an earlier draft (the level-1 answer) must not stand as the answer."""
        by_children = {pid for c in node.children for pid in self.state(c).cited}
        cited = [p.id for p in evidence if p.id in by_children] or attribute(answer, evidence)
        self.set_answer(node, Response(answer=answer, explanation=explanation, cited=cited), evidence)
        stream = self.ctx.llm.answer_stream
        if stream is not None and node is stream.root:
            stream.start()(answer)

    def evidence_of(self, node: Node) -> list[Passage]:
        """Documents for a node answered from its children: what the children cited, then the
        node's own relevant documents; at most k of them (the prompt has to fit the context)."""
        ids: list[str] = []
        for c in node.children:
            ids.extend(self.state(c).cited[:2])
        ids.extend(pid for pid, r in node.relevance.items() if r.get("relevant"))
        seen = list(dict.fromkeys(i for i in ids if i in self.trace.passages))
        return [self.trace.passages[i] for i in seen[: self.opts.k]]

    # -- the result ---------------------------------------------------------------------------
    def conclude(self, root: Node) -> None:
        """trace.answer: the root's answer, else the best a child found; citations: passage ids."""
        answer, source = root.answer, root
        if not answer or is_unknown(answer):
            for n in reversed(list(root.walk())):  # the deepest, latest sub-answer (last hop of a bridge)
                if n is not root and n.answer and not is_unknown(n.answer):
                    answer, source = n.answer, n
                    root.data["answer_from"] = n.id
                    break
        self.trace.answer = answer or root.answer
        explanation = self.state(source).explanation
        if self.opts.answer_style == "long" and explanation and not is_unknown(answer):
            self.trace.answer = tidy_long_answer(explanation)
        elif not is_unknown(answer):
            self.trace.explanation = explanation
        cited = list(self.state(source).cited)
        if not cited:
            cited = list(dict.fromkeys(pid for n in root.walk() for pid in self.state(n).cited))
        self.trace.citations = cited
        root.data["explanation"] = explanation
        root.data["depth"] = max(n.level for n in root.walk())
        failed = [n for n in root.walk() if n.status == "failed"]
        if failed:
            root.data["failed_nodes"] = len(failed)
            if not self.trace.answer:
                self.trace.status = "failed"
                self.trace.error = failed[0].error
