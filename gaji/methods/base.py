"""The method contract: a method answers one question and leaves a Trace of everything it did.

A method is a class registered in `gaji.registry.METHODS`, with an `Options` dataclass of its
hyperparameters (the papers' defaults) and a `solve(trace, ctx)` that reads like the paper's
algorithm. `Method.run` does the shared parts: language, timing, failure capture. `describe(node, lang)`
says how the method's nodes are shown (Node.display): the CLI and the web page render those lines and
know nothing of the method.

    @METHODS.register("oner", help="...")
    class OneR(Method):
        @dataclass
        class Options:
            k: int = 5
        def solve(self, trace, ctx):
            root = trace.root
            passages = ctx.retrieve(root, trace.question, self.opts.k)
            trace.answer = ctx.llm.chat(root, "answer", [...])
"""
from __future__ import annotations

import dataclasses
import threading
import time
import typing
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from gaji.coerce import Range, check_range, coerce
from gaji.errors import ConfigError, GajiError, LLMError
from gaji.llm.streaming import AnswerSink, AnswerStream
from gaji.llm.tracked import TrackedLLM
from gaji.text.lang import resolve_lang
from gaji.methods.describe import display, stop_facts
from gaji.methods.common import attribute_with_bridges
from gaji.methods.span import is_unknown, shape_answer
from gaji.types import Fact, Node, Passage, Retriever, Trace

EventSink = Callable[[str, dict], None]
Describer = Callable[[Node, str], list[Fact]]


@dataclass
class RunContext:
    """What a method may use: the tracked LLM, a retriever, the language, an event sink."""

    llm: TrackedLLM
    retriever: Retriever | None = None
    lang: str = "auto"  # "auto" follows the question; "ko" / "en" force prompts
    on_event: EventSink | None = None  # ("node", node_dict) as nodes are created/updated; used by serve
    trace: Trace | None = None  # set by Method.run
    parallel: bool = True  # run independent sibling nodes concurrently
    describe: Describer | None = None  # the running method's describe (set by Method.run): live nodes carry it
    # the answer's text as it is written (the final-answer call streamed; gaji/llm/streaming.py)
    on_answer: AnswerSink | None = None
    # searches already made in this run, by (query, k): a method that looks again at what an earlier step of the
    # same run searched (auto's escalation after its one retrieval) is served from here. None: no memo
    search_memo: dict[tuple[str, int], list[Passage]] | None = None
    # seconds the run may still take before its caller gives up (a server request's time limit); None: no limit.
    # A method that can stop early with an answer in hand (auto's escalation) reads it
    time_left: Callable[[], float | None] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def retrieve(self, node: Node, query: str, k: int) -> list[Passage]:
        """Search, and record the query and the passages on the node and the trace."""
        if self.retriever is None:
            raise ConfigError("this method needs a retriever: pass --index DIR")
        t0 = time.perf_counter()
        memo = self.search_memo
        if memo is not None and (query, k) in memo:
            passages = memo[(query, k)]
            node.data["search_memo"] = True
        elif hasattr(self.retriever, "search_traced"):
            # retrievers that call the LLM themselves (ConTRe) record their work under this node
            passages = self.retriever.search_traced(query, k, node=node, llm=self.llm)
        else:
            passages = self.retriever.search(query, k)
        if memo is not None:
            memo.setdefault((query, k), passages)
        node.query = query
        with self._lock:
            ids = self.trace.remember(passages) if self.trace is not None else [p.id for p in passages]
        node.passage_ids.extend(i for i in ids if i not in node.passage_ids)
        # a passage is stored once per trace; its score/rank in *this* search belong to the node
        scores = node.data.setdefault("passage_scores", {})
        for p in passages:
            scores.setdefault(p.id, {"score": round(float(p.score), 6), "rank": p.rank, "source": p.source})
        node.data.setdefault("retrieval_ms", 0.0)
        node.data["retrieval_ms"] += round((time.perf_counter() - t0) * 1000, 2)
        self.emit(node)
        return passages

    def emit(self, node: Node, event: str = "node") -> None:
        if self.on_event is not None:
            if self.describe is not None:
                node.display = display(self.describe, node, self.lang)
            d = node.to_dict()
            d.pop("children", None)
            d["child_ids"] = [c.id for c in node.children]
            self.on_event(event, d)

    def map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        """Run independent work (sibling nodes) on the LLM's parallel slots; order preserved."""
        if not self.parallel or len(items) <= 1 or self.llm.parallel_slots <= 1:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=min(len(items), self.llm.parallel_slots)) as ex:
            return list(ex.map(fn, items))


