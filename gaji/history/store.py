"""The history: every question asked (with its conversation, trace, latency, tokens and client) and the
feedback given on its answer. Survives restarts; several server processes may share one database.

    store = HistoryStore.open("~/.cache/gaji/history.sqlite3")     # or a postgresql:// URL
    cid = store.start_conversation(client="alice", title="훈민정음은 언제 반포되었나?")
    store.record(QuestionRecord(id=trace_id, conversation_id=cid, question=..., method="oner", status="ok", ...))
    store.turns(cid)                                  # [Turn(question, answer, standalone)], oldest first
    store.add_feedback(trace_id, "down", correct_answer="1446년")
"""
from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from gaji.conversation.turns import Turn
from gaji.errors import ConfigError
from gaji.history.db import Database, open_database
from gaji.history.migrations import migrate, now_iso
from gaji.types import Trace

RATINGS = ("up", "down")


def new_id() -> str:
    return uuid.uuid4().hex


@dataclass
class Conversation:
    id: str
    client: str | None = None
    title: str = ""
    created_at: str = ""


@dataclass
class ConversationSummary:
    """A conversation as a list shows it: its title (the first question), how many questions, the last one's time."""

    id: str
    title: str = ""
    client: str | None = None
    created_at: str = ""
    questions: int = 0
    last_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "client": self.client, "created_at": self.created_at,
                "questions": self.questions, "last_at": self.last_at}


@dataclass
class Feedback:
    id: str
    question_id: str
    rating: str  # up | down
    correct_answer: str | None = None
    comment: str | None = None
    client: str | None = None
    created_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question_id": self.question_id, "rating": self.rating,
                "correct_answer": self.correct_answer, "comment": self.comment, "client": self.client,
                "created_at": self.created_at}


@dataclass
class QuestionRecord:
    """One question as stored. `id` is the trace id; `standalone` the rewrite of a follow-up ("" if none);
    `status`: ok | failed (the method failed) | timeout | cancelled | error."""

    id: str
    conversation_id: str
    question: str
    method: str
    status: str
    turn: int = 0
    standalone: str = ""
    answer: str = ""
    error: str | None = None
    index: str | None = None
    model: str = ""
    client: str | None = None
    endpoint: str = ""  # api | chat | cli
    latency_ms: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    citations: list[dict[str, Any]] = field(default_factory=list)
    trace: dict[str, Any] | None = None
    created_at: str = ""
    feedback: Feedback | None = None  # the latest feedback, when loaded

    def to_dict(self, trace: bool = False) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in ("id", "conversation_id", "turn", "question", "standalone", "answer",
                                           "status", "error", "method", "index", "model", "client", "endpoint",
                                           "latency_ms", "llm_calls", "prompt_tokens", "completion_tokens",
                                           "citations", "created_at")}
        d["feedback"] = self.feedback.to_dict() if self.feedback else None
        if trace:
            d["trace"] = self.trace
        return d

    @classmethod
    def from_trace(cls, trace: Trace, *, id: str, conversation_id: str, question: str, latency_ms: float,
                   index: str | None = None, client: str | None = None, endpoint: str = "",
                   citations: list[dict[str, Any]] | None = None, trace_dict: dict[str, Any] | None = None,
                   status: str | None = None) -> "QuestionRecord":
        """The record of a finished run: answer, status, tokens and (a copy of) the trace."""
        u = trace.usage()
        conv = trace.root.data.get("conversation") or {}
        return cls(id=id, conversation_id=conversation_id, question=question, method=trace.method,
                   status=status or trace.status, standalone=conv.get("standalone", "") if conv else "",
                   answer=trace.answer, error=trace.error, index=index, model=trace.model, client=client,
                   endpoint=endpoint, latency_ms=round(latency_ms, 1), llm_calls=u.calls,
                   prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens,
                   citations=citations if citations is not None else [{"id": c} for c in trace.citations],
                   trace=trace_dict if trace_dict is not None else trace.to_dict())


_COLUMNS = ("id", "conversation_id", "turn", "question", "standalone", "answer", "status", "error", "method",
            "index_name", "model", "client", "endpoint", "latency_ms", "llm_calls", "prompt_tokens",
            "completion_tokens", "citations", "created_at")


