"""The OpenAI-compatible API: `POST /v1/chat/completions` and `GET /v1/models` (wire format: serve/chat.py).

Any OpenAI client or chat front end (Open WebUI, LibreChat, …) talks to gaji with
`base_url=http://HOST:PORT/v1`, the server's API key as its OpenAI key, and a gaji model name. The
question runs through the same AskService as /api/ask (queue, time limit, history, metrics);
`stream: true` sends standard `chat.completion.chunk` events, the answer's text as the method writes
it, then the rest of the shown text with its citations, ending with `data: [DONE]`. Errors come in
OpenAI's error shape.
"""
from __future__ import annotations

import json
import time
from contextlib import aclosing
from typing import Any, AsyncIterator, Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError

from gaji.serve import chat as C
from gaji.serve.asgi import openai_error
from gaji.serve.errors import ApiError
from gaji.serve.passage_links import sign
from gaji.serve.routes import Access, Client, Service
from gaji.serve.scopes import may_read
from gaji.serve.schemas import AskRequest
from gaji.serve.service import AskStream, history_headers

router = APIRouter(tags=["openai"])
CREATED = int(time.time())  # the models' "created": when this server started


def default_model(request: Request) -> str:
    service = request.app.state.ask
    return C.default_model(getattr(request.app.state.config, "chat_model", ""), service.default_method)


def visible_models(request: Request, access: Any) -> list[dict[str, Any]]:
    """The models this server answers with that the key may use (a scoped key: its indexes only)."""
    indexes, default = request.app.state.indexes, default_model(request)
    out = []
    for m in C.offered_models(indexes, default, CREATED):
        _, index = C.parse_model(m["id"], default)
        if may_read(access, index if index is not None else indexes.default):
            out.append(m)
    return out


@router.get("/v1/models")
async def list_models(request: Request, access: Access) -> dict[str, Any]:
    """The models this server answers with: gaji-<method> and gaji-<method>@<index>."""
    return {"object": "list", "data": visible_models(request, access)}


