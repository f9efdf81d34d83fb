"""The web page: plain HTML/JS/CSS from static/, no build step, no CDN. It holds no data, so it needs no key.

    GET /             the question page (documents and conversations panels included)
    GET /passage      a cited passage in its document (?index=NAME&id=CHUNK_ID&hl=TEXT to highlight)
    GET /messages.js  the message table (gaji.message_table) in both languages, for the page's labels
"""
from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from gaji.messages import catalogue

STATIC = Path(__file__).resolve().parent.parent / "static"

router = APIRouter()


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


@router.api_route("/passage", methods=["GET", "HEAD"], include_in_schema=False)
async def passage_page() -> FileResponse:
    """The page reads its query itself and asks GET /api/indexes/{name}/passage (with the key the page holds)."""
    return FileResponse(STATIC / "passage.html", media_type="text/html; charset=utf-8")


def messages_script() -> str:
    table = {"ko": catalogue("ko"), "en": catalogue("en")}
    return "window.GAJI_MESSAGES = " + json.dumps(table, ensure_ascii=False, sort_keys=True) + ";\n"


_SCRIPT = messages_script()


@router.get("/messages.js", include_in_schema=False)
async def messages() -> Response:
    return Response(_SCRIPT, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"})


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
