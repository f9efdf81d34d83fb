"""The one passage view, GET /passage/{token}, and the original files, GET /original/{token}.

A chat citation's link, the page's citations and the documents panel all open /passage/{token}: the token is
signed by this server (gaji/serve/passage_links.py) and names the index and the chunk, so the view opens in a
browser without a key. It shows the document's chunks in order with the cited one marked (and `?hl=TEXT`, the
answer, marked inside it), where it sits (file, page, slide, sheet row, section), and a link to the original
file: a PDF opens at its page (`#page=N`), any other format downloads (gaji/serve/originals.py). Words come from
the message table in the passage's language (`?lang=ko|en` chooses). Everything shown is escaped; the only
script is /static/passage-view.js, which scrolls to the passage (the view works without it).

A link made for a named API key is refused (403) once that key may no longer read the index
(gaji/serve/scopes.py `link_client_may_read`). The old view's address, /passage?index=&id=&hl=, still opens
(gaji/serve/routes/page.py sends it here).
"""
from __future__ import annotations

import asyncio
import html
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse

from gaji.messages import text as msg
from gaji.serve.citations import place_label
from gaji.serve.errors import ApiError
from gaji.serve.originals import file_headers, original_of, original_url
from gaji.serve.passage_links import BadLink, verify_link, verify_original
from gaji.serve.scopes import link_client_may_read
from gaji.text.lang import detect_lang
from gaji.types import Location

router = APIRouter()


def _page(title: str, body: str, lang: str, status: int = 200) -> HTMLResponse:
    doc = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)} · gaji</title>'
           '<meta name="viewport" content="width=device-width, initial-scale=1">'
           '<link rel="stylesheet" href="/static/passage.css">'
           '<script src="/static/passage-view.js" defer></script></head>'
           f'<body><header><a class="logo" href="/">가지</a> <span>{html.escape(msg("passage.title", lang))}</span>'
           f'</header><main>{body}</main></body></html>')
    return HTMLResponse(doc, status_code=status, headers={"Cache-Control": "no-store"})


def _refusal(key: str, lang: str | None, status: int, detail: str = "") -> HTMLResponse:
    """A page saying why nothing is shown, in Korean and English (a link carries no language of its own)."""
    body = "".join(f'<p class=note lang="{lg}">{html.escape(msg(key, lg))}</p>' for lg in ("ko", "en"))
    if detail:
        body += f"<p class=note>{html.escape(detail)}</p>"
    return _page(msg("passage.title", lang or "ko"), body, lang or "ko", status)


def _marked(text: str, needle: str) -> str:
    """`text` escaped, with the first occurrence of `needle` (the answer, at least 2 characters) marked."""
    n = (needle or "").strip()
    at = text.lower().find(n.lower()) if len(n) >= 2 else -1
    if at < 0:
        return html.escape(text)
    return (html.escape(text[:at]) + f'<mark class="hl-ans">{html.escape(text[at:at + len(n)])}</mark>'
            + html.escape(text[at + len(n):]))


def _human(n: int) -> str:
    from gaji.corpus.formats.limits import human_size

    return human_size(n)


def _original_line(p: dict[str, Any], index: str | None, client: str | None, secret: bytes, lang: str) -> str:
    """The link to the original file (a PDF at its page), or why there is none; "" for a passage not from a file."""
    loc = p.get("location") or {}
    if not loc.get("file"):
        return ""
    original = p.get("original")
    if not original:
        return f'<p class=note id="doc-note">{html.escape(msg("passage.noFile", lang))}</p>'
    name = p["file"].rsplit("/", 1)[-1]
    page = loc.get("page")
    url = original_url(secret, index, p["file"], client, page)
    if p["file"].lower().endswith(".pdf"):
        label = msg("passage.openAt", lang, n=page) if page is not None else msg("passage.open", lang, name=name)
        attrs = ""
    else:
        label = msg("passage.download", lang, name=name, size=_human(int(original.get("size") or 0)))
        attrs = " download"
    line = f'<p class=original><a id="original" href="{html.escape(url)}"{attrs}>{html.escape(label)}</a></p>'
    if not original.get("kept"):
        line += f'<p class=note id="doc-note">{html.escape(msg("passage.fromSource", lang))}</p>'
    return line


