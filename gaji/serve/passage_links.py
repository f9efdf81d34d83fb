"""Signed links to one passage of one index, `/passage/<token>` (the page a citation opens), and to the
original file of one of its documents, `/original/<token>` (gaji/serve/routes/original.py).

A chat client follows a citation's link in a browser, which has no API key; the link itself is the
permission. The token names the index and the chunk id (never a path), and an HMAC over both with the
server's secret: a changed or invented token is refused, so nobody reaches a passage no answer cited.
The secret is derived from the API key when there is one (links stay valid across restarts), else it is
random per process (links end with the server, which was open to everyone anyway).

A link made for a named API key also names it (client): the server checks that key's scopes again when the
link is opened, so a key that loses read on the index (or is revoked) loses its links too. An original's
token is signed in a context of its own: a passage token never opens a file.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets


class BadLink(ValueError):
    """A token that is malformed or not signed by this server."""


def secret_for(api_key: str | None) -> bytes:
    if api_key:
        return hashlib.sha256(b"gaji passage links\n" + api_key.encode("utf-8")).digest()
    return secrets.token_bytes(32)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(secret: bytes, index: str | None, passage_id: str, client: str | None = None) -> str:
    """A passage page's token; `client`: the API key it was made for (checked again when the page is opened)."""
    fields = [index or "", passage_id] + ([client] if client else [])
    payload = _b64(json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    mac = _b64(hmac.new(secret, payload.encode("ascii"), hashlib.sha256).digest()[:18])
    return f"{payload}.{mac}"


def verify_link(secret: bytes, token: str) -> tuple[str | None, str, str | None]:
    """(index or None, passage id, client or None) of a token this server signed; BadLink otherwise."""
    payload, dot, mac = token.partition(".")
    if not dot or len(token) > 2000:
        raise BadLink("not a passage link")
    want = _b64(hmac.new(secret, payload.encode("ascii", "replace"), hashlib.sha256).digest()[:18])
    if not hmac.compare_digest(want, mac):
        raise BadLink("this link was not made by this server (or the server's key changed)")
    try:
        index, pid, *rest = json.loads(_unb64(payload).decode("utf-8"))
    except (ValueError, TypeError) as e:
        raise BadLink(f"not a passage link ({e})") from None
    return (index or None), str(pid), (str(rest[0]) if rest and rest[0] else None)


def verify(secret: bytes, token: str) -> tuple[str | None, str]:
    """(index or None, passage id) of a token this server signed; BadLink otherwise."""
    index, pid, _ = verify_link(secret, token)
    return index, pid

_ORIGINAL = b"gaji original file\n"


def sign_original(secret: bytes, index: str | None, file: str, client: str | None = None) -> str:
    """A token for the original of the file `file` of `index`, made for the API key named `client` (None: a
    server without keys, or the full-access key)."""
    payload = _b64(json.dumps([index or "", file, client or ""], ensure_ascii=False, separators=(",", ":"))
                   .encode("utf-8"))
    mac = _b64(hmac.new(secret, _ORIGINAL + payload.encode("ascii"), hashlib.sha256).digest()[:18])
    return f"{payload}.{mac}"


def verify_original(secret: bytes, token: str) -> tuple[str | None, str, str | None]:
    """(index or None, file, client or None) of an original's token this server signed; BadLink otherwise."""
    payload, dot, mac = token.partition(".")
    if not dot or len(token) > 2000:
        raise BadLink("not a link to a file")
    want = _b64(hmac.new(secret, _ORIGINAL + payload.encode("ascii", "replace"), hashlib.sha256).digest()[:18])
    if not hmac.compare_digest(want, mac):
        raise BadLink("this link was not made by this server (or the server's key changed)")
    try:
        index, file, client = json.loads(_unb64(payload).decode("utf-8"))
    except (ValueError, TypeError) as e:
        raise BadLink(f"not a link to a file ({e})") from None
    return (index or None), str(file), (client or None)
