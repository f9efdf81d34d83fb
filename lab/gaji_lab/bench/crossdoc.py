"""`gaji bench crossdoc`: Korean two-hop questions whose two facts sit in two files of different formats.

    gaji bench crossdoc --llm local --methods auto,oner,toq [--out benchmarks/crossdoc]

A folder is written with the generators of gaji/corpus/docgen.py: three pairs of files (HWPX → PDF, XLSX →
DOCX, PPTX → HTML), each pair holding the two halves of one question about an invented company, so that
no model knows the answer beforehand, among ten filler documents of the same kinds (docgen's sample folder).
The folder is indexed the way a user would (`build_index` on the folder, BM25 + vectors by default), and
each method answers each question with the given LLM.

A question passes when the answer holds one of its accepted forms (gaji's answer normalisation, Korean
particles stripped) and *both* of its files are among the trace's citations. The per-question line gives the
answer, the cited and the retrieved files, tokens, calls and seconds; the totals go to <out>/crossdoc.json
and .md.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gaji.corpus.docgen import (korean_font, write_docx, write_hwpx, write_html, write_pdf, write_pptx,
                               write_sample_folder, write_xlsx)


@dataclass(frozen=True)
class Case:
    id: str
    question: str
    answers: tuple[str, ...]
    files: tuple[str, str]  # the two files that hold the facts (names in the folder)


CASES: tuple[Case, ...] = (
    Case("hwpx-pdf", "누리별 프로젝트 책임자는 어느 지사에 입사했나요?", ("부산 지사", "부산"),
         ("인사발령_2025-03.hwpx", "사원소개집.pdf")),
    Case("xlsx-docx", "배터리 셀을 공급하는 협력사의 대표는 누구인가요?", ("오세린",),
         ("협력사_현황.xlsx", "협력사_방문보고.docx")),
    Case("pptx-html", "2025년 11월에 출시될 예정인 제품의 출고가는 얼마인가요?", ("89만 원", "89만원", "890,000원"),
         ("하반기_출시계획.pptx", "제품_가격표.html")),
)


def write_case_files(root: Path) -> list[Path]:
    """The six files of CASES (the PDF only when a Korean font is installed)."""
    root.mkdir(parents=True, exist_ok=True)
    out = [
        write_hwpx(root / "인사발령_2025-03.hwpx", "인사 발령 공문", [
            ("h1", "1. 발령 사항"),
            ("p", "2025년 3월 1일자로 누리별 프로젝트 책임자에 한지민 수석을 임명한다."),
            ("p", "같은 날짜로 물결 프로젝트 책임자에는 도윤재 책임을 임명한다."),
            ("h1", "2. 시행"), ("p", "각 부서는 발령 사항을 인사 시스템에 반영한다."),
        ]),
        write_xlsx(root / "협력사_현황.xlsx", {"협력사": [
            ["협력사", "공급 품목", "계약 종료"],
            ["은하소재", "배터리 셀", "2027년 6월"],
            ["새벽정밀", "카메라 모듈", "2026년 12월"],
            ["한울디스플레이", "OLED 패널", "2028년 3월"],
        ]}),
        write_docx(root / "협력사_방문보고.docx", "협력사 방문 보고", [
            ("h1", "1. 방문 개요"), ("p", "구매팀은 10월 둘째 주에 주요 협력사 세 곳을 방문하였다."),
            ("h1", "2. 면담 내용"),
            ("p", "은하소재의 대표 오세린은 내년 생산 능력을 20% 늘릴 계획이라고 밝혔다."),
            ("p", "새벽정밀의 대표 민태오는 신규 공장 가동이 3개월 늦어진다고 알렸다."),
        ]),
        write_pptx(root / "하반기_출시계획.pptx", [
            ("1. 하반기 출시 계획", ["2025년 하반기 신제품 일정을 공유합니다."], None),
            ("2. 일정", ["가람 태블릿은 2025년 11월 출시 예정입니다.", "누리 이어폰은 2025년 9월에 출시되었습니다."], None),
        ]),
        write_html(root / "제품_가격표.html", "제품 가격표", [
            ("h1", "2025년 제품 가격"),
            ("p", "가람 태블릿의 출고가는 89만 원이다."),
            ("p", "누리 이어폰의 출고가는 19만 9천 원이다."),
        ], nav=["전자결재", "사내게시판", "가격표 목록"], footer="가지전자 영업지원팀"),
    ]
    if korean_font():
        out.append(write_pdf(root / "사원소개집.pdf", [
            ["사원 소개집", "2025년판", "이 책자는 주요 프로젝트를 맡은 사원을 소개합니다."],
            ["한지민 수석", "한지민 수석은 2016년 부산 지사에 입사하여 결제 시스템 개발을 맡았다."],
            ["도윤재 책임", "도윤재 책임은 2019년 대전 연구소에 입사하여 음성 인식을 연구했다."],
        ]))
    return out


def write_folder(root: str | Path, fillers: int = 10) -> list[Path]:
    """The case files among `fillers` filler documents (docgen's sample folder), in a fresh folder."""
    root = Path(root)
    shutil.rmtree(root, ignore_errors=True)
    paths = write_case_files(root)
    paths += write_sample_folder(root / "기타", fillers, pdf=korean_font() is not None)
    return paths


def answer_ok(answer: str, accepted: tuple[str, ...]) -> bool:
    """An accepted form is in the answer (Korean particles and copulas stripped, case and spaces ignored)."""
    from gaji.text.answers import normalize_ko

    got = normalize_ko(answer)
    return any(want and want in got for want in map(normalize_ko, accepted))


def file_of(passage_id: str) -> str:
    """The file name a folder passage id ("sub/보고서.docx#3") comes from."""
    return Path(passage_id.split("#", 1)[0]).name


def ask_case(gaji: Any, case: Case, method: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    trace = gaji.ask(case.question, method=method)
    cited = sorted({file_of(p) for p in trace.citations})
    retrieved = sorted({file_of(p) for p in trace.retrieved_ids()})
    usage = trace.usage()
    ok = answer_ok(trace.answer, case.answers)
    both = set(case.files) <= set(cited)
    return {"id": case.id, "method": method, "question": case.question, "answer": trace.answer,
            "status": trace.status, "answer_ok": ok, "cited": cited, "both_cited": both,
            "retrieved_both": set(case.files) <= set(retrieved), "passed": ok and both,
            "tokens": usage.prompt_tokens + usage.completion_tokens, "calls": usage.calls,
            "seconds": round(time.perf_counter() - t0, 1)}


def run(settings: Any, methods: list[str], work: str | Path = ".gaji/bench/crossdoc",
        out: str | Path = "benchmarks/crossdoc", dense: bool = True, say: Callable[[str], Any] = print,
        llm: Any = None) -> dict[str, Any]:
    """Write the folder, index it, answer every case with every method; save and return the results."""
    import dataclasses

    from gaji.api import Gaji
    from gaji_lab.bench.results import save_result
    from gaji.index.build import build_index

    work = Path(work)
    write_folder(work / "docs")
    cases = [c for c in CASES if all((work / "docs" / f).exists() for f in c.files)]
    t0 = time.perf_counter()
    build_index([work / "docs"], work / "index", dense=dense, progress=False).close()
    build_s = time.perf_counter() - t0
    gaji = Gaji(llm=llm, settings=dataclasses.replace(settings, index=str(work / "index")))
    rows = []
    for method in methods:
        for case in cases:
            row = ask_case(gaji, case, method)
            rows.append(row)
            say(f"{case.id:10s} {method:5s} {'PASS' if row['passed'] else 'fail'} answer={row['answer']!r} "
                f"cited={row['cited']} {row['seconds']} s")
    gaji.close()
    res = {"date": time.strftime("%Y-%m-%d"), "llm": settings.llm, "methods": methods, "dense": dense,
           "build_s": round(build_s, 1), "rows": rows,
           "passed": {m: sum(r["passed"] for r in rows if r["method"] == m) for m in methods}, "cases": len(cases)}
    save_result(out, "crossdoc", res, markdown(res))
    return res


def markdown(res: dict[str, Any]) -> str:
    lines = [f"Cross-file Korean two-hop questions ({res['llm']}, {res['date']}; index built in {res['build_s']} s, "
             f"{'BM25 + vectors' if res['dense'] else 'BM25'})", "",
             "| question | method | answer | right | both files cited | cited files | tokens | calls | s |",
             "|---|---|---|---|---|---|---:|---:|---:|"]
    for r in res["rows"]:
        lines.append(f"| {r['id']} | {r['method']} | {r['answer'][:40]} | {'yes' if r['answer_ok'] else 'no'} | "
                     f"{'yes' if r['both_cited'] else 'no'} | {', '.join(r['cited'])} | {r['tokens']} | "
                     f"{r['calls']} | {r['seconds']} |")
    lines += ["", "Passed (right and both files cited): "
              + ", ".join(f"{m} {n}/{res['cases']}" for m, n in res["passed"].items())]
    return "\n".join(lines)