@contextmanager
def node_failure(node: Node) -> Iterator[Node]:
    """Mark `node` failed (status, error) when a GajiError (an LLMError after retries) leaves the
    block, then re-raise: Method.run records trace.status "failed" and keeps the answer so far."""
    try:
        yield node
    except GajiError as e:
        node.status = "failed"
        node.error = str(e)
        raise


class Method:
    name: ClassVar[str] = "method"
    needs_retriever: ClassVar[bool] = True
    optional_retriever: ClassVar[bool] = False  # retrieves when given an index, else works without one (chain)
    long_form: ClassVar[bool] = False  # always writes paragraphs (ConTReGen); see long_answers()
    # purposes of the LLM calls on the root node that write the answer (streamed when `on_answer` is set)
    answer_purposes: ClassVar[frozenset[str]] = frozenset({"answer"})
    # where this method's meaning of an option differs from gaji.coerce.OPTION_RANGES (e.g. k=0: "the default")
    option_ranges: ClassVar[dict[str, Range]] = {}
    # the recipe this instance runs, as "name@version" ("" = the method with options given one by one); set by
    # Gaji.make_method and recorded in the trace
    recipe: str = ""

    @dataclass
    class Options:
        pass

    def __init__(self, options: Any = None, **overrides: Any):
        if options is None:
            options = self.Options()
        if overrides:
            options = dataclasses.replace(options, **overrides)
        # every way options arrive (flags, JSON, GAJI_K, code) ends here: the numeric bounds are checked once
        for f in dataclasses.fields(options):
            check_range(f.name, getattr(options, f.name), f"option {f.name!r} of method {self.name!r}",
                        self.option_ranges)
        self.opts = options

    # -- options from strings (CLI `-o key=value`, HTTP params) -------------
    @classmethod
    def parse_options(cls, raw: dict[str, Any]) -> Any:
        hints = typing.get_type_hints(cls.Options)
        known = {f.name for f in dataclasses.fields(cls.Options)}
        vals: dict[str, Any] = {}
        for k, v in raw.items():
            key = k.replace("-", "_")
            if key not in known:
                raise ConfigError(
                    f"method {cls.name!r} has no option {k!r}; options: {', '.join(sorted(known)) or '(none)'}"
                )
            vals[key] = coerce(v, hints.get(key, str), f"option {k!r} of method {cls.name!r}")
        return cls.Options(**vals)

    @classmethod
    def option_help(cls) -> list[tuple[str, str, Any]]:
        hints = typing.get_type_hints(cls.Options)
        out = []
        for f in dataclasses.fields(cls.Options):
            default = f.default if f.default is not dataclasses.MISSING else (
                f.default_factory() if f.default_factory is not dataclasses.MISSING else None)  # type: ignore[misc]
            out.append((f.name, getattr(hints.get(f.name), "__name__", str(hints.get(f.name))), default))
        return out

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        """How one of this method's nodes is shown, in `lang` (the trace's language): label/text lines
        made from the node's typed fields and the trace facts the method wrote in `node.data`.
        The base shows the node's Stop; a method adds its own facts (tags, decisions, notes)."""
        return stop_facts(node, lang)

    def long_answers(self) -> bool:
        """Whether this instance writes long-form answers (paragraphs), which are kept whole: the class says so,
        or its options ask for them (`style=long`, `answer_style=long`)."""
        o = self.opts
        return self.long_form or getattr(o, "style", "") == "long" or getattr(o, "answer_style", "") == "long"

    def answered_long(self, trace: Trace) -> bool:
        """Whether this run's answer is a paragraph, kept whole rather than cut to a span: the instance writes long
        answers, or (a method that decides per question) it chose one for this question."""
        return self.long_answers()

    def wants_retriever(self) -> bool:
        """Whether this instance should be handed the index when there is one (its options may say closed book)."""
        return self.needs_retriever or self.optional_retriever

    # -- running ------------------------------------------------------------
    def run(self, question: str, ctx: RunContext) -> Trace:
        question = question.strip()
        if not question:
            raise ConfigError("empty question")
        if self.needs_retriever and ctx.retriever is None:
            raise ConfigError(f"method {self.name!r} needs a retriever: pass --index DIR")
        lang = resolve_lang(ctx.lang, question)
        trace = Trace(
            question=question,
            method=self.name,
            params=dataclasses.asdict(self.opts),
            lang=lang,
            model=ctx.llm.name,
            retriever=getattr(ctx.retriever, "name", "") if ctx.retriever else "",
            recipe=self.recipe,
        )
        ctx = dataclasses.replace(ctx, trace=trace, lang=lang, describe=self.describe)
        if ctx.on_answer is not None:
            ctx = dataclasses.replace(ctx, llm=ctx.llm.streaming(AnswerStream(trace.root, self.answer_purposes,
                                                                              ctx.on_answer)))
        t0 = time.perf_counter()
        ctx.emit(trace.root)
        try:
            self.solve(trace, ctx)
        except (LLMError, GajiError) as e:
            # a failure after retries is reported in the trace; the run keeps its best answer
            trace.status = "failed"
            trace.error = str(e)
            if trace.root.status == "ok":
                trace.root.status = "failed"
                trace.root.error = str(e)
        if not self.answered_long(trace):
            shape_trace_answer(trace)
            narrow_cited_rows(trace)
        trace.wall_ms = (time.perf_counter() - t0) * 1000
        trace.root.wall_ms = trace.root.wall_ms or trace.wall_ms
        if not trace.root.answer:
            trace.root.answer = trace.answer
        for node in trace.root.walk():
            node.display = display(self.describe, node, lang)
        ctx.emit(trace.root, "final")
        return trace

    def solve(self, trace: Trace, ctx: RunContext) -> None:  # pragma: no cover - interface
        raise NotImplementedError


