"""Asking: one JSON answer, or the run as server-sent events. Both go through the AskService."""
from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any, AsyncIterator

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse

from gaji.serve import schemas
from gaji.serve.errors import ERRORS
from gaji.serve.routes import Access, Client, Service
from gaji.serve.service import AskStream, history_headers

router = APIRouter(tags=["ask"])


@router.post("/api/ask", response_model=schemas.AskResponse,
             responses={**ERRORS, 502: {"model": schemas.ErrorResponse}, 503: {"model": schemas.ErrorResponse},
                        504: {"model": schemas.ErrorResponse}})
async def ask(req: schemas.AskRequest, service: Service, client: Client, access: Access) -> JSONResponse:
    """Answer one question; the body holds the answer, the cited passages, the whole trace, the trace id
    (GET /api/traces/{id}) and the conversation id (send it with a follow-up question)."""
    status, body = await service.ask(await service.open(req, client=client, access=access))
    return JSONResponse(body, status_code=status, headers=history_headers(body))


@router.post("/api/ask/stream", responses={**ERRORS, 503: {"model": schemas.ErrorResponse}},
             response_class=StreamingResponse)
async def ask_stream(req: schemas.AskRequest, service: Service, client: Client, access: Access) -> StreamingResponse:
    """Server-sent events: `start` (with the trace and conversation ids), then one `node` per node
    created or updated (a node without its children, with `child_ids` and the text of newly seen
    `passages`), `answer` pieces as the answer is written (`{"draft", "delta"}`; a new draft number
    starts the text over), then `final` (the /api/ask body) or `error` (`{"error", "status"}`).
    Comment lines keep the connection alive."""
    # a bad request, an unknown conversation or a full queue is a JSON error, before any event
    stream = service.stream(await service.open(req, client=client, access=access))
    return StreamingResponse(sse_events(stream), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def sse_events(stream: AskStream) -> AsyncIterator[str]:
    seq = 0
    async with aclosing(stream.events()) as events:  # closed with the response: a client gone cancels the run
        async for ev in events:
            if ev.kind == "keepalive":
                yield ": keep-alive\n\n"
            elif ev.kind != "done":
                yield sse(ev.kind, ev.data, seq)
            elif ev.status == 200:
                yield sse("final", ev.data, seq)
            else:
                yield sse("error", {**(ev.data or {}), "status": ev.status}, seq)
            if ev.kind != "keepalive":
                seq += 1


def sse(event: str, data: Any, seq: int) -> str:
    return f"id: {seq}\nevent: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
