"""The indexes by name: list them, read one's status, add documents to one (JSONL upload)."""
from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from gaji.errors import GajiError
from gaji.serve import schemas as S
from gaji.serve.errors import ERRORS, ApiError, error_response, error_status
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
    try:
        result = await asyncio.to_thread(indexes.add_documents, name, docs)
    except GajiError as e:
        raise ApiError(error_status(e), indexes.scrub(name, str(e))) from None
    return {"index": name, "added": len(docs), "chunks": result,
            "status": await asyncio.to_thread(indexes.status, name)}
