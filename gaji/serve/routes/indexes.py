"""The indexes by name: list them, read one's status (with the progress of a build, add or fill working on
it, and whether its vectors are complete), add documents to one (JSONL upload) or files (PDF, HWP, DOCX …,
gaji.serve.uploads), remove some."""
from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from fastapi import APIRouter, Query, Request

from gaji.errors import GajiError
from gaji.index.lock import IndexBusy
from gaji.index.writer import UnknownDocuments
from gaji.serve import schemas
from gaji.serve.errors import ERRORS, ApiError, error_response, error_status, internal_error
from gaji.serve.indexes import IndexSet, UploadInvalid, parse_documents_jsonl
from gaji.serve.originals import original_url
from gaji.serve.passage_links import sign
from gaji.serve.routes import Access, Client, Indexes
from gaji.serve.scopes import may_read
from gaji.serve.uploads import FilesTooLarge, count_chunks, decode_files, read_files

router = APIRouter(tags=["indexes"])


@router.get("/api/indexes", response_model=schemas.IndexesResponse, responses=ERRORS)
async def list_indexes(indexes: Indexes, access: Access) -> dict:
    """The indexes (for a scoped key: those it may read)."""
    return {"indexes": [{"name": n, "default": n == indexes.default, "status": "ok"} for n in indexes.names()
                        if may_read(access, n)]}


@router.get("/api/indexes/{name}", response_model=schemas.IndexStatus, responses=ERRORS)
async def index_status(name: str, indexes: Indexes) -> dict:
    indexes.resolve(name)
    status = await asyncio.to_thread(indexes.status, name)
    return {**status, **await asyncio.to_thread(_work_status, indexes, name)}


PROGRESS_KEYS = ("action", "stage", "done", "total", "unit", "rate", "eta_s", "running", "age_s", "started",
                 "stopped_in", "error")


def _work_status(indexes: IndexSet, name: str) -> dict[str, Any]:
    """`progress`: what the job on the index is doing (progress.json, written by the builder; no pid or
    host); `vectors`: complete, none or pending (BM25 answers until they are complete)."""
    from gaji.index.pending import vectors_status
    from gaji.index.progress_file import read_progress

    g = indexes.gaji(name)
    out: dict[str, Any] = {"progress": None, "vectors": None}
    if not g.settings.index:
        return out
    prog = read_progress(g.settings.index)
    if prog is not None:
        out["progress"] = {k: prog.get(k) for k in PROGRESS_KEYS if k in prog}
        if prog.get("error"):
            out["progress"]["error"] = indexes.scrub(name, str(prog["error"]))
    try:
        index = g.index
        out["vectors"] = vectors_status(index) if index is not None and hasattr(index, "vectors_pending") else None
    except Exception:  # noqa: BLE001 - an index that does not open is reported by its status
        pass
    return out


@router.post("/api/indexes/{name}/documents", response_model=schemas.UploadResponse,
             responses={**ERRORS, 413: {"model": schemas.ErrorResponse}})
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


def request_lang(request: Request) -> str:
    """"ko" when the request's first Accept-Language is Korean (the page sends its own language), else "en"."""
    first = request.headers.get("accept-language", "").split(",")[0].strip().lower()
    return "ko" if first.startswith("ko") else "en"


@router.post("/api/indexes/{name}/files", response_model=schemas.FilesResponse,
             responses={**ERRORS, 413: {"model": schemas.ErrorResponse}, 422: {"model": schemas.ErrorResponse},
                        503: {"model": schemas.ErrorResponse}})
async def upload_files(name: str, body: schemas.FilesRequest, request: Request, indexes: Indexes) -> Any:
    """Document files in base64 (`{"files": [{"name": "보고서.hwp", "content_base64": "…"}]}`), read by the
    readers `gaji index build` uses; a file sent again under its name replaces what it had. Every file gets
    a result: added (documents, chunks) or refused (reason). 200 when at least one file was added, 422
    (with the results) when none could be read, 413 when the files together are over the upload limit."""
    indexes.resolve(name)
    try:
        files = await asyncio.to_thread(decode_files, [(f.name, f.content_base64) for f in body.files],
                                        request.app.state.config.max_upload_bytes)
    except FilesTooLarge as e:
        raise ApiError(413, str(e)) from None
    docs, results = await asyncio.to_thread(read_files, files, request.app.state.config.read_limits,
                                            request_lang(request))
    await asyncio.to_thread(_note_uploads, indexes, name, results)
    if not docs:
        raise ApiError(422, "no file could be read: " + "; ".join(f"{r.name}: {r.reason}" for r in results[:5]),
                       files=[r.to_dict() for r in results])
    await asyncio.to_thread(lambda: count_chunks(docs, results, indexes.chunking(name)))
    added = [r.name for r in results if r.status == "added"]
    blobs = {hashlib.sha256(f.data).hexdigest(): f.data for f in files if f.data is not None and f.name in added}
    result = await _write(indexes, name, lambda n, d: indexes.add_files(n, d, added, blobs), docs)
    return {"index": name, "added": len(added), "refused": len(results) - len(added),
            "files": [r.to_dict() for r in results], "chunks": result,
            "status": await asyncio.to_thread(indexes.status, name)}


