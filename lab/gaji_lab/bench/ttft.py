"""`gaji bench ttft`: time to the first token of the answer, per method, against the time to the whole run.

    gaji bench ttft --llm local --methods nor,oner,toq [--index DIR] [--question Q …] [--out DIR]

Each question is asked of each method with the answer streamed (`Gaji.ask(on_answer=…)`, what
`gaji ask`, /api/ask/stream, the web page and the chat endpoint show). Measured from the call:

  first token   the first piece of any draft of the answer (what a reader first sees)
  final token   the first piece of the draft that became the answer (a method that answers again, like
                ToQ after its evaluator, starts a new draft; the others have one)
  total         the whole run (when the answer appeared before streaming, and still the end of the trace)

Without an --index, the demo corpus (gaji/data/demo_corpus.jsonl) is indexed into $GAJI_HOME/demo-index
as `gaji demo` does; the default questions are the demo's two and two more over the same corpus.
"""
from __future__ import annotations

import statistics
import time
from importlib import resources
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError

QUESTIONS = (
    "훈민정음은 몇 년에 반포되었나요?",
    "In what year did the war that included the Battle of Guam end?",
    "경복궁은 언제 창건되었나요?",
    "Which island is the largest of the Mariana Islands?",
)


def measure(gaji: Any, question: str, method: str) -> dict[str, Any]:
    """One streamed run: times (ms) to the first piece of the answer, of its final draft, and to the end."""
    firsts: dict[int, float] = {}
    t0 = time.perf_counter()

    def on_answer(piece: Any) -> None:
        firsts.setdefault(piece.draft, (time.perf_counter() - t0) * 1000)

    trace = gaji.ask(question, method=method, on_answer=on_answer)
    total = (time.perf_counter() - t0) * 1000
    final_draft = max(firsts) if firsts else None
    u = trace.usage()
    return {"question": question, "method": method, "status": trace.status, "answer": trace.answer,
            "first_token_ms": round(min(firsts.values()), 1) if firsts else None,
            "final_token_ms": round(firsts[final_draft], 1) if final_draft else None,
            "total_ms": round(total, 1), "drafts": len(firsts), "llm_calls": u.calls,
            "completion_tokens": u.completion_tokens}


def summarize(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for m in dict.fromkeys(r["method"] for r in rows):
        rs = [r for r in rows if r["method"] == m]

        def med(key: str) -> float | None:
            vals = [r[key] for r in rs if r[key] is not None]
            return round(statistics.median(vals), 1) if vals else None

        out[m] = {"questions": len(rs), "first_token_ms": med("first_token_ms"), "final_token_ms": med("final_token_ms"),
                  "total_ms": med("total_ms"), "streamed": sum(r["first_token_ms"] is not None for r in rs),
                  "llm_calls": med("llm_calls")}
    return out


def render(summary: dict[str, dict[str, Any]], rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    def s(ms: float | None) -> str:
        return "–" if ms is None else f"{ms / 1000:.1f}"

    lines = [f"Time to the first answer token ({meta['llm']}, {meta['date']}; medians over {meta['questions']} "
             "question(s), seconds)", "",
             "| method | first token | final answer's first token | whole run | streamed | LLM calls |",
             "|---|---:|---:|---:|---:|---:|"]
    for m, b in summary.items():
        lines.append(f"| {m} | {s(b['first_token_ms'])} | {s(b['final_token_ms'])} | {s(b['total_ms'])} | "
                     f"{b['streamed']}/{b['questions']} | {b['llm_calls']} |")
    lines += ["", "| method | question | first | final | total | drafts | answer |", "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['method']} | {r['question']} | {s(r['first_token_ms'])} | {s(r['final_token_ms'])} | "
                     f"{s(r['total_ms'])} | {r['drafts']} | {r['answer']} |")
    return "\n".join(lines)


def demo_index() -> str:
    from gaji.config import default_home
    from gaji.index.build import build_index
    from gaji.index.store import open_index

    out = default_home() / "demo-index"
    corpus = resources.files("gaji") / "data" / "demo_corpus.jsonl"
    with resources.as_file(corpus) as path:
        try:
            open_index(out)
        except Exception:  # noqa: BLE001 - missing or stale: build it (as gaji demo does)
            build_index([str(path)], out)
    return str(out)


def run_ttft(settings: Any, methods: list[str], questions: list[str] | None = None,
             out: str = "benchmarks/results/ttft", say: Any = print) -> dict[str, Any]:
    """Each question asked of each method with the answer streamed; writes the result pair, returns it."""
    from gaji.api import Gaji
    from gaji_lab.bench.results import save_result
    from gaji.eval.record import now_iso

    if not methods:
        raise ConfigError("name at least one method")
    s = settings
    if not s.index:
        s.index = demo_index()
    questions = list(questions or QUESTIONS)
    g = Gaji(settings=s)
    rows = []
    try:
        for q in questions:
            for m in methods:
                r = measure(g, q, m)
                rows.append(r)
                say(f"{m:8s} first {r['first_token_ms']} ms · final {r['final_token_ms']} ms · total {r['total_ms']} ms "
                    f"· {q}")
        model = g.backend.name
    finally:
        g.close()
    meta = {"llm": s.llm, "model": model, "date": now_iso()[:10], "questions": len(questions), "index": Path(s.index).name}
    summary = summarize(rows)
    tag = s.llm.replace(":", "-").replace("/", "_")
    result = {**meta, "summary": summary, "runs": rows}
    save_result(out, f"ttft-{tag}", result, render(summary, rows, meta))
    return result
