"""The Python API: one object that holds an index, a retriever and an LLM, and answers questions.

    from gaji.api import Gaji
    from gaji.conversation.turns import Turn
    g = Gaji(index="runs/hotpot", llm="local")
    trace = g.ask("Which battle occurred first, the Battle of Manila or the Battle of Guam?", method="toq")
    print(trace.answer, trace.usage())
    follow = g.ask("When did it end?", history=[Turn(question, trace.answer)])  # rewritten first, then answered

The CLI (`gaji ask`), the evaluator (`gaji eval`) and the HTTP service (`gaji serve`) all go through here.
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Any, Callable

from gaji.config import Settings, load_settings
from gaji.conversation.turns import Turn
from gaji.errors import ConfigError
from gaji.llm.base import LLMBackend
from gaji.llm.streaming import AnswerSink
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import EventSink, Method, RunContext
from gaji.registry import METHODS, resolve_method
from gaji.types import Retriever, Trace


def copy_settings(s: Settings) -> Settings:
    """A Settings that shares nothing mutable with `s` (its mappings are copied too)."""
    return dataclasses.replace(s, retriever_options=dict(s.retriever_options), sources=dict(s.sources))


class Gaji:
    def __init__(
        self,
        index: str | None = None,
        llm: str | LLMBackend | None = None,
        retriever: str | Retriever | None = None,
        settings: Settings | None = None,
        **overrides: Any,
    ):
        # a copy: the caller's Settings may build other Gaji objects (one per index), which must not share this one's
        s = copy_settings(settings) if settings is not None else load_settings({})
        for k, v in overrides.items():
            if v is not None:
                setattr(s, k, v)
        if index is not None:
            s.index = index
        self.settings = s
        self._backend: LLMBackend | None = llm if isinstance(llm, LLMBackend) else None
        self._llm_spec = llm if isinstance(llm, str) else s.llm
        self._retriever_obj = retriever if isinstance(retriever, Retriever) else None
        self._retriever_name = retriever if isinstance(retriever, str) else s.retriever
        self._index = None
        self._retrievers: dict[str, Retriever] = {}
        self._lock = threading.Lock()

    # -- lazily built parts --------------------------------------------------
    @property
    def backend(self) -> LLMBackend:
        with self._lock:
            if self._backend is None:
                from gaji.llm.factory import llm_from_settings

                self._backend = llm_from_settings(self.settings, self._llm_spec)
            return self._backend

    @property
    def index(self):
        if self._index is None and self.settings.index:
            from gaji.index.store import open_index

            self._index = open_index(self.settings.index)
        return self._index

    @property
    def given_retriever(self) -> Retriever | None:
        """The retriever object this Gaji was made with, if any: it answers instead of one built from the index."""
        return self._retriever_obj

    def retriever(self, name: str | None = None) -> Retriever | None:
        if self._retriever_obj is not None and name is None:
            return self._retriever_obj
        name = name or self._retriever_name
        if self.index is None:
            return None
        with self._lock:
            if name not in self._retrievers:
                # retriever factories take the index and may use the LLM (e.g. ConTRe); the settings' options go
                # to the settings' retriever, checked against the options it declares
                options = self.retriever_options(name)
                self._retrievers[name] = self.index.retriever(name, get_llm=lambda: self.backend, **options)
            return self._retrievers[name]

    def retriever_options(self, name: str) -> dict[str, Any]:
        """The checked, typed options for retriever `name` (the settings' retriever_options apply to the
        settings' retriever only)."""
        from gaji.registry import RETRIEVERS

        raw = self.settings.retriever_options if name == self.settings.retriever else {}
        return RETRIEVERS.parse_options(name, raw or {})

    # -- asking --------------------------------------------------------------
    def make_method(self, method: str, options: dict[str, Any] | None = None) -> Method:
        """The method `method` names (a method or a recipe: gaji/recipes.py) with `options` over its own."""
        name, merged, recipe = resolve_method(method, options)
        cls = METHODS.get(name)
        opts = cls.parse_options(merged)
        # --k / GAJI_K / a config file override the method's own default (the papers differ: IRCoT K=4, OneR 5)
        k_given = self.settings.sources.get("k", "default") != "default"
        if k_given and "k" in opts.__dataclass_fields__ and "k" not in merged:
            opts = dataclasses.replace(opts, k=self.settings.k)  # checked like any option
        m = cls(opts)
        if recipe is not None:
            m.recipe = recipe.ref
        return m

    def ask(
        self,
        question: str,
        method: str | None = None,
        options: dict[str, Any] | None = None,
        retriever: str | None = None,
        on_event: EventSink | None = None,
        parallel: bool = True,
        history: list[Turn] | None = None,
        on_answer: AnswerSink | None = None,
        time_left: Callable[[], float | None] | None = None,
    ) -> Trace:
        """Answer `question` with `method`. `history`: the conversation's earlier turns; a follow-up is first
        rewritten into a standalone question (a "rewrite" node, first under the root). `on_answer`: the
        answer's text as the method writes it (gaji/llm/streaming.py). `time_left`: seconds before the caller gives
        up (a server request's limit), for methods that can stop early with an answer in hand."""
        m = self.make_method(method or self.settings.method, options)
        # methods with an optional retriever (chain: closed book without an index) get one when there is an index
        r = self.retriever(retriever) if m.wants_retriever() else None
        if m.needs_retriever and r is None:
            raise ConfigError(f"method {m.name!r} needs an index: pass --index DIR (build one with `gaji index build`)")
        ctx = RunContext(
            llm=TrackedLLM(self.backend, retries=self.settings.retries),
            retriever=r,
            lang=self.settings.lang,
            on_event=on_event,
            parallel=parallel,
            on_answer=on_answer,
            time_left=time_left,
        )
        if not history:
            return m.run(question, ctx)
        from gaji.conversation.rewrite import attach, rewrite_followup

        node = rewrite_followup(ctx.llm, question, history, self.settings.lang)
        ctx.emit(node)
        trace = m.run(node.filled_question, ctx)
        attach(trace, node)
        ctx.emit(trace.root)  # the root again, now with the rewrite among its children
        return trace

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
