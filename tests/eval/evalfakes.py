"""Test doubles for the eval-harness tests: fake methods registered under test-only names, a tiny
question set and corpus, and the ScriptedLLM rules that answer it."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gaji.methods.base import Method, RunContext
from gaji.registry import METHODS
from gaji.types import Trace


class EvalFake(Method):
    """Answers with one LLM call; a question containing CRASH raises (a crashed question)."""

    name = "eval_fake"
    needs_retriever = False

    @dataclass
    class Options:
        style: str = "plain"

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        if "CRASH" in trace.question:
            raise RuntimeError("method exploded")
        trace.answer = ctx.llm.chat(trace.root, "answer", [{"role": "user", "content": f"Q: {trace.question}"}]).strip()


class EvalFakeRetrieving(EvalFake):
    """Retrieves k passages with the question, then answers."""

    name = "eval_fake_ret"
    needs_retriever = True

    @dataclass
    class Options:
        k: int = 3

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        ctx.retrieve(trace.root, trace.question, self.opts.k)
        super().solve(trace, ctx)


class EvalFakeOptional(EvalFake):
    """Retrieves when it is given a retriever (like chain), else answers closed book."""

    name = "eval_fake_opt"
    needs_retriever = False
    optional_retriever = True

    @dataclass
    class Options:
        closed_book: bool = False

    def wants_retriever(self) -> bool:
        return not self.opts.closed_book

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        if ctx.retriever is not None:
            ctx.retrieve(trace.root, trace.question, 3)
        super().solve(trace, ctx)


for _cls in (EvalFake, EvalFakeRetrieving, EvalFakeOptional):
    if _cls.name not in METHODS:
        METHODS.register(_cls.name, help=_cls.__doc__ or "")(_cls)

DOCS = [
    ("d-guam", "Battle of Guam (1944)", "The Second Battle of Guam was fought from 21 July to 10 August 1944."),
    ("d-manila", "Battle of Manila (1945)", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("d-lim", "임종석", "1989년 2월 15일 여의도 농민 폭력 시위를 주도한 혐의로 지명수배되었다."),
    ("d-other", "Other", "Nothing relevant here at all."),
]

QUESTIONS = [
    {"id": "q1", "question": "Which battle occurred first, the Battle of Manila or the Battle of Guam?",
     "answers": ["Battle of Guam"], "supporting": [{"doc_id": "d-guam", "title": "Battle of Guam (1944)"},
                                                    {"doc_id": "d-manila", "title": "Battle of Manila (1945)"}]},
    {"id": "q2", "question": "임종석이 여의도 농민 폭력 시위를 주도한 혐의로 지명수배 된 날은?",
     "answers": ["1989년 2월 15일"], "supporting": [{"doc_id": "d-lim", "title": "임종석"}]},
    {"id": "q3", "question": "Who wrote a poem with no known answer?", "answers": []},
    {"id": "q4", "question": "CRASH this question please", "answers": ["x"]},
]

RULES = [
    (r"Which battle", "the Battle of Guam."),
    (r"임종석", "1989년 2월 15일에"),
    (r".*", "I do not know"),
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


