"""GET /passage/{token}: the page a citation opens, the cited passage highlighted in its document.

The token is signed by this server (gaji/serve/passage_links.py); the page shows the document's chunks
around the passage, the passage marked, with its place (file, page, slide, sheet row, section). The index
keeps the text it read, not the original files, and the page says so instead of offering a dead link.
Everything shown is escaped; the strict Content-Security-Policy allows no script on it at all.
"""
from __future__ import annotations

import asyncio
import html
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from gaji.serve.citations import place_label
from gaji.serve.passage_links import BadLink, verify
from gaji.text.lang import detect_lang

router = APIRouter()
AROUND = 3  # chunks of the same document shown before and after the passage

_TEXT = {
    "ko": {"title": "인용된 구절", "missing": "이 구절을 색인에서 찾을 수 없습니다. 문서가 삭제되었거나 다시 색인되었을 수 있습니다.",
           "bad": "잘못된 링크입니다", "original": "원본 파일은 색인에 보관되지 않아 여기서 열 수 없습니다. 원본 위치: {file}",
           "index": "색인"},
    "en": {"title": "Cited passage", "missing": "This passage is not in the index any more (the document was removed "
           "or indexed again).", "bad": "Bad link", "original": "The index keeps the text it read, not the original "
           "file, so it cannot be opened from here. The original: {file}", "index": "index"},
}


def _page(title: str, body: str, lang: str, status: int = 200) -> HTMLResponse:
    doc = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)} · gaji</title>'
           '<meta name="viewport" content="width=device-width, initial-scale=1">'
           f'<link rel="stylesheet" href="/static/passage.css"></head><body><main>{body}</main></body></html>')
    return HTMLResponse(doc, status_code=status, headers={"Cache-Control": "no-store"})


def _lookup(index: Any, passage_id: str) -> tuple[Any, list[Any]] | None:
    """(the chunk, the document's chunks around it, in order) or None when the index has no such chunk."""
    get = getattr(index, "get_chunk", None)
    if index is None or get is None:
        return None
    try:
        chunk = get(passage_id)
    except KeyError:
        return None
    row = index.store.row_of(passage_id) if hasattr(index, "store") else None
    if row is None:
        return chunk, [chunk]
    around = []
    for r in range(max(0, row - AROUND), row + AROUND + 1):
        c = index.chunk_at(r) if r != row else chunk
        if c is not None and c.doc_id == chunk.doc_id:
            around.append(c)
    return chunk, around


@router.get("/passage/{token}", include_in_schema=False)
async def passage_page(token: str, request: Request) -> HTMLResponse:
    secret = request.app.state.link_secret
    try:
        index_name, pid = verify(secret, token)
    except BadLink as e:
        return _page(_TEXT["en"]["bad"], f"<h1>{_TEXT['ko']['bad']} · {_TEXT['en']['bad']}</h1>"
                     f"<p>{html.escape(str(e))}</p>", "ko", 404)
    indexes = request.app.state.indexes
    try:
        gaji = indexes.gaji(index_name)
    except Exception:  # noqa: BLE001 - the index was removed since the link was made
        gaji = None

    def read() -> tuple[Any, list[Any]] | None:
        if gaji is None:
            return None
        with indexes.lock(index_name).read():
            return _lookup(gaji.index, pid)

    found = await asyncio.to_thread(read)
    if found is None:
        t = _TEXT["ko"]
        return _page(t["title"], f"<h1>{t['title']}</h1><p class=note>{t['missing']}</p>"
                     f"<p class=note>{_TEXT['en']['missing']}</p>", "ko", 404)
    chunk, around = found
    lang = "ko" if (chunk.lang or detect_lang(chunk.text)) == "ko" else "en"
    t = _TEXT[lang]
    label = place_label(chunk.location, chunk.title or chunk.doc_id, lang)
    parts = [f"<h1>{html.escape(chunk.title or chunk.doc_id)}</h1>",
             f"<p class=place>{html.escape(label)} · {t['index']} {html.escape(index_name or '')}</p>"]
    for c in around:
        text = html.escape(c.text)
        parts.append(f'<mark id="passage">{text}</mark>' if c.id == chunk.id else f"<p>{text}</p>")
    where = chunk.location.file if chunk.location and chunk.location.file else chunk.doc_id
    parts.append(f"<p class=note>{html.escape(t['original'].format(file=where))}</p>")
    return _page(t["title"], "\n".join(parts), lang)
