"""What the server remembers: a stored trace by id, a conversation's turns, and feedback on an answer.

A client with a named key sees only its own traces and conversations; the server's own key and a
server without keys see them all. Without a history database these answer 400 (history_db is off).
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from gaji.serve import schemas
from gaji.serve.errors import ERRORS
from gaji.serve.routes import Client, Service

router = APIRouter(tags=["history"])


@router.get("/api/traces/{trace_id}", responses={**ERRORS, 503: {"model": schemas.ErrorResponse}})
async def get_trace(trace_id: str, service: Service, client: Client) -> dict[str, Any]:
    """A stored question: its answer, conversation, latency, tokens, client, latest feedback and whole trace."""
    rec = await service.stored_question(trace_id, client, trace=True)
    return rec.to_dict(trace=True)


@router.get("/api/conversations", responses={**ERRORS, 503: {"model": schemas.ErrorResponse}})
async def list_conversations(service: Service, client: Client,
                             limit: int = Query(50, ge=1, le=500, description="at most this many")) -> dict[str, Any]:
    """The stored conversations this client may see, the most recently used first: id, title (the first
    question), questions, created_at, last_at. Reopen one with GET /api/conversations/{id}."""
    return {"conversations": [c.to_dict() for c in await service.conversations(client, limit)]}


@router.get("/api/conversations/{conversation_id}", responses={**ERRORS, 503: {"model": schemas.ErrorResponse}})
async def get_conversation(conversation_id: str, service: Service, client: Client) -> dict[str, Any]:
    """A conversation's questions, oldest first (without their traces: GET /api/traces/{id} has each)."""
    conv, turns = await service.conversation(conversation_id, client)
    return {"id": conv.id, "title": conv.title, "created_at": conv.created_at,
            "turns": [t.to_dict() for t in turns]}


@router.post("/api/feedback", response_model=schemas.FeedbackResponse,
             responses={**ERRORS, 503: {"model": schemas.ErrorResponse}})
async def feedback(req: schemas.FeedbackRequest, service: Service, client: Client) -> dict[str, Any]:
    """Rate an answer up or down, optionally with the answer that would have been right (`gaji history
    export` turns corrected answers into a question set for `gaji eval`)."""
    fb = await service.add_feedback(req.trace_id, req.rating, req.correct_answer, req.comment, client)
    return {"id": fb.id, "trace_id": fb.question_id, "rating": fb.rating, "correct_answer": fb.correct_answer,
            "comment": fb.comment, "created_at": fb.created_at}
