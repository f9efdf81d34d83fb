"""A fake method for the bench-runner tests (registered under a test-only name)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gaji.methods.base import Method, RunContext
from gaji.registry import METHODS
from gaji.types import Trace


class BenchFake(Method):
    """One LLM call, no retrieval."""

    name = "bench_fake"
    needs_retriever = False

    @dataclass
    class Options:
        pass

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        trace.answer = ctx.llm.chat(trace.root, "answer", [{"role": "user", "content": trace.question}])


if "bench_fake" not in METHODS:
    METHODS.register("bench_fake", help="test only")(BenchFake)


def write_questions(path: Path) -> Path:
    rows = [
        {"id": "a", "question": "Which battle occurred first?", "answers": ["Battle of Guam"]},
        {"id": "b", "question": "Where is Guam?", "answers": ["Pacific Ocean"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
