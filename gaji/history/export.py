"""Real users' questions as a benchmark: the history written as a question set in `gaji eval`'s JSONL.

    gaji history export --out asked.jsonl [--feedback any|corrected|up|down] [--client NAME]
    gaji eval --data asked.jsonl --method oner --index DIR

One line per answered question: `question` is the question as it was answered (a follow-up's
standalone rewrite, so the line stands on its own), `answers` the gold answers the feedback gives:
the corrected answer where one was given, else the answer itself when it was rated up, else none (a
question without answers is still run and costed; it has no EM/F1). The rest (`asked`, `answer`,
`feedback`, the conversation and trace ids) rides along as extra fields, which `gaji eval` ignores.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from gaji.errors import ConfigError
from gaji.history.store import HistoryStore, QuestionRecord
from gaji.io import atomic_write_text
from gaji.text.lang import detect_lang

FILTERS = ("all", "any", "corrected", "up", "down")


def gold_answers(rec: QuestionRecord) -> list[str]:
    fb = rec.feedback
    if fb is None:
        return []
    if fb.correct_answer:
        return [fb.correct_answer]
    if fb.rating == "up" and rec.answer:
        return [rec.answer]
    return []


def keep(rec: QuestionRecord, which: str) -> bool:
    fb = rec.feedback
    if which == "all":
        return True
    if fb is None:
        return False
    if which == "any":
        return True
    if which == "corrected":
        return bool(fb.correct_answer)
    return fb.rating == which


def export_line(rec: QuestionRecord) -> dict[str, Any]:
    question = rec.standalone or rec.question
    fb = rec.feedback
    return {
        "id": rec.id,
        "question": question,
        "answers": gold_answers(rec),
        "type": "history",
        "language": detect_lang(question),
        "source": "gaji history",
        "asked": rec.question,
        "answer": rec.answer,
        "feedback": fb.rating if fb else None,
        "conversation_id": rec.conversation_id,
        "turn": rec.turn,
        "method": rec.method,
        "index": rec.index,
        "client": rec.client,
        "created_at": rec.created_at,
    }


def export_questions(store: HistoryStore, out: str | Path, which: str = "all", client: str | None = None,
                     limit: int = 0) -> int:
    """Write the history's answered questions (oldest first) as gaji JSONL to `out` (atomically); returns
    how many lines were written."""
    if which not in FILTERS:
        raise ConfigError(f"--feedback must be one of {', '.join(FILTERS)}, not {which!r}")
    recs: Iterable[QuestionRecord] = store.questions(client=client, limit=0, oldest_first=True)
    lines = [export_line(r) for r in recs if r.status == "ok" and keep(r, which)]
    if limit and limit > 0:
        lines = lines[:limit]
    atomic_write_text(out, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    return len(lines)
