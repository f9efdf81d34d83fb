"""The indexes by name: list them, read one's status, add documents to one (JSONL upload), remove some."""
from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query, Request

from gaji.errors import GajiError
from gaji.index.lock import IndexBusy
from gaji.index.writer import UnknownDocuments
from gaji.serve import schemas as S
from gaji.serve.errors import ERRORS, ApiError, error_response, error_status, internal_error
from gaji.serve.indexes import UploadInvalid, parse_documents_jsonl
from gaji.serve.routes import Indexes

router = APIRouter(tags=["indexes"])


@router.get("/api/indexes", response_model=S.IndexesResponse, responses=ERRORS)
async def list_indexes(indexes: Indexes) -> dict:
    return {"indexes": [{"name": n, "default": n == indexes.default, "status": "ok"} for n in indexes.names()]}


@router.get("/api/indexes/{name}", response_model=S.IndexStatus, responses=ERRORS)
async def index_status(name: str, indexes: Indexes) -> dict:
    indexes.resolve(name)
    return await asyncio.to_thread(indexes.status, name)


@router.post("/api/indexes/{name}/documents", response_model=S.UploadResponse,
             responses={**ERRORS, 413: {"model": S.ErrorResponse}})
async def upload(name: str, request: Request, indexes: Indexes) -> Any:
    """JSONL body, one `{"id", "text", "title"?, "metadata"?}` per line. All lines are checked
    first; any bad line rejects the upload (400 with `line` and `errors`)."""
    indexes.resolve(name)
    data = b"".join([chunk async for chunk in request.stream()])
    try:
        docs = parse_documents_jsonl(data)
    except UploadInvalid as e:
        return error_response(400, str(e), line=e.line, field=e.field, errors=e.errors)
    result = await _write(indexes, name, indexes.add_documents, docs)
    return {"index": name, "added": len(docs), "chunks": result,
            "status": await asyncio.to_thread(indexes.status, name)}


MAX_REMOVE_IDS = 1000


@router.delete("/api/indexes/{name}/documents", response_model=S.RemoveResponse,
               responses={**ERRORS, 503: {"model": S.ErrorResponse}})
async def remove(name: str, indexes: Indexes,
                 id: list[str] = Query(..., description="a document id to remove (repeat for several)")) -> Any:
    """Take documents out of the index: their chunks, BM25 entries and vectors. All ids must be in the
    index (404 naming the ones that are not: nothing is removed then)."""
    indexes.resolve(name)
    if len(id) > MAX_REMOVE_IDS:
        raise ApiError(400, f"at most {MAX_REMOVE_IDS} ids per request, got {len(id)}")
    result = await _write(indexes, name, indexes.remove_documents, list(id))
    return {"index": name, "removed": result.get("removed", []), "chunks": result.get("chunks", {}),
            "generation": result.get("generation", 0), "status": await asyncio.to_thread(indexes.status, name)}


async def _write(indexes: Indexes, name: str, fn: Any, arg: Any) -> dict:
    """Run a write on an index in a worker thread; its errors as HTTP errors (503: another writer holds it)."""
    try:
        return await asyncio.to_thread(fn, name, arg)
    except IndexBusy as e:
        raise ApiError(503, indexes.scrub(name, str(e)), headers={"Retry-After": "5"}) from None
    except UnknownDocuments as e:
        raise ApiError(404, indexes.scrub(name, str(e)), ids=e.ids) from None
    except GajiError as e:
        status = error_status(e)
        if status == 500:  # the index itself failed: its message may name files and libraries
            body = internal_error(e)
            raise ApiError(500, body["error"], request_id=body["request_id"]) from None
        raise ApiError(status, indexes.scrub(name, str(e))) from None
