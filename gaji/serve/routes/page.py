"""The web page: plain HTML/JS/CSS from static/, no build step, no CDN. It holds no data, so it needs no key.

    GET /             the question page (documents and conversations panels included)
    GET /passage      the old address of a cited passage (?index=NAME&id=CHUNK_ID&hl=TEXT): it opens the one
                      passage view, /passage/{token} (routes/passage.py)
    GET /messages.js  the message table (gaji.message_table) in both languages, for the page's labels
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import FileResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from gaji.messages import catalogue
from gaji.serve.passage_links import sign

STATIC = Path(__file__).resolve().parent.parent / "static"

router = APIRouter()


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


@router.api_route("/passage", methods=["GET", "HEAD"], include_in_schema=False)
async def passage_page(request: Request, index: str = Query("", max_length=200), id: str = Query("", max_length=1000),
                       hl: str = Query("", max_length=2000), lang: str = Query("", pattern="^(ko|en)?$")) -> Response:
    """The old address of a cited passage (recorded answers and history keep it): it opens the one passage view,
    /passage/{token} (gaji/serve/routes/passage.py). A server that asks for no key redirects at once; otherwise
    a small page asks GET /api/indexes/{name}/passage with the key it holds for the view's signed link and goes
    there (so a key that may not read the index opens nothing)."""
    if id and not await asyncio.to_thread(_asks_for_key, request.app):
        url = f"/passage/{sign(request.app.state.link_secret, index or None, id)}"
        query = urlencode({k: v for k, v in (("hl", hl), ("lang", lang)) if v})
        return RedirectResponse(url + (f"?{query}" if query else ""), status_code=307)
    return FileResponse(STATIC / "passage.html", media_type="text/html; charset=utf-8")


def _asks_for_key(app: FastAPI) -> bool:
    keys = getattr(app.state, "keys", None)
    return bool(app.state.config.api_key) or (keys is not None and keys.has_active())


def messages_script() -> str:
    table = {"ko": catalogue("ko"), "en": catalogue("en")}
    return "window.GAJI_MESSAGES = " + json.dumps(table, ensure_ascii=False, sort_keys=True) + ";\n"


_SCRIPT = messages_script()


@router.get("/messages.js", include_in_schema=False)
async def messages() -> Response:
    return Response(_SCRIPT, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"})


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
