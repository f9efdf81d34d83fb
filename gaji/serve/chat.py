"""The OpenAI chat-completions wire format, for gaji as an OpenAI-compatible chat server.

Model names: `gaji-<method>` (the server's default index) or `gaji-<method>@<index>`, where <method> is a
method or a recipe (gaji/recipes.py), for example `gaji-toq`, `gaji-tree` or `gaji-oner@hotpot`; `gaji` alone is
the server's default model (the `chat_model` setting, else gaji-<default method>). `/v1/models` lists every
combination the server offers.

A chat request carries the whole conversation: its last message is the question, the user/assistant
turns before it are the history a follow-up is rewritten against (system messages are ignored: the
method writes its own prompts, and so chooses its own generation parameters). gaji's own extras go in
an optional `gaji` object (`extra_body={"gaji": {...}}` with the openai client): `conversation_id`,
method `options`, `retriever`, `lang`, `include_prompts`, and `sources` (false: no sources block in the
text; the `[n]` markers and the annotations stay).

gaji honours what it can and refuses the rest (an OpenAI-shaped 400 naming the field): `tools`,
`tool_choice`, `functions`, `logprobs`, `response_format` other than text and `json_object`, and any field
OpenAI's request does not have. `response_format={"type": "json_object"}` is honoured: the content is
one JSON object. Sampling knobs (temperature, top_p, max_tokens, …) are accepted and not applied (each
method sets its own); the response lists them in `gaji.ignored`.

Every response carries, besides the standard fields, a `gaji` object: the trace id (the whole tree
is GET /api/traces/{trace_id}), the conversation id, the question as answered (a follow-up's
standalone rewrite), the citations and the run's status. `usage` counts every LLM call the method
made, the rewrite included.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from gaji import recipes
from gaji.conversation.turns import Turn
from gaji.messages import LANGS, method_help, method_title
from gaji.messages import text as tr
from gaji.registry import METHODS, is_method_name, method_names, resolve_method
from gaji.serve.citations import Source, answer_of_shown, render, sources_of
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
    sources: bool = Field(True, description="end the text with a sources block (markers and annotations stay)")


# OpenAI request fields that change only how a model samples: accepted, not applied, listed in the reply
SAMPLING = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "presence_penalty", "frequency_penalty",
            "seed", "stop", "logit_bias", "user", "metadata", "store", "service_tier", "reasoning_effort",
            "parallel_tool_calls", "verbosity", "prompt_cache_key", "safety_identifier")
# OpenAI request fields gaji cannot honour: refused when set to anything but their "off" value
UNSUPPORTED = {"tools": "gaji answers from its documents and calls no tools",
               "tool_choice": "gaji answers from its documents and calls no tools",
               "functions": "gaji answers from its documents and calls no functions",
               "function_call": "gaji answers from its documents and calls no functions",
               "logprobs": "gaji returns no token log-probabilities",
               "top_logprobs": "gaji returns no token log-probabilities",
               "audio": "gaji answers in text only", "modalities": "gaji answers in text only",
               "prediction": "gaji does not take predicted outputs",
               "web_search_options": "gaji searches only its own indexes"}
_OFF = (None, False, [], {}, "none", ["text"], 0)


class ChatRequest(BaseModel):
    """OpenAI's chat.completions request; see the module docstring for what is honoured."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: int | None = None
    response_format: dict[str, Any] | None = None
    gaji: GajiChatOptions | None = None

    @property
    def include_usage(self) -> bool:
        return bool((self.stream_options or {}).get("include_usage"))

    @property
    def json_object(self) -> bool:
        return (self.response_format or {}).get("type") == "json_object"

    def check_fields(self) -> list[str]:
        """The sampling fields set (ignored); ApiError 400 naming a field gaji cannot honour."""
        extra = dict(self.model_extra or {})
        for name, why in UNSUPPORTED.items():
            if name in extra and extra[name] not in _OFF:
                raise ApiError(400, f"{name}: not supported: {why} (remove the field)", param=name)
        unknown = [k for k in extra if k not in UNSUPPORTED and k not in SAMPLING]
        if unknown:
            raise ApiError(400, f"{unknown[0]}: unknown field (an OpenAI chat.completions field gaji does not "
                           f"know; gaji's own options go in the `gaji` object)", param=unknown[0])
        kind = (self.response_format or {}).get("type", "text")
        if kind not in ("text", "json_object"):
            raise ApiError(400, f"response_format: type {kind!r} is not supported (use \"text\" or "
                           f"\"json_object\"; gaji's answers have a fixed shape, not a caller's schema)",
                           param="response_format")
        if self.n not in (None, 1):
            raise ApiError(400, "n: gaji gives one answer per request (n must be 1)", param="n")
        return [k for k in extra if k in SAMPLING and extra[k] is not None]


