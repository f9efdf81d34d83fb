"""The OpenAI chat-completions wire format, for gaji as an OpenAI-compatible chat server.

Model names: `gaji-<method>` (the server's default index) or `gaji-<method>@<index>`, for example
`gaji-toq` or `gaji-oner@hotpot`; `gaji` alone is the server's default model (the `chat_model`
setting, else gaji-<default method>). `/v1/models` lists every combination the server offers.

A chat request carries the whole conversation: its last message is the question, the user/assistant
turns before it are the history a follow-up is rewritten against (system messages are ignored: the
method writes its own prompts, and so chooses its own generation parameters). gaji's own extras go in
an optional `gaji` object (`extra_body={"gaji": {...}}` with the openai client): `conversation_id`,
method `options`, `retriever`, `lang`, `include_prompts`.

Every response carries, besides the standard fields, a `gaji` object: the trace id (the whole tree
is GET /api/traces/{trace_id}), the conversation id, the question as answered (a follow-up's
standalone rewrite), the citations and the run's status. `usage` counts every LLM call the method
made, the rewrite included.
"""
from __future__ import annotations

import hashlib
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gaji.conversation.turns import Turn
from gaji.registry import METHODS
from gaji.serve.errors import ApiError
from gaji.serve.indexes import IndexSet
from gaji.serve.schemas import OptionValue

PREFIX = "gaji"
REVISED = "\n\n↻ "  # a streamed answer the method writes again (ToQ after its evaluator) follows this


# -- requests --------------------------------------------------------------------------------------
class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None


class GajiChatOptions(BaseModel):
    """gaji's extras to a chat request (all optional)."""

    model_config = ConfigDict(extra="forbid")

    conversation_id: str | None = Field(None, min_length=1, max_length=64,
                                        description="record the question under this conversation")
    options: dict[str, OptionValue] = Field(default_factory=dict, description="method options, e.g. {\"k\": 5}")
    retriever: str | None = None
    lang: Literal["auto", "ko", "en"] | None = None
    include_prompts: bool = False


class ChatRequest(BaseModel):
    """OpenAI's chat.completions request. Generation parameters (temperature, max_tokens, …) are accepted
    and ignored: each method sets its own."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: int | None = None
    gaji: GajiChatOptions | None = None

    @property
    def include_usage(self) -> bool:
        return bool((self.stream_options or {}).get("include_usage"))


def message_text(m: ChatMessage, i: int) -> str:
    """A message's text; content parts other than text are refused (400)."""
    if m.content is None:
        return ""
    if isinstance(m.content, str):
        return m.content
    parts = []
    for part in m.content:
        if part.get("type") != "text":
            raise ApiError(400, f"messages[{i}]: only text content is supported, not {part.get('type')!r}")
        parts.append(str(part.get("text", "")))
    return "".join(parts)


def conversation(messages: list[ChatMessage]) -> tuple[str, list[Turn]]:
    """(the question: the last message, which must be the user's; the turns before it)."""
    said = [(m.role, message_text(m, i).strip()) for i, m in enumerate(messages)
            if m.role in ("user", "assistant")]
    if not said or said[-1][0] != "user":
        raise ApiError(400, "messages: the last message must be the user's question (role \"user\")")
    question = said[-1][1]
    if not question:
        raise ApiError(400, "messages: the user's question is empty")
    turns: list[Turn] = []
    for role, text in said[:-1]:
        if role == "user":
            turns.append(Turn(question=text))
        elif turns and not turns[-1].answer:
            turns[-1].answer = text.split(REVISED)[-1]  # the last draft of a streamed answer
    return question, [t for t in turns if t.question]


def conversation_id_of(client: str | None, messages: list[ChatMessage]) -> str:
    """A stable id for a conversation whose client names none: the client and its first question (every
    request of one chat resends that question first)."""
    first = next((message_text(m, i) for i, m in enumerate(messages) if m.role == "user"), "")
    return "chat-" + hashlib.sha256(f"{client or ''}\n{first}".encode("utf-8")).hexdigest()[:28]


# -- models ----------------------------------------------------------------------------------------
def model_name(method: str, index: str | None = None) -> str:
    return f"{PREFIX}-{method}" + (f"@{index}" if index else "")


def default_model(configured: str, default_method: str) -> str:
    return configured or model_name(default_method)


def parse_model(name: str, default: str) -> tuple[str, str | None]:
    """`gaji-toq@hotpot` -> ("toq", "hotpot"); `gaji` -> the default model's. 404 for another name."""
    name = name.strip()
    if name == PREFIX:
        name = default
    base, _, index = name.partition("@")
    method = base[len(PREFIX) + 1:] if base.startswith(PREFIX + "-") else ""
    if not method or method not in METHODS:
        raise ApiError(404, f"unknown model {name!r}: models are gaji-<method> or gaji-<method>@<index> "
                       f"(GET /v1/models lists them); methods: {', '.join(METHODS.names())}")
    return method, (index or None)


def offered_models(indexes: IndexSet, default: str, created: int) -> list[dict[str, Any]]:
    """Every model this server answers with: the default first, then each method, alone (the default
    index) and at each index. Methods that need an index are left out when there is none."""
    names = [default]
    for entry in METHODS.entries():
        needs = getattr(entry.obj, "needs_retriever", True)
        if not indexes.names() and needs:
            continue
        names.append(model_name(entry.name))
        names.extend(model_name(entry.name, ix) for ix in indexes.names())
    seen: dict[str, None] = dict.fromkeys(names)
    return [{"id": n, "object": "model", "created": created, "owned_by": "gaji"} for n in seen]


# -- responses -------------------------------------------------------------------------------------
def usage_of(body: dict[str, Any]) -> dict[str, Any]:
    u = body.get("usage") or {}
    p, c = int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0))
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
            "prompt_tokens_details": {"cached_tokens": int(u.get("cached_tokens", 0))}}


def citations_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's cited passages, numbered; `source` is the document's `url` or `source` metadata when
    it has one, else its id."""
    trace = body.get("trace") or {}
    passages = trace.get("passages") or {}
    out = []
    for n, c in enumerate(body.get("citations") or [], 1):
        meta = (passages.get(c["id"]) or {}).get("metadata") or {}
        source = meta.get("url") or meta.get("source") or c.get("doc_id", "")
        out.append({"n": n, "id": c["id"], "doc_id": c.get("doc_id", ""), "title": c.get("title", ""),
                    "source": str(source), "text": c.get("text", "")})
    return out


def gaji_extra(body: dict[str, Any], method: str, index: str | None) -> dict[str, Any]:
    trace = body.get("trace") or {}
    tid = body.get("trace_id")
    return {"trace_id": tid, "trace_url": f"/api/traces/{tid}" if tid else None,
            "conversation_id": body.get("conversation_id"), "question": trace.get("question", ""),
            "method": method, "index": index, "status": body.get("status", ""),
            "citations": citations_of(body), "llm_calls": int((body.get("usage") or {}).get("calls", 0))}


def completion(body: dict[str, Any], model: str, method: str, index: str | None) -> dict[str, Any]:
    """The chat.completion object for a finished run."""
    return {
        "id": "chatcmpl-" + str(body.get("trace_id") or ""),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": body.get("answer", "")},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": usage_of(body),
        "gaji": gaji_extra(body, method, index),
    }


def chunk(cid: str, model: str, created: int, delta: dict[str, Any] | None = None,
          finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One chat.completion.chunk (`delta` None: the usage chunk, with no choices)."""
    out: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
    out["choices"] = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    out.update(extra)
    return out