MAX_REMOVE_IDS = 1000


@router.get("/api/indexes/{name}/documents", response_model=schemas.DocumentsResponse, responses=ERRORS)
async def list_documents(name: str, indexes: Indexes, request: Request, client: Client,
                         offset: int = Query(0, ge=0, description="rows to skip"),
                         limit: int = Query(200, ge=1, le=1000, description="rows at most")) -> dict:
    """The index's files, one row each (a PDF's pages, a workbook's sheets together): format, pages / slides /
    rows, chunks, when indexed, and the files that were refused with the reason (`reason_msg`: the message
    table's id, for a page that shows it in Korean). Refused files come first. A row links the passage view of
    its first chunk (`view_url`) and its original file (`original_url`) when the index can hand it out."""
    indexes.resolve(name)
    rows, total = await asyncio.to_thread(indexes.documents, name, offset, limit)
    secret = request.app.state.link_secret
    out = []
    for r in rows:
        d = r.to_dict()
        if r.first_chunk:
            d["view_url"] = f"/passage/{sign(secret, name, r.first_chunk, client)}"
        if r.original:
            d["original_url"] = original_url(secret, name, r.name, client)
        out.append(d)
    return {"index": name, "total": total, "offset": offset, "documents": out}


@router.get("/api/indexes/{name}/passage", responses=ERRORS)
async def passage(name: str, indexes: Indexes, request: Request, client: Client,
                  id: str = Query(..., min_length=1, max_length=1000, description="a chunk id (a citation's id)")) -> dict:
    """A cited passage in its document: the chunk and its document's other chunks in order, with where it sits in
    the file (page, slide, sheet rows, section), `url`: the passage view (a signed link, /passage/…, that opens
    without a key) and `original_url`: the original file (a PDF at the passage's page) when the index can hand it
    out."""
    indexes.resolve(name)
    out = await asyncio.to_thread(indexes.passage, name, id)
    if out is None:
        raise ApiError(404, f"no passage {id!r} in index {name!r}")
    secret = request.app.state.link_secret
    links = {"url": f"/passage/{sign(secret, name, id, client)}"}
    if out.get("original"):
        links["original_url"] = original_url(secret, name, out["file"], client, (out.get("location") or {}).get("page"))
    return {"index": name, **out, **links}


@router.post("/api/indexes/{name}/sync", response_model=schemas.SyncResponse,
             responses={**ERRORS, 503: {"model": schemas.ErrorResponse}})
async def sync_file(name: str, body: schemas.SyncRequest, indexes: Indexes) -> Any:
    """Read a file of the index again from where it was read (`{"file": "보고서.hwp"}`, a name from GET
    …/documents): the folder it came from is synced, so its new, changed and gone files follow. 400 when the
    index does not know where the file came from (an uploaded file: send it again instead)."""
    indexes.resolve(name)
    result = await _write(indexes, name, lambda n, f: indexes.sync_file(n, f), body.file)
    return {"index": name, "file": body.file, **{k: result.get(k, []) for k in ("added", "changed", "removed", "kept")},
            "unchanged": result.get("unchanged", 0), "status": await asyncio.to_thread(indexes.status, name)}


@router.delete("/api/indexes/{name}/documents", response_model=schemas.RemoveResponse,
               responses={**ERRORS, 503: {"model": schemas.ErrorResponse}})
async def remove(name: str, indexes: Indexes,
                 id: list[str] = Query(..., description="a document id to remove (repeat for several)")) -> Any:
    """Take documents out of the index: their chunks, BM25 entries and vectors. All ids must be in the
    index (404 naming the ones that are not: nothing is removed then)."""
    indexes.resolve(name)
    if len(id) > MAX_REMOVE_IDS:
        raise ApiError(400, f"at most {MAX_REMOVE_IDS} ids per request, got {len(id)}")
    result = await _write(indexes, name, indexes.remove_documents, list(id))
    where = indexes.index_dir(name)
    if where is not None:
        from gaji.index.refusals import forget_refusals
        from gaji.serve.documents import file_of

        await asyncio.to_thread(forget_refusals, where, {file_of(i) for i in result.get("removed", [])})
    return {"index": name, "removed": result.get("removed", []), "chunks": result.get("chunks", {}),
            "generation": result.get("generation", 0), "status": await asyncio.to_thread(indexes.status, name)}


def _note_uploads(indexes: IndexSet, name: str, results: list) -> None:
    """Keep the refused uploads beside the index (the documents list shows them and why); a file that is
    read now is refused no more."""
    from gaji.index.refusals import Refusal, note_refusals

    where = indexes.index_dir(name)
    if where is None:
        return
    note_refusals(where, [Refusal(r.name, r.reason, r.reason_msg) for r in results if r.status == "refused"],
                  read_ok=[r.name for r in results if r.status == "added"])


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
        extra = {"msg": e.msg.to_dict()} if e.msg is not None else {}  # for a page that shows it in Korean
        raise ApiError(status, indexes.scrub(name, str(e)), **extra) from None
