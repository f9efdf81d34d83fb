"""Document files sent to the server (PDF, HWP, HWPX, DOCX, PPTX, XLSX, HTML, .txt/.md), read into Documents.

    files = decode_files(request_files, max_bytes)     # names checked, base64 decoded; FilesTooLarge
    docs, results = read_files(files, limits, "ko")    # one FileResult per file: read, or refused and why

The body is JSON (``{"files": [{"name", "content_base64"}]}``), not multipart: the request guard
(gaji/serve/guard.py) lets only JSON writes through, which a page on another site cannot send without a
CORS preflight. Each file is written under its own name into a private temporary folder and read there
by the same readers `gaji index build` and `sync` use (gaji.corpus.readers, gaji.corpus.formats), in a worker
process under the server's read limits (gaji.corpus.formats.worker: a file built to exhaust memory or time is
stopped there and refused with the limit it hit, in the request's language), so its
documents get the ids a sync of that single file would give them: the file name, with a unit suffix
where the file makes several (``보고서.pdf#page3``). Re-sending a name replaces what that file had.

File names come from the client: a name with a folder in it ('/', '\\'), a control character, a
leading dot or too many bytes for a file system is refused, never cleaned up into another name.
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import ChunkingConfig, chunk_document
from gaji.corpus.formats import ReadLimits, format_for
from gaji.corpus.readers import ReadReport, read_documents
from gaji.errors import InputError
from gaji.messages import Msg
from gaji.serve.indexes import scrub_text
from gaji.serve.limits import human_bytes
from gaji.text.normalize import normalize_text
from gaji.types import Document

__all__ = ["UploadedFile", "FileResult", "FilesTooLarge", "decode_files", "read_files", "count_chunks",
           "check_name", "MAX_NAME_BYTES"]

MAX_NAME_BYTES = 200  # a file system takes 255 bytes per name; Korean takes 3 bytes a character


class FilesTooLarge(InputError):
    """The files of one request are larger, decoded, than the server takes (HTTP 413)."""


@dataclass
class UploadedFile:
    """One file of a request: its name as sent, the name it is read under, its bytes (None when refused)."""

    given: str
    name: str = ""
    data: bytes | None = None
    refused: str = ""


@dataclass
class FileResult:
    """What became of one file: added (its documents and chunks) or refused (why)."""

    name: str
    status: str = "refused"  # "added" | "refused"
    reason: str = ""
    format: str = ""
    bytes: int = 0
    documents: list[str] = field(default_factory=list)
    chunks: int = 0
    notices: list[str] = field(default_factory=list)
    reason_msg: dict[str, Any] | None = None  # the reason as a message of the table (gaji.messages), when it is one

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def check_name(given: str) -> tuple[str, str]:
    """(name to read the file under, "") or ("", why the name is refused)."""
    name = normalize_text(given).strip()
    if not name:
        return "", "the file has no name"
    if "/" in name or "\\" in name:
        return "", "the file name holds a folder ('/' or '\\'); send the file's own name"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in name):
        return "", "the file name holds a control character"
    if name.startswith("."):
        return "", "the file name starts with '.'"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return "", f"the file name is longer than {MAX_NAME_BYTES} bytes"
    if format_for(name) is None:
        return "", str(not_document(name))
    return name, ""


def not_document(name: str) -> Msg:
    return Msg("read.not_document", {"ext": Path(name).suffix.lower() or "(no extension)"})


def _decoded_size(text: str) -> int:
    """The bytes a base64 text decodes to (without decoding it)."""
    n = len(text.rstrip("="))
    return n * 3 // 4


def decode_files(items: list[tuple[str, str]], max_bytes: int) -> list[UploadedFile]:
    """(name, base64 content) pairs -> files with their bytes, or each with the reason it is refused.

    FilesTooLarge when the decoded files together exceed `max_bytes` (checked before decoding)."""
    total = sum(_decoded_size(b64) for _, b64 in items)
    if total > max_bytes:
        raise FilesTooLarge(f"the files are {human_bytes(total)} together, more than this server takes in one "
                            f"request ({human_bytes(max_bytes)}); send fewer or smaller files "
                            "(the server's --max-upload-mb sets the limit)")
    out: list[UploadedFile] = []
    seen: set[str] = set()
    for given, b64 in items:
        f = UploadedFile(given=given)
        out.append(f)
        f.name, f.refused = check_name(given)
        if f.refused:
            continue
        if f.name in seen:
            f.refused = "the same file name twice in one upload"
            continue
        seen.add(f.name)
        try:
            f.data = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            f.refused = "the content is not valid base64"
    return out


def read_files(files: list[UploadedFile], limits: ReadLimits | None = None,
               lang: str = "en") -> tuple[list[Document], list[FileResult]]:
    """The Documents of every readable file, and one result per file (refused ones with their reason; a
    limit's refusal in `lang`, "en" or "ko").

    Each file is written into a private temporary folder that is gone when this returns, and read in a
    worker process under `limits` (default: the settings' read limits)."""
    docs: list[Document] = []
    results: list[FileResult] = []
    with tempfile.TemporaryDirectory(prefix="gaji-upload-") as tmp:
        for f in files:
            res = FileResult(name=f.name or f.given, reason=f.refused, bytes=len(f.data or b""))
            if f.refused and not f.name and format_for(f.given) is None and f.refused == str(not_document(f.given)):
                res.reason_msg = not_document(f.given).to_dict()
            results.append(res)
            if f.refused or f.data is None:
                continue
            fmt = format_for(f.name)
            res.format = fmt.label if fmt is not None else ""
            got = _read_one(Path(tmp), f, res, limits, lang)
            for d in got:
                docs.append(dataclasses.replace(d, source=f"upload:{f.name}"))
            res.documents = [d.id for d in got]
            res.status = "added" if got else "refused"
    return docs, results


def _read_one(tmp: Path, f: UploadedFile, res: FileResult, limits: ReadLimits | None, lang: str) -> list[Document]:
    """Write one file into `tmp` and read it like a sync of that file would; fill `res` with what was said."""
    path = tmp / f.name
    assert path.parent == tmp  # check_name let no folder through
    try:
        with open(path, "xb") as out:
            out.write(f.data or b"")
    except OSError as e:
        res.reason = f"cannot be stored for reading ({e.strerror or type(e).__name__})"
        return []

    def clean(message: str) -> str:  # the temporary folder is nobody's business
        return scrub_text(message.replace(str(path), f.name).replace(tmp.as_posix() + "/", ""), None)

    report = ReadReport()
    try:
        got, report = read_documents([path], skip_bad=True, allow_empty=True, limits=limits, isolate=True)
    except InputError as e:
        res.reason = clean(str(e)).removeprefix(f.name + ": ")
        return []
    finally:
        path.unlink(missing_ok=True)
    res.notices = [clean(n) for n in report.notices]
    if not got:
        refusal = report.refusals.get(str(path))
        reasons = [clean(s.reason) for s in report.skipped]
        res.reason = clean(refusal.text(lang)) if refusal is not None else "; ".join(reasons) or "no text to index"
        msgs = [s.msg for s in report.skipped if s.msg is not None]
        if refusal is None and len(report.skipped) == 1 and msgs:
            res.reason_msg = _clean_msg(msgs[0], clean)
    return got


def _clean_msg(msg: dict[str, Any], clean: Any) -> dict[str, Any]:
    """A table message (gaji.messages.Msg.to_dict) with its text parameters cleaned like the reason is."""
    params = {k: _clean_msg(v, clean) if isinstance(v, dict) else clean(v) if isinstance(v, str) else v
              for k, v in (msg.get("params") or {}).items()}
    return {"id": msg.get("id"), "params": params}


def count_chunks(docs: list[Document], results: list[FileResult], chunking: dict[str, Any]) -> None:
    """Each added file's chunk count, chunked as the index chunks (gaji.corpus.chunking)."""
    cfg = ChunkingConfig.from_dict(chunking)
    by_doc = {d.id: len(chunk_document(d, cfg)) for d in docs}
    for r in results:
        r.chunks = sum(by_doc.get(i, 0) for i in r.documents)
