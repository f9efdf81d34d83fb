"""The answer as it is being written: which LLM calls of a run write the answer, and where their text goes.

A method's answer is the output of its final call: an LLM call on the trace's root node whose purpose
is one of the method's `answer_purposes` ("answer" for every method that writes its answer in one
call). `Method.run` hands `TrackedLLM` an `AnswerStream` when the caller asked for the answer's text
as it comes (`on_answer`); TrackedLLM then streams exactly those calls from the backend and still
records each of them once, with the backend's token counts.

Every such call (and every retry of one) is a new *draft*: a method may answer the root again later
(ToQ answers the question first with one retrieval and, when its evaluator rejects that answer,
answers it again from the sub-questions' answers). A listener shows the latest draft; the run's
final answer (`Trace.answer`, cleaned of citation marks and labels) comes with the finished trace.
JSON-constrained calls are never streamed: their text is an object, not the answer.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Iterable

from gaji.llm.base import Request, TextSink
from gaji.types import Node


@dataclass(frozen=True)
class AnswerDelta:
    """A piece of the answer: `text` continues draft number `draft` (1, 2, …; a new number starts over)."""

    draft: int
    text: str


AnswerSink = Callable[[AnswerDelta], None]


class AnswerStream:
    """Decides which calls write the answer (`wants`) and numbers their drafts (`start`)."""

    def __init__(self, root: Node, purposes: Iterable[str], sink: AnswerSink):
        self.root = root
        self.purposes = frozenset(purposes)
        self.sink = sink
        self.drafts = 0
        self._lock = threading.Lock()

    def wants(self, node: Node, purpose: str, request: Request) -> bool:
        return node is self.root and purpose in self.purposes and request.json_schema is None

    def start(self) -> TextSink:
        """A new draft: the text sink for one attempt of an answer call."""
        with self._lock:
            self.drafts += 1
            draft = self.drafts

        def on_text(text: str) -> None:
            if text:
                self.sink(AnswerDelta(draft, text))

        return on_text
