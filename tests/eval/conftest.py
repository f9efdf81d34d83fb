"""Fixtures for the eval-harness tests: tiny question files and an EvalRun wired to a ScriptedLLM
(no model, no index). The fake methods live in evalfakes.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from evalfakes import DOCS, QUESTIONS, RULES, write_jsonl
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from gaji.testing import ListRetriever


@pytest.fixture
def qfile(tmp_path: Path) -> Path:
    write_jsonl(tmp_path / "tiny.corpus.jsonl", [{"id": d, "title": t, "text": x} for d, t, x in DOCS])
    return write_jsonl(tmp_path / "tiny.jsonl", QUESTIONS)


@pytest.fixture
def scripted() -> ScriptedLLM:
    return ScriptedLLM(RULES)


@pytest.fixture
def make_run(tmp_path: Path, scripted: ScriptedLLM):
    """make_run(data, method="eval_fake", **EvalConfig fields) -> EvalRun over the ScriptedLLM."""
    from gaji.api import Gaji
    from gaji.eval.runner import EvalConfig, EvalRun
    from rich.console import Console

    def make(data, method: str = "eval_fake", llm: ScriptedLLM | None = None, retriever=None,
             judge_backend=None, toq_factory=None, **kw) -> EvalRun:
        kw.setdefault("out", str(tmp_path / "run"))
        kw.setdefault("progress", False)
        s = Settings(llm="scripted", retries=0)
        if method == "eval_fake_ret" and retriever is None:
            retriever = ListRetriever(DOCS)
        g = Gaji(llm=llm or scripted, retriever=retriever, settings=s)
        return EvalRun(EvalConfig(data=str(data), method=method, **kw), s, gaji=g, judge_backend=judge_backend,
                       toq_factory=toq_factory, console=Console(file=open("/dev/null", "w"), force_terminal=False))

    return make
