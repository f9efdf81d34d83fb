"""`gaji bench crossdoc`: the folder holds each case's two files, BM25 finds both, and a run scores an answer
right only with both files cited (scripted LLM for control flow; the real model is `gaji bench crossdoc`)."""
from __future__ import annotations

import dataclasses
import re


from gaji_lab.bench.crossdoc import CASES, answer_ok, file_of, run, write_case_files
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM, request_text


GOLD = {"hwpx-pdf": ("부산 지사", ("누리별", "부산 지사")), "xlsx-docx": ("오세린", ("배터리 셀", "오세린")),
        "pptx-html": ("89만 원", ("11월 출시", "89만 원"))}


def _reader(req) -> str:
    """Answers a case's question citing the numbered passages that hold its two facts."""
    text = request_text(req)
    for case in CASES:
        if case.question in text:
            answer, facts = GOLD[case.id]
            nums = [m.group(1) for m in re.finditer(r"\[(\d+)\][^\[]*", text)
                    if any(f in m.group(0) for f in facts)]
            return f"{answer} " + "".join(f"[{n}]" for n in sorted(set(nums)))
    return "모름"


def test_case_files_and_scoring(tmp_path):
    paths = {p.name for p in write_case_files(tmp_path)}
    for case in CASES:
        if case.files[1].endswith(".pdf") and "사원소개집.pdf" not in paths:
            continue  # no Korean font: the PDF case is left out
        assert set(case.files) <= paths
    assert answer_ok("정답은 부산 지사입니다", ("부산 지사",)) and not answer_ok("대전 연구소", ("부산 지사",))
    assert file_of("기타/doc003.docx#sec2") == "doc003.docx"


def test_run_passes_only_with_both_files_cited(tmp_path):
    s = dataclasses.replace(Settings(), llm="scripted", retries=0, k=5, retriever="bm25")
    res = run(s, ["oner"], work=tmp_path / "w", out=tmp_path / "out", dense=False, say=lambda m: None,
              llm=ScriptedLLM(default=_reader))
    rows = res["rows"]
    assert rows and all(r["answer_ok"] for r in rows), rows
    assert all(r["both_cited"] == (len(r["cited"]) >= 2 and r["passed"]) for r in rows)
    assert res["passed"]["oner"] == sum(r["passed"] for r in rows) >= 1
    assert (tmp_path / "out" / "crossdoc.json").exists() and "| question | method |" in (tmp_path / "out" / "crossdoc.md").read_text()
