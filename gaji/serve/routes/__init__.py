"""The HTTP routes, one router per concern; `create_app` (gaji/serve/app.py) includes them.

    page.py     GET /  (the web page), /passage?index=&id= (the old passage address: it opens passage.py's view),
                /messages.js and /static
    info.py     GET /api/health, /api/methods, /api/metrics
    indexes.py  GET /api/indexes, /api/indexes/{name};  GET, POST, DELETE /api/indexes/{name}/documents;
                POST /api/indexes/{name}/files, /api/indexes/{name}/sync;  GET /api/indexes/{name}/passage
    ask.py      POST /api/ask, /api/ask/stream (server-sent events)
    history.py  GET /api/traces/{id}, /api/conversations, /api/conversations/{id};  POST /api/feedback
    chat.py     POST /v1/chat/completions, GET /v1/models (the OpenAI-compatible API)
    passage.py  GET /passage/{token}  (the one passage view a citation, the page and the documents panel open),
                GET /original/{token} (a document's original file)

Routes reach the server's parts through the dependencies below (set on `app.state` by `create_app`);
an endpoint that answers questions calls the one `AskService`.
"""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gaji.history.keys import Scopes
from gaji.serve.indexes import IndexSet
from gaji.serve.service import AskService


def ask_service(request: Request) -> AskService:
    return request.app.state.ask


def index_set(request: Request) -> IndexSet:
    return request.app.state.indexes


def client_name(request: Request) -> str | None:
    """The API key's name (gaji/serve/auth.py); None when the server asks for no key."""
    return getattr(request.state, "client", None)


def access_of(request: Request) -> Scopes | None:
    """The key's scopes (gaji/serve/scopes.py); None: full access (no key needed, or an unscoped key)."""
    return getattr(request.state, "access", None)


Service = Annotated[AskService, Depends(ask_service)]
Access = Annotated[Scopes | None, Depends(access_of)]
Indexes = Annotated[IndexSet, Depends(index_set)]
Client = Annotated[str | None, Depends(client_name)]