# OpenAI's reasoning_effort -> auto's effort (how readily an unsure one-retrieval answer escalates)
EFFORTS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


def apply_reasoning_effort(req: ChatRequest, method: str, options: dict[str, Any],
                           ignored: list[str]) -> tuple[dict[str, Any], list[str]]:
    """`reasoning_effort` is honoured by auto (its `effort` option, unless the `gaji` options set one) and listed as
    ignored for every other method; a value OpenAI does not define is a 400 naming the field."""
    value = (req.model_extra or {}).get("reasoning_effort")
    if value is None:
        return options, ignored
    if value not in EFFORTS:
        raise ApiError(400, f"reasoning_effort: must be one of {', '.join(EFFORTS)}, not {value!r}",
                       param="reasoning_effort")
    if resolve_method(method)[0] != "auto":
        return options, ignored
    options.setdefault("effort", EFFORTS[value])
    return options, [k for k in ignored if k != "reasoning_effort"]


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
    if said and said[-1][0] == "assistant" and any(r == "user" for r, _ in said):
        # a chat front end's "continue": the last message is the reply to go on with
        raise ApiError(400, f"messages: {tr('error.continue', 'en')} {tr('error.continue', 'ko')}",
                       param="messages")
    if not said or said[-1][0] != "user":
        raise ApiError(400, "messages: the last message must be the user's question (role \"user\")",
                       param="messages")
    question = said[-1][1]
    if not question:
        raise ApiError(400, "messages: the user's question is empty")
    turns: list[Turn] = []
    for role, text in said[:-1]:
        if role == "user":
            turns.append(Turn(question=text))
        elif turns and not turns[-1].answer:
            turns[-1].answer = answer_of_shown(text, REVISED)  # the short answer of what gaji showed
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
    if not method or "@" in method or not is_method_name(method):
        raise ApiError(404, f"unknown model {name!r}: models are gaji-<method> or gaji-<method>@<index> "
                       f"(GET /v1/models lists them); methods and recipes: {', '.join(method_names())}")
    return method, (index or None)


def model_card(name: str, method: str, index: str | None, help_text: str, created: int) -> dict[str, Any]:
    """One /v1/models entry: the id, a name and a description a person can choose by, in Korean and English
    from the message table (`method.<name>`, `method.<name>.help`); a method the table does not name is
    described by its registry help."""
    ko, en = method_title(method, "ko"), method_title(method, "en")
    ko_help, en_help = method_help(method, "ko", help_text), method_help(method, "en", help_text)
    if method in recipes.RECIPES:  # a recipe and the method it runs may share a title: the name says it is one
        ko = f"{ko} · {recipes.get(method).ref}"
    pinned = "@" in name  # gaji-<method>@<index>; the bare name follows the server's default index
    where = {lang: (" · " + tr("model.index", lang, index=index) if pinned else
                    " · " + tr("model.defaultIndex", lang, index=index) if index else "") for lang in LANGS}
    return {"id": name, "object": "model", "created": created, "owned_by": "gaji",
            "name": f"{ko} ({en})" + (where["en"] if pinned else ""),
            "description": f"{ko_help}{where['ko']}\n{en_help}{where['en']}",
            "gaji": {"method": method, "index": index, "name_ko": ko + where["ko"], "name_en": en + where["en"],
                     "description_ko": ko_help, "description_en": en_help}}


def offered_models(indexes: IndexSet, default: str, created: int) -> list[dict[str, Any]]:
    """Every model this server answers with: the default first, then each method and each recipe, alone (the
    default index) and at each index. Those that need an index are left out when there is none."""
    names: list[tuple[str, str, str | None, str]] = []
    offered = [(e.name, e.obj, e.help) for e in METHODS.entries()]
    offered += [(r.name, METHODS.get(r.method), r.help_en) for r in recipes.list()]
    help_of = {name: help_text for name, _, help_text in offered}
    m, ix = parse_model(default, default)
    names.append((default, m, ix or indexes.default, help_of.get(m, "")))
    for name, cls, help_text in offered:
        needs = getattr(cls, "needs_retriever", True)
        if not indexes.names() and needs:
            continue
        names.append((model_name(name), name, indexes.default if needs else None, help_text))
        names.extend((model_name(name, i), name, i, help_text) for i in indexes.names())
    seen: dict[str, tuple[str, str | None, str]] = {}
    for n, method, index, help_text in names:
        seen.setdefault(n, (method, index, help_text))
    return [model_card(n, *v, created) for n, v in seen.items()]


