"""`gaji bench chat-set`: a question set asked through `/v1/chat/completions`, as a chat client asks it.

    gaji bench chat-set --data komultihop-report --ids benchmarks/auto/cascade/ko-report-24.txt \\
        --llm local --serve-index korquad=.gaji/indexes/korquad --out runs/v1-komultihop-report/answers.jsonl

`gaji eval` runs a method in-process; this asks a real `gaji serve` (started here on a free loopback port, or the
one at `--url`) one question at a time, with the server's default model (`gaji`: its default method) and its time
limit, so what it measures is what a person in a chat client gets: whether each question was answered or refused
(a 504 is the time limit), how long it took end to end, the tokens the server counted, and the short answer's F1
(the response's `gaji.answer`). One JSON line per question, appended as it is answered: a stopped run resumes.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, InputError
from gaji.eval.datasets import EvalItem
from gaji.eval.metrics.answer import answer_scores


def read_done(out: Path) -> dict[str, dict[str, Any]]:
    """The rows already written (a resumed run skips them); a broken line is an error naming it."""
    done: dict[str, dict[str, Any]] = {}
    if not out.is_file():
        return done
    for n, line in enumerate(out.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            done[str(row["id"])] = row
        except (ValueError, KeyError, TypeError):
            raise InputError("not a chat-set row", path=str(out), line=n) from None
    return done


def ask_one(client: Any, url: str, item: EvalItem, model: str, headers: dict[str, str]) -> dict[str, Any]:
    """One question as a chat client asks it: the row recorded for it."""
    import httpx

    body = {"model": model, "messages": [{"role": "user", "content": item.question}]}
    t0 = time.monotonic()
    status, error, answer, content, usage = 0, "", "", "", {}
    try:
        r = client.post(f"{url}/v1/chat/completions", json=body, headers=headers)
        status = r.status_code
        data = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        if status == 200:
            content = data["choices"][0]["message"]["content"] or ""
            answer = (data.get("gaji") or {}).get("answer") or content
            usage = data.get("usage") or {}
        else:
            error = str((data.get("error") or {}).get("message") or r.text[:300])
    except httpx.HTTPError as e:
        error = f"{type(e).__name__}: {e}"
    wall = time.monotonic() - t0
    score = answer_scores(answer, item.answers, item.lang) if status == 200 else None
    return {"id": item.id, "type": item.type or "", "status": status, "error": error, "wall_s": round(wall, 1),
            "answer": answer, "f1": round(score.f1, 4) if score else 0.0, "tokens": usage.get("total_tokens", 0),
            "content": content, "gold": list(item.answers)}


def ask_set(url: str, items: list[EvalItem], out: Path, model: str = "gaji", timeout: float = 900.0,
            say: Any = None) -> list[dict[str, Any]]:
    """Ask every item not yet in `out`, one at a time; every row (old and new) in the items' order."""
    import httpx

    out.parent.mkdir(parents=True, exist_ok=True)
    done = read_done(out)
    key = os.environ.get("GAJI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with httpx.Client(timeout=timeout) as client, out.open("a", encoding="utf-8") as f:
        for item in items:
            if item.id in done:
                continue
            row = ask_one(client, url, item, model, headers)
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            f.flush()
            done[item.id] = row
            if say:
                say(f"{item.id}: {row['status']} in {row['wall_s']} s, F1 {row['f1']:.2f}: {row['answer'][:60]}")
    return [done[i.id] for i in items if i.id in done]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Answered and refused, the time limit hits, wall time p50 / max, tokens and F1: overall and by type."""
    def of(rs: list[dict[str, Any]]) -> dict[str, Any]:
        walls = [r["wall_s"] for r in rs]
        return {"questions": len(rs), "answered": sum(r["status"] == 200 for r in rs),
                "time_limit": sum(r["status"] == 504 for r in rs),
                "failed": sum(r["status"] not in (200, 504) for r in rs),
                "f1": round(100 * sum(r["f1"] for r in rs) / len(rs), 1),
                "tokens": round(sum(r["tokens"] for r in rs) / len(rs)),
                "wall_s_p50": round(statistics.median(walls), 1), "wall_s_max": round(max(walls), 1)}
    if not rows:
        return {"all": None, "by_type": {}}
    types = sorted({r["type"] for r in rows})
    return {"all": of(rows), "by_type": {t: of([r for r in rows if r["type"] == t]) for t in types if t}}


def report(s: dict[str, Any]) -> str:
    if not s["all"]:
        return "gaji bench chat-set: no question asked"
    lines = ["gaji bench chat-set (one question at a time through /v1/chat/completions)"]
    for name, r in [("all", s["all"]), *s["by_type"].items()]:
        lines.append(f"  {name}: {r['questions']} questions, {r['answered']} answered, {r['time_limit']} at the time "
                     f"limit, {r['failed']} failed; F1 {r['f1']}, {r['tokens']:,} tokens/q, wall p50 "
                     f"{r['wall_s_p50']} s, max {r['wall_s_max']} s")
    return "\n".join(lines)


def select(items: list[EvalItem], ids: tuple[str, ...] | None, limit: int | None) -> list[EvalItem]:
    """The items named by `ids` (`gaji eval`'s --ids, parsed by its `question_ids`), in their order, else the first
    `limit` (else all)."""
    if ids:
        by_id = {it.id: it for it in items}
        missing = [x for x in ids if x not in by_id]
        if missing:
            raise InputError(f"{len(missing)} id(s) not in the set, first {missing[0]!r}", field="--ids")
        return [by_id[x] for x in dict.fromkeys(ids)]
    return items[:limit] if limit else items


def run_chat_set(data: str, out: str, *, url: str | None = None, ids: tuple[str, ...] | None = None,
                 limit: int | None = None,
                 model: str = "gaji", llm: str = "local", serve_index: list[str] | None = None,
                 request_timeout: float | None = None, timeout: float = 900.0) -> dict[str, Any]:
    """Ask the set through `url`, or through a `gaji serve` started here (`llm`, `serve_index`, the server's own
    time limit unless `request_timeout`), stopped at the end; the summary of every row in `out`."""
    try:
        import httpx  # noqa: F401
    except ModuleNotFoundError:
        raise ConfigError("gaji bench chat-set needs httpx: pip install 'gaji[serve]'") from None
    from gaji.eval.sets import load_dataset
    from gaji_lab.bench.serve import free_port, start_server, stop_server

    items = select(load_dataset(data).items, ids, limit)
    proc = None
    if url is None:
        port = free_port()
        sargs = ["--llm", llm]
        for spec in serve_index or []:
            sargs += ["--index", spec]
        if request_timeout is not None:
            sargs += ["--timeout", str(request_timeout)]
        print(f"starting gaji serve {' '.join(sargs)} on port {port} …", file=sys.stderr, flush=True)
        proc = start_server(sargs, port)
        url = f"http://127.0.0.1:{port}"
    try:
        rows = ask_set(url.rstrip("/"), items, Path(out), model, timeout,
                       say=lambda m: print(m, file=sys.stderr, flush=True))
    finally:
        if proc is not None:
            stop_server(proc)
    return summary(rows)