def narrow_cited_rows(trace: Trace) -> None:
    """A cited spreadsheet passage names the row that holds the answer, not the rows of its whole chunk
    (gaji.corpus.rowcite): the trace's passage is replaced by one whose location is that row."""
    from gaji.corpus.rowcite import narrow_to_answer

    for pid in trace.citations:
        p = trace.passages.get(pid)
        if p is not None and p.location is not None and p.location.rows:
            trace.passages[pid] = narrow_to_answer(p, trace.answer, trace.question)


def shape_trace_answer(trace: Trace) -> None:
    """The trace's answer as a span and its explanation as a sentence (gaji.methods.span): a sentence-like
    answer gives both; a short one is explained by the evidence sentence holding it (cited passages first).
    An explanation the method wrote itself is kept."""
    if not trace.answer:
        return
    ids = list(dict.fromkeys([*trace.citations, *trace.retrieved_ids()]))
    passages = [trace.passages[i] for i in ids if i in trace.passages]
    shaped = shape_answer(trace.answer, trace.question, passages, trace.lang)
    if trace.root.answer == trace.answer:
        trace.root.answer = shaped.answer
    trace.answer = shaped.answer
    trace.explanation = trace.explanation or shaped.explanation
    if not trace.citations and passages and not is_unknown(shaped.answer):
        # the method found no support for its sentence (a paraphrase); its span may still be in a passage
        trace.citations = attribute_with_bridges(trace.question, shaped.answer, passages)
