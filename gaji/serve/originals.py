"""The original files of an index's documents as the server hands them out: which file a document name has,
its signed link, its content type and its Content-Disposition.

    found = original_of(indexes, "docs", "안전점검_보고서.pdf")      # gaji.index.originals.Original or None
    url = original_url(secret, "docs", "안전점검_보고서.pdf", client, page=3)   # /original/<token>#page=3
    headers = file_headers(found.name)      # content type; inline for a PDF, else a download, RFC 5987 name

A link names the index and the file (never a path) and is signed (gaji/serve/passage_links.py); the file is
the copy the index keeps, or the file at its source path while it still has the digest that was indexed
(gaji.index.originals). A PDF opens in the browser (`#page=N` opens it at its page); every other format is
downloaded, never rendered by the browser (an HTML original is a download too).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from gaji.serve.passage_links import sign_original

__all__ = ["CONTENT_TYPES", "content_type", "file_headers", "original_of", "original_url"]

CONTENT_TYPES = {
    ".pdf": "application/pdf",
    ".hwp": "application/x-hwp",
    ".hwpx": "application/x-hwpx",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".markdown": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".jsonl": "application/jsonl",
    ".json": "application/json",
}
INLINE = {".pdf"}  # shown by the browser; everything else is a download


def content_type(name: str) -> str:
    return CONTENT_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


def _ascii_fallback(name: str) -> str:
    """The file name for clients without RFC 5987: non-ASCII and quoting characters become '_', extension kept."""
    safe = "".join(c if 32 <= ord(c) < 127 and c not in '"\\;' else "_" for c in name)
    return safe or "file"


def file_headers(name: str) -> dict[str, str]:
    """The headers of an original file: its content type and a Content-Disposition naming it (RFC 6266 with the
    UTF-8 name RFC 5987-encoded, so 안전점검_보고서.pdf keeps its Korean name), inline for a PDF."""
    base = name.rsplit("/", 1)[-1]
    kind = "inline" if Path(base).suffix.lower() in INLINE else "attachment"
    disposition = f"{kind}; filename=\"{_ascii_fallback(base)}\"; filename*=UTF-8''{quote(base, safe='')}"
    return {"Content-Type": content_type(base), "Content-Disposition": disposition,
            "Cache-Control": "private, no-cache"}  # CSP and nosniff: gaji/serve/auth.py SecurityHeadersMiddleware


def original_of(indexes: Any, name: str | None, file: str) -> Any:
    """The original of the file `file` of the named index (gaji.index.originals.Original), or None when the index
    is not on disk, keeps no such file, or its source changed since it was indexed."""
    from gaji.serve.documents import original_in

    return original_in(indexes.gaji(indexes.resolve(name)).index, file)


def original_url(secret: bytes, index: str | None, file: str, client: str | None = None,
                 page: int | None = None) -> str:
    """The (relative) link to a file's original; a PDF's opens at `page`."""
    url = f"/original/{sign_original(secret, index, file, client)}"
    if page is not None and Path(file).suffix.lower() == ".pdf":
        url += f"#page={int(page)}"
    return url
