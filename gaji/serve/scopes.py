"""Scoped keys on every route: which scope each route needs, and the check.

A named key may be limited to reading and/or writing some indexes (gaji/history/keys.py `Scopes`);
`request.state.access` holds the scopes of the request's key (None: full access, which is also every
request when authentication is off). Each API route has a `Rule` here:

    kind   "read" (ask, chat, search, status, its history) | "write" (upload, delete, sync) | None (any key)
    index  where the index is named: "path" (the {name} path parameter), "body" (the request names it:
           the route's service checks it once it knows it, `require`), or "none"

`enforce` runs before every route (an app-wide dependency). A route without a rule refuses scoped keys
(403): a new route is closed to them until it gets its rule, never open by mistake. Refusals name the
missing scope ("read:docs").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request

from gaji.history.keys import Scopes
from gaji.serve.auth import DEFAULT_CLIENT
from gaji.serve.errors import ApiError


@dataclass(frozen=True)
class Rule:
    kind: str | None  # read | write | None: any valid key
    index: str = "none"  # path | body | none


RULES: dict[tuple[str, str], Rule] = {
    ("GET", "/api/health"): Rule(None),
    ("GET", "/api/methods"): Rule(None),
    ("GET", "/api/metrics"): Rule(None),
    ("GET", "/api/indexes"): Rule(None),  # lists only the indexes the key may read
    ("GET", "/api/indexes/{name}"): Rule("read", "path"),
    ("GET", "/api/indexes/{name}/documents"): Rule("read", "path"),
    ("GET", "/api/indexes/{name}/passage"): Rule("read", "path"),
    ("POST", "/api/indexes/{name}/sync"): Rule("write", "path"),
    ("POST", "/api/indexes/{name}/documents"): Rule("write", "path"),
    ("POST", "/api/indexes/{name}/files"): Rule("write", "path"),
    ("DELETE", "/api/indexes/{name}/documents"): Rule("write", "path"),
    ("POST", "/api/ask"): Rule("read", "body"),
    ("POST", "/api/ask/stream"): Rule("read", "body"),
    # a key's own traces and conversations (service.may_see): any key that may read some index
    ("GET", "/api/traces/{trace_id}"): Rule("read"),
    ("GET", "/api/conversations"): Rule("read"),
    ("GET", "/api/conversations/{conversation_id}"): Rule("read"),
    ("POST", "/api/feedback"): Rule("read"),
    ("GET", "/v1/models"): Rule(None),  # lists only the models over indexes the key may read
    ("GET", "/v1/models/{model_id}"): Rule(None),
    ("POST", "/v1/chat/completions"): Rule("read", "body"),
}


def require(access: Scopes | None, kind: str, index: str | None) -> None:
    """403 unless `access` allows `kind` on `index` (None: on some index)."""
    if access is None or access.allows(kind, index):
        return
    what = f"{kind}:{index}" if index is not None else f"{kind} on some index"
    raise ApiError(403, f"this API key lacks the scope {what} (its scopes: {access.describe()}); "
                   f"gaji keys scope NAME --{kind} {index or 'INDEX'} grants it")


def may_read(access: Scopes | None, index: str | None) -> bool:
    return access is None or access.allows("read", index)


def link_client_may_read(keys: Any, client: str | None, index: str | None) -> bool:
    """Whether the API key a signed link was made for (gaji/serve/passage_links.py) may still read `index`: a
    link made with no key or with the server's own key always may; a named key only while it is active and its
    scopes allow it (`keys`: the server's gaji.history.keys.KeyStore; None: no named key can be checked)."""
    if client is None or client == DEFAULT_CLIENT:
        return True
    if keys is None:
        return False
    return any(k.active and k.name == client and k.scopes.allows("read", index) for k in keys.list())


async def enforce(request: Request) -> None:
    """The app-wide dependency: the route's rule against the key's scopes."""
    access: Scopes | None = getattr(request.state, "access", None)
    if access is None:
        return
    route = request.scope.get("route")
    path = getattr(route, "path", request.url.path)
    rule = RULES.get((request.method, path)) or (RULES.get(("GET", path)) if request.method == "HEAD" else None)
    if rule is None:
        raise ApiError(403, f"{request.method} {path} is not open to scoped API keys (it has no scope rule)")
    if rule.kind is None:
        return
    index = request.path_params.get("name") if rule.index == "path" else None
    require(access, rule.kind, index)