def _lock_key(conversation_id: str) -> int:
    """A conversation's advisory-lock key (a signed 64-bit integer, as PostgreSQL wants it)."""
    return int.from_bytes(hashlib.sha256(conversation_id.encode("utf-8")).digest()[:8], "big", signed=True)


class HistoryStore:
    def __init__(self, db: Database):
        self.db = db
        self.applied = migrate(db)

    @classmethod
    def open(cls, spec: str) -> "HistoryStore":
        return cls(open_database(spec))

    def describe(self) -> str:
        return self.db.describe()

    def close(self) -> None:
        self.db.close()

    # -- conversations ------------------------------------------------------------------------
    def start_conversation(self, client: str | None = None, title: str = "", id: str | None = None) -> str:
        """A new conversation (or, with `id`, that one if it does not exist yet); returns its id."""
        cid = id or new_id()
        self.db.run("INSERT INTO conversations (id, client, title, created_at) VALUES (:id, :client, :title, :t) "
                    "ON CONFLICT (id) DO NOTHING", id=cid, client=client, title=title[:200], t=now_iso())
        return cid

    def conversation(self, cid: str) -> Conversation | None:
        rows = self.db.run("SELECT id, client, title, created_at FROM conversations WHERE id = :id", id=cid)
        return Conversation(*rows[0]) if rows else None

    def conversations(self, client: str | None = None, limit: int = 50) -> list[ConversationSummary]:
        """Conversations with at least one question, the most recently used first; only `client`'s when given."""
        sql = ("SELECT c.id, c.title, c.client, c.created_at, COUNT(q.id), MAX(q.created_at) FROM conversations c "
               "JOIN questions q ON q.conversation_id = c.id")
        params: dict[str, Any] = {}
        if client is not None:
            sql += " WHERE c.client = :client"
            params["client"] = client
        sql += " GROUP BY c.id, c.title, c.client, c.created_at ORDER BY MAX(q.created_at) DESC"
        if limit and limit > 0:
            sql += " LIMIT :limit"
            params["limit"] = int(limit)
        return [ConversationSummary(i, t or "", cl, ca or "", int(n or 0), la or "")
                for i, t, cl, ca, n, la in self.db.run(sql, **params)]

    def turns(self, cid: str) -> list[Turn]:
        """The conversation's answered questions, oldest first (failed ones are not context)."""
        rows = self.db.run("SELECT question, answer, standalone FROM questions WHERE conversation_id = :c "
                           "AND status = 'ok' ORDER BY turn, created_at", c=cid)
        return [Turn(question=q, answer=a or "", standalone=s or "") for q, a, s in rows]

    # -- questions ----------------------------------------------------------------------------
    def record(self, rec: QuestionRecord) -> QuestionRecord:
        """Store one question (its turn number is the next in its conversation)."""
        self.save(rec)
        return rec

    def save(self, rec: QuestionRecord, title: str | None = None) -> bool:
        """Store one question, and its conversation when `title` is given and the conversation is new, in
        one transaction. Idempotent by the question's id (its trace id): True when stored now, False when
        it was there already (a replay after the first attempt did land)."""
        rec.created_at = rec.created_at or now_iso()
        with self.db.transaction():
            if self.db.kind == "postgresql":  # writers of one conversation take turns: each gets the next turn
                self.db.run("SELECT pg_advisory_xact_lock(:k)", k=_lock_key(rec.conversation_id))
            if self.db.run("SELECT 1 FROM questions WHERE id = :id", id=rec.id):
                return False
            if title is not None:
                self.start_conversation(rec.client, title=title, id=rec.conversation_id)
            rows = self.db.run("SELECT COALESCE(MAX(turn), 0) FROM questions WHERE conversation_id = :c",
                               c=rec.conversation_id)
            rec.turn = int(rows[0][0]) + 1
            self.db.run(
                f"INSERT INTO questions ({', '.join(_COLUMNS)}, trace) VALUES "
                f"({', '.join(':' + c for c in _COLUMNS)}, :trace) ON CONFLICT (id) DO NOTHING",
                id=rec.id, conversation_id=rec.conversation_id, turn=rec.turn, question=rec.question,
                standalone=rec.standalone, answer=rec.answer, status=rec.status, error=rec.error, method=rec.method,
                index_name=rec.index, model=rec.model, client=rec.client, endpoint=rec.endpoint,
                latency_ms=float(rec.latency_ms), llm_calls=rec.llm_calls, prompt_tokens=rec.prompt_tokens,
                completion_tokens=rec.completion_tokens, citations=json.dumps(rec.citations, ensure_ascii=False),
                created_at=rec.created_at,
                trace=json.dumps(rec.trace, ensure_ascii=False) if rec.trace is not None else None)
        return True

    def question(self, qid: str, trace: bool = False) -> QuestionRecord | None:
        cols = ", ".join(_COLUMNS) + (", trace" if trace else "")
        rows = self.db.run(f"SELECT {cols} FROM questions WHERE id = :id", id=qid)
        if not rows:
            return None
        rec = self._record(rows[0], trace)
        rec.feedback = self.latest_feedback([rec.id]).get(rec.id)
        return rec

    def questions(self, conversation_id: str | None = None, client: str | None = None, limit: int = 50,
                  oldest_first: bool = False) -> list[QuestionRecord]:
        """Stored questions (without their traces) with their latest feedback; newest first unless `oldest_first`."""
        where, params = [], {}
        if conversation_id is not None:
            where.append("conversation_id = :c")
            params["c"] = conversation_id
        if client is not None:
            where.append("client = :client")
            params["client"] = client
        sql = f"SELECT {', '.join(_COLUMNS)} FROM questions"
        if where:
            sql += " WHERE " + " AND ".join(where)
        order = "ASC" if oldest_first else "DESC"
        sql += f" ORDER BY created_at {order}, turn {order}"
        if limit and limit > 0:
            sql += " LIMIT :limit"
            params["limit"] = int(limit)
        recs = [self._record(r, False) for r in self.db.run(sql, **params)]
        fb = self.latest_feedback([r.id for r in recs])
        for r in recs:
            r.feedback = fb.get(r.id)
        return recs

    def _record(self, row: tuple, with_trace: bool) -> QuestionRecord:
        d = dict(zip(_COLUMNS + (("trace",) if with_trace else ()), row))
        d["index"] = d.pop("index_name")
        d["citations"] = json.loads(d["citations"] or "[]")
        if with_trace:
            d["trace"] = json.loads(d["trace"]) if d["trace"] else None
        d["latency_ms"] = float(d["latency_ms"] or 0)
        return QuestionRecord(**d)

    # -- feedback -----------------------------------------------------------------------------
    def add_feedback(self, question_id: str, rating: str, correct_answer: str | None = None,
                     comment: str | None = None, client: str | None = None) -> Feedback:
        if rating not in RATINGS:
            raise ConfigError(f"feedback rating must be one of {', '.join(RATINGS)}, not {rating!r}")
        fb = Feedback(id=new_id(), question_id=question_id, rating=rating,
                      correct_answer=(correct_answer or "").strip() or None, comment=(comment or "").strip() or None,
                      client=client, created_at=now_iso())
        self.db.run("INSERT INTO feedback (id, question_id, rating, correct_answer, comment, client, created_at) "
                    "VALUES (:id, :q, :r, :a, :c, :client, :t)", id=fb.id, q=question_id, r=rating,
                    a=fb.correct_answer, c=fb.comment, client=client, t=fb.created_at)
        return fb

    def latest_feedback(self, question_ids: list[str]) -> dict[str, Feedback]:
        """The latest feedback on each of `question_ids` (those that have some)."""
        out: dict[str, Feedback] = {}
        for i in range(0, len(question_ids), 500):
            part = question_ids[i:i + 500]
            if not part:
                continue
            names = {f"q{j}": q for j, q in enumerate(part)}
            rows = self.db.run(
                "SELECT id, question_id, rating, correct_answer, comment, client, created_at FROM feedback "
                f"WHERE question_id IN ({', '.join(':' + n for n in names)}) ORDER BY created_at", **names)
            for row in rows:  # oldest first: the latest one wins
                out[row[1]] = Feedback(*row)
        return out