@router.get("/v1/models/{model_id}")
async def get_model(model_id: str, request: Request, access: Access) -> dict[str, Any]:
    for m in visible_models(request, access):
        if m["id"] == model_id:
            return m
    raise ApiError(404, f"unknown model {model_id!r} (GET /v1/models lists them)")


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(request: Request, service: Service, client: Client, access: Access) -> Any:
    """OpenAI's chat completions: the last user message is the question, the turns before it its
    conversation. The content carries `[n]` markers and a sources block, `annotations` link each marker
    to its passage page; the response's `gaji` object has the trace id, citations and conversation id."""
    req = await read_request(request)
    ignored = req.check_fields()
    model = req.model if req.model != C.PREFIX else default_model(request)
    method, index = C.parse_model(req.model, default_model(request))
    question, history = C.conversation(req.messages)
    extra = req.gaji or C.GajiChatOptions()
    options, ignored = C.apply_reasoning_effort(req, method, dict(extra.options), ignored)
    try:
        ask = AskRequest(question=question, method=method, index=index, options=options,
                         retriever=extra.retriever, lang=extra.lang, include_prompts=extra.include_prompts)
    except ValidationError as e:
        raise ApiError(400, "bad request: " + "; ".join(str(x.get("msg")) for x in e.errors()[:3])) from None
    cid = extra.conversation_id or C.conversation_id_of(client, req.messages)
    asked = await service.open(ask, client=client, endpoint="chat", history=history, conversation_id=cid,
                               access=access)
    asked.shape = C.shaper(passage_link(request, asked.index), extra.sources, req.json_object)
    stream = service.stream(asked)  # a full queue is a JSON error, before any event
    if not req.stream:
        return await plain(stream, model, method, index, ignored)
    return StreamingResponse(chunks(stream, model, method, index, req.include_usage, req.json_object, ignored),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def passage_link(request: Request, index: str | None) -> Callable[[str], str]:
    """A cited passage id -> the absolute URL of its signed passage page on this server (made for the request's
    API key, whose scopes are checked again when it is opened)."""
    base, secret = str(request.base_url), request.app.state.link_secret
    client = getattr(request.state, "client", None)
    return lambda pid: f"{base}passage/{sign(secret, index, pid, client)}"


async def plain(stream: AskStream, model: str, method: str, index: str | None, ignored: list[str]) -> Any:
    """The run's chat.completion: the same events as a stream, the text `shaper` made at the end."""
    async with aclosing(stream.events()) as events:
        async for ev in events:
            if ev.kind == "done":
                body = ev.data or {}
                if ev.status != 200:
                    return JSONResponse(openai_error(ev.status, body.get("error") or f"HTTP {ev.status}"),
                                        status_code=ev.status)
                return JSONResponse(C.completion(body, model, method, index, ignored), headers=history_headers(body))
    raise ApiError(500, "the run ended without an answer")  # pragma: no cover - events always end with done


async def read_request(request: Request) -> C.ChatRequest:
    raw = await request.body()
    try:
        data = json.loads(raw or b"")
    except ValueError as e:
        raise ApiError(400, f"the body is not valid JSON ({e})") from None
    try:
        return C.ChatRequest.model_validate(data)
    except ValidationError as e:
        parts = []
        for err in e.errors()[:5]:
            loc = ".".join(str(x) for x in err.get("loc", ()))
            parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
        raise ApiError(400, "bad request: " + "; ".join(parts)) from None


async def chunks(stream: AskStream, model: str, method: str, index: str | None, include_usage: bool,
                 json_object: bool = False, ignored: list[str] | None = None) -> AsyncIterator[str]:
    """The run as chat.completion.chunk events: the role, the answer's text as it is written, the rest of
    the shown text (markers, answer line, sources) with its `annotations`, the finish (with the `gaji`
    object), the usage when asked for, then [DONE]. The text after the last revision mark equals the
    plain response's content. In JSON mode nothing is sent until the object is whole."""
    cid = "chatcmpl-" + stream.asked.trace_id
    created = int(time.time())
    draft, sent, current = 0, False, ""
    async with aclosing(stream.events()) as events:  # closed with the response: a client gone cancels the run
        async for ev in events:
            if ev.kind == "start":
                yield data(C.chunk(cid, model, created, {"role": "assistant", "content": ""}))
            elif ev.kind == "keepalive":
                yield ": keep-alive\n\n"
            elif ev.kind == "answer" and ev.data and not json_object:
                text = ev.data["delta"]
                if ev.data["draft"] != draft:
                    if sent:
                        text = C.REVISED + text
                    draft, current = ev.data["draft"], ""
                sent = True
                current += ev.data["delta"]
                yield data(C.chunk(cid, model, created, {"content": text}))
            elif ev.kind == "done":
                body = ev.data or {}
                if ev.status != 200:
                    yield data(openai_error(ev.status, body.get("error") or f"HTTP {ev.status}"))
                else:
                    shown = body.get("shown") or {"content": body.get("answer", ""), "annotations": []}
                    content = shown["content"]
                    if content.startswith(current):
                        rest = content[len(current):]
                    else:  # the shown text does not continue the streamed draft: it follows as a revision
                        rest = (C.REVISED if sent else "") + content
                    delta: dict[str, Any] = {"content": rest}
                    if shown["annotations"]:
                        delta["annotations"] = shown["annotations"]
                    if rest or shown["annotations"]:
                        yield data(C.chunk(cid, model, created, delta))
                    yield data(C.chunk(cid, model, created, {}, "stop",
                                       gaji=C.gaji_extra(body, method, index, ignored)))
                    if include_usage:
                        yield data(C.chunk(cid, model, created, None, usage=C.usage_of(body)))
                yield "data: [DONE]\n\n"


def data(obj: dict[str, Any]) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"