# -- responses -------------------------------------------------------------------------------------
def usage_of(body: dict[str, Any]) -> dict[str, Any]:
    u = body.get("usage") or {}
    p, c = int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0))
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
            "prompt_tokens_details": {"cached_tokens": int(u.get("cached_tokens", 0))}}


def citations_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's cited passages, numbered; `source` is the document's `url` or `source` metadata when
    it has one, else its id; `label` and `url` are what the sources block shows."""
    trace = body.get("trace") or {}
    passages = trace.get("passages") or {}
    shown = {s["n"]: s for s in (body.get("shown") or {}).get("sources", [])}
    out = []
    for n, c in enumerate(body.get("citations") or [], 1):
        meta = (passages.get(c["id"]) or {}).get("metadata") or {}
        source = meta.get("url") or meta.get("source") or c.get("doc_id", "")
        label, url = shown.get(n, {}).get("label", ""), shown.get(n, {}).get("url", "")
        out.append({"n": n, "id": c["id"], "doc_id": c.get("doc_id", ""), "title": c.get("title", ""),
                    "source": str(source), "label": label, "url": url, "location": c.get("location"),
                    "text": c.get("text", "")})
    return out


def gaji_extra(body: dict[str, Any], method: str, index: str | None, ignored: list[str] | None = None
               ) -> dict[str, Any]:
    trace = body.get("trace") or {}
    tid = body.get("trace_id")
    return {"trace_id": tid, "trace_url": f"/api/traces/{tid}" if tid else None,
            "conversation_id": body.get("conversation_id"), "question": trace.get("question", ""),
            "method": method, "index": index, "status": body.get("status", ""),
            "answer": body.get("answer", ""), "explanation": body.get("explanation", ""),
            "citations": citations_of(body), "llm_calls": int((body.get("usage") or {}).get("calls", 0)),
            "ignored": list(ignored or []), "history": body.get("history", "off")}


# a reply in the answer/sources format of a prompt, whose labels a reader should not see
_LABELLED = re.compile(r"^\s*(?:answer|final answer|sources?|답|정답|출처|근거)\s*[:：]", re.I | re.M)
_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?(.*?)\n?```\s*$", re.S)


def json_content(body: dict[str, Any], draft: str, sources: list[Source]) -> str:
    """The content for `response_format={"type": "json_object"}`: the object the method wrote (a fenced
    block unwrapped), else {"answer", "explanation", "sources"}."""
    for text in (draft, body.get("answer", "")):
        m = _FENCE.match(text or "")
        try:
            obj = json.loads(m.group(1) if m else text or "")
        except ValueError:
            continue
        if isinstance(obj, dict):
            return json.dumps(obj, ensure_ascii=False)
    return json.dumps({"answer": body.get("answer", ""), "explanation": body.get("explanation", ""),
                       "sources": [{"n": s.n, "label": s.label, "url": s.url} for s in sources]},
                      ensure_ascii=False)


def shaper(link: Callable[[str], str] | None, sources_block: bool = True, json_object: bool = False
           ) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    """What a chat client is shown, from the answer body and its last streamed draft: `{content,
    annotations}` (serve/citations.py), made once on the worker thread for both /v1 paths and the history."""
    def shape(body: dict[str, Any], draft: str) -> dict[str, Any]:
        if _LABELLED.search(draft):  # "Answer: …\nSources: [1]": the format, not text to show (a stream revises it)
            draft = ""
        lang = (body.get("trace") or {}).get("lang") or ""
        srcs = sources_of(body.get("citations") or [], lang, link)
        listed = [{"n": s.n, "label": s.label, "url": s.url} for s in srcs]
        if json_object:
            return {"content": json_content(body, draft, srcs), "annotations": [], "sources": listed}
        r = render(draft, body.get("answer", ""), body.get("explanation", ""), srcs, lang, sources_block)
        return {"content": r.content, "annotations": r.annotations, "sources": listed}
    return shape


def completion(body: dict[str, Any], model: str, method: str, index: str | None,
               ignored: list[str] | None = None) -> dict[str, Any]:
    """The chat.completion object for a finished run (`body["shown"]`: what `shaper` made)."""
    shown = body.get("shown") or {"content": body.get("answer", ""), "annotations": []}
    return {
        "id": "chatcmpl-" + str(body.get("trace_id") or ""),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": shown["content"], "refusal": None,
                                             "annotations": shown["annotations"]},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": usage_of(body),
        "gaji": gaji_extra(body, method, index, ignored),
    }


def chunk(cid: str, model: str, created: int, delta: dict[str, Any] | None = None,
          finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One chat.completion.chunk (`delta` None: the usage chunk, with no choices)."""
    out: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
    out["choices"] = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    out.update(extra)
    return out
