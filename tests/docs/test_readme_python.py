"""README.md's Python snippet runs as written, over a small real index (BM25, built here as runs/hotpot) with the
scripted LLM of gaji.testing in place of the embedded model: the one substitution is `llm="local"`. The index has
no vectors (no embedding model in a unit test), so the retriever is set to bm25 the way a user would, in the
environment (GAJI_RETRIEVER)."""
from __future__ import annotations

import re
from pathlib import Path

import gaji.api
from gaji.index.build import build_index
from gaji.testing import any_llm
from gaji.types import Document

ROOT = Path(__file__).resolve().parents[2]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_readme_python_snippet_runs(tmp_path, monkeypatch, capsys):
    blocks = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) == 1
    code = blocks[0]
    assert 'llm="local"' in code and 'index="runs/hotpot"' in code
    docs = [Document(id="guam", title="Battle of Guam", text="The Battle of Guam was fought in 1944."),
            Document(id="manila", title="Battle of Manila", text="The Battle of Manila was fought in 1945.")]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAJI_RETRIEVER", "bm25")
    monkeypatch.delenv("GAJI_CONFIG", raising=False)
    build_index(docs, "runs/hotpot", dense=False, progress=False)
    llm = any_llm()
    monkeypatch.setattr(gaji.api, "_README_LLM", llm, raising=False)
    code = code.replace('llm="local"', "llm=__import__('gaji.api').api._README_LLM")
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert "Battle of Guam" in out  # the scripted reader's answer, printed with citations and usage
    assert llm.requests  # the method asked the (scripted) model