@router.api_route("/passage/{token}", methods=["GET", "HEAD"], include_in_schema=False)
async def passage_view(token: str, request: Request,
                       hl: str = Query("", max_length=2000, description="text to mark inside the passage (the answer)"),
                       lang: str | None = Query(None, pattern="^(ko|en)$")) -> HTMLResponse:
    secret = request.app.state.link_secret
    try:
        index_name, pid, client = verify_link(secret, token)
    except BadLink as e:
        return _refusal("passage.bad", lang, 404, str(e))
    try:
        allowed = await asyncio.to_thread(link_client_may_read, request.app.state.keys, client, index_name)
    except Exception as e:  # noqa: BLE001 - the key database is down: open nothing unchecked
        return _refusal("passage.denied", lang, 503, f"cannot check the API key now ({type(e).__name__}); retry")
    if not allowed:
        return _refusal("passage.denied", lang, 403)
    indexes = request.app.state.indexes

    def read() -> dict[str, Any] | None:
        try:
            with indexes.lock(index_name).read():
                return indexes.passage(index_name, pid)
        except Exception:  # noqa: BLE001 - the index was removed or cannot be opened since the link was made
            return None

    p = await asyncio.to_thread(read)
    if p is None:
        return _refusal("passage.missing", lang, 404)
    cited = next((c for c in p["chunks"] if c["id"] == p["id"]), None) or {"id": p["id"], "text": "",
                                                                            "location": p.get("location")}
    lang = lang or ("ko" if detect_lang(cited["text"] or p.get("title") or "") == "ko" else "en")
    where = place_label(Location.from_dict(cited.get("location") or p.get("location")), p.get("title") or p["doc_id"],
                        lang)
    parts = ['<section id="passage-card">', f'<h1 id="doc-title">{html.escape(p.get("title") or p["file"])}</h1>',
             f'<p class=place id="doc-where">{html.escape(where)} · '
             f'{html.escape(msg("passage.index", lang, name=index_name or ""))}</p>',
             _original_line(p, index_name, client, secret, lang), '<div class="doc-text" id="doc-text">']
    for c in p["chunks"]:
        if c["id"] == p["id"]:
            parts.append(f'<p class="doc-chunk cited" id="passage" title="{html.escape(msg("passage.cited", lang))}">'
                         f'{_marked(c["text"], hl)}</p>')
        else:
            parts.append(f'<p class="doc-chunk">{html.escape(c["text"])}</p>')
    parts.append("</div></section>")
    return _page(msg("passage.title", lang), "\n".join(parts), lang)


@router.api_route("/original/{token}", methods=["GET", "HEAD"], include_in_schema=False)
async def original_file(token: str, request: Request) -> FileResponse:
    """The original file a signed link names: the index's copy, or the unchanged file where it was read."""
    secret = request.app.state.link_secret
    try:
        index_name, file, client = verify_original(secret, token)
    except BadLink as e:
        raise ApiError(404, str(e)) from None
    try:
        allowed = await asyncio.to_thread(link_client_may_read, request.app.state.keys, client, index_name)
    except Exception as e:  # noqa: BLE001 - the key database is down: hand out nothing unchecked
        raise ApiError(503, f"cannot check the API key now ({type(e).__name__}); retry shortly") from None
    if not allowed:
        raise ApiError(403, f"the API key this link was made for ({client}) may no longer read index {index_name!r}")
    indexes = request.app.state.indexes

    def find() -> Any:
        try:
            with indexes.lock(index_name).read():
                return original_of(indexes, index_name, file)
        except Exception:  # noqa: BLE001 - the index was removed or cannot be opened since the link was made
            return None

    found = await asyncio.to_thread(find)
    if found is None:
        raise ApiError(404, f"index {index_name!r} cannot hand out the original of {file!r}: it keeps no copy, and "
                       "the file where it was read is gone or changed since it was indexed")
    headers = file_headers(found.name)
    return FileResponse(found.path, media_type=headers.pop("Content-Type"), headers=headers)
