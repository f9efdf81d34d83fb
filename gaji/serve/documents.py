"""An index's documents as people know them: one row per file (its pages, slides or sheets together), with
its format, size in pages / slides / rows, chunks, when it was indexed, and the files that were refused and why.

    rows, total = list_documents(index, offset=0, limit=200)

A file read by the folder readers makes the documents ``FILE`` and ``FILE#page3`` / ``#slide2`` / ``#sheet1``
/ ``#sec2`` (gaji.corpus.formats); they are one row, named FILE. A document of a record corpus (JSONL) is a
row of its own. Refused files come from the index's notes (gaji.index.refusals). No path on the server's
disk is shown: a row says only whether its original file can be read again (`can_sync`).
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gaji.corpus.formats import format_for

__all__ = ["DocumentRow", "list_documents", "file_of", "sync_target", "passage_in_document", "original_in"]

_UNIT_RE = re.compile(r"^(page|slide|sheet|sec)(\d+)$")
_UNIT_KEY = {"page": "pages", "slide": "slides", "sheet": "sheets", "sec": "sections"}


@dataclass
class DocumentRow:
    name: str  # the file (or a record's id)
    status: str = "indexed"  # indexed | refused
    format: str = ""  # PDF, HWP 5, DOCX, …; "" for a record
    documents: list[str] = field(default_factory=list)  # the document ids it made (what Remove takes out)
    chunks: int = 0
    units: dict[str, int] = field(default_factory=dict)  # {"pages": 12} / {"slides": 8} / {"rows": 40} / {"sections": 5}
    updated: str = ""  # ISO time it was indexed (or refused)
    origin: str = ""  # folder (read from a folder on the server) | upload | corpus (a record file) | "" (unknown)
    can_sync: bool = False  # its original file is on the server's disk and can be read again
    reason: str = ""  # why it was refused (English)
    reason_msg: dict[str, Any] | None = None  # the same as a message of the table (gaji.messages)
    first_chunk: str = ""  # the id of its first chunk (the passage view opens the file there)
    original: str = ""  # kept (a copy in the index) | source (the file where it was read, served while unchanged) | ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def file_of(doc_id: str) -> str:
    """The file a document id belongs to: ``보고서.pdf#page3`` -> ``보고서.pdf``; any other id is its own."""
    head, sep, unit = doc_id.rpartition("#")
    return head if sep and head and _UNIT_RE.match(unit) else doc_id


def _origin(source: str, name: str) -> str:
    if source.startswith("upload"):
        return "upload"
    if not source:
        return ""
    if Path(source).suffix.lower() in (".jsonl", ".json") and Path(source).name != name:
        return "corpus"
    return "folder"


def _format(name: str, origin: str) -> str:
    fmt = format_for(name)
    if fmt is not None:
        return fmt.label
    return "JSONL" if origin == "corpus" else ""


def list_documents(index: Any, offset: int = 0, limit: int = 200) -> tuple[list[DocumentRow], int]:
    """The rows of an opened index (gaji.index.store.Index): refused files first, then files in id order;
    `offset`/`limit` page through them. Returns (rows, total rows)."""
    from gaji.index.refusals import read_refusals
    from gaji.index.sources import read_records

    records = read_records(index.dir)
    created = str(getattr(index.manifest, "created", "") or "")
    groups: "OrderedDict[str, DocumentRow]" = OrderedDict()
    units: dict[str, set[str]] = {}
    chunk_rows: dict[str, list[int]] = {}
    for row, pair in enumerate(index.store.id_pairs()):
        if pair is None:
            continue
        doc_id = pair[1]
        name = file_of(doc_id)
        g = groups.get(name)
        if g is None:
            g = groups[name] = DocumentRow(name=name)
        if not g.documents or g.documents[-1] != doc_id:
            if doc_id not in g.documents:
                g.documents.append(doc_id)
        g.chunks += 1
        unit = doc_id[len(name) + 1:] if doc_id != name else ""
        if unit:
            units.setdefault(name, set()).add(unit)
        chunk_rows.setdefault(name, []).append(row)
        if not g.first_chunk:
            g.first_chunk = pair[0]
    for name, g in groups.items():
        rec = records.get(g.documents[0], {}) if g.documents else {}
        source = str(rec.get("source") or "")
        g.origin = _origin(source, name)
        g.format = _format(name, g.origin)
        g.updated = max((str(records.get(d, {}).get("indexed") or "") for d in g.documents), default="") or created
        g.can_sync = g.origin == "folder" and _sync_target(source, name, index.manifest.sources) is not None
        kinds: dict[str, int] = {}
        for u in units.get(name, ()):
            m = _UNIT_RE.match(u)
            if m:
                kinds[_UNIT_KEY[m.group(1)]] = kinds.get(_UNIT_KEY[m.group(1)], 0) + 1
        g.units = kinds
    ordered = sorted(groups.values(), key=lambda g: g.name)
    for g in ordered[offset:offset + limit]:
        if g.format == "XLSX":
            g.units = {"rows": _sheet_rows(index, chunk_rows.get(g.name, []))}
        g.original = _original_kind(index, records.get(g.documents[0], {}) if g.documents else {})
    refused = [DocumentRow(name=r.file, status="refused", format=_format(r.file, "folder"), updated=r.time,
                           reason=r.reason, reason_msg=r.msg) for r in reversed(read_refusals(index.path))
               if r.file not in groups]
    rows = refused + ordered
    return rows[offset:offset + limit], len(rows)


def _original_kind(index: Any, rec: dict[str, Any]) -> str:
    """kept / source / "" for a row's original (its digest is checked when the file is asked for, not here)."""
    from gaji.index.originals import stored_path

    sha = str(rec.get("file_sha256") or "")
    if len(sha) != 64:
        return ""
    try:
        if stored_path(index.path, sha).is_file():
            return "kept"
    except ValueError:
        return ""
    return "source" if Path(str(rec.get("source") or "")).is_file() else ""


def _sheet_rows(index: Any, rows: list[int]) -> int:
    """The spreadsheet rows a workbook's chunks cover (the sum over its sheets of last - first + 1 per chunk)."""
    seen: set[tuple[str, int]] = set()
    for r in rows[:5000]:
        c = index.chunk_at(r)
        loc = getattr(c, "location", None) if c is not None else None
        if loc is not None and loc.rows:
            for n in range(loc.rows[0], loc.rows[-1] + 1):
                seen.add((loc.sheet or "", n))
    return len(seen)


def _sync_target(source: str, name: str, sources: list[str]) -> Path | None:
    """What to sync to read the file `name` again: the folder it was read from when the index was built or synced
    from that folder, the file itself when it was named alone; None when neither is known or still there."""
    p = Path(source)
    parts = Path(name).parts
    if not source or len(p.parts) <= len(parts) or p.parts[-len(parts):] != parts:
        return None
    known = set()
    for s in sources:
        try:
            known.add(Path(s).resolve())
        except (OSError, RuntimeError):
            continue
    folder = Path(*p.parts[:-len(parts)])
    if folder in known and folder.is_dir():
        return folder
    if p in known and p.is_file():
        return p
    return None


def sync_target(index: Any, name: str) -> Path | None:
    """The folder or file to sync to read the file `name` of an index again (None when not known or gone)."""
    from gaji.index.sources import read_records

    for doc_id, rec in read_records(index.dir).items():
        if file_of(doc_id) == name:
            source = str(rec.get("source") or "")
            if _origin(source, name) == "folder":
                return _sync_target(source, name, index.manifest.sources)
    return None


MAX_CONTEXT_CHUNKS = 300


def passage_in_document(index: Any, chunk_id: str) -> dict[str, Any] | None:
    """A chunk with the chunks of its document around it, in order, for the page that shows the passage in its
    document: {id, doc_id, title, file, format, location, original, chunks: [{id, text, location}]}; None when the
    index has no such chunk. `original`: {"kept": bool, "size": bytes} when the file it was read from can be
    handed out (gaji.index.originals: the index's copy, or the unchanged file at its source), else None."""
    try:
        chunk = index.get_chunk(chunk_id)
    except KeyError:
        return None
    store = getattr(index, "store", None)
    if store is None:  # an index held in memory: the chunk alone
        chunks = [chunk]
    else:
        pairs = store.id_pairs()
        rows = [r for r, pair in enumerate(pairs) if pair is not None and pair[1] == chunk.doc_id]
        at = next((i for i, r in enumerate(rows) if pairs[r][0] == chunk_id), 0)
        lo = max(0, min(at - MAX_CONTEXT_CHUNKS // 2, len(rows) - MAX_CONTEXT_CHUNKS))
        chunks = [index.chunk_at(r) for r in rows[lo:lo + MAX_CONTEXT_CHUNKS]]
        chunks = sorted((c for c in chunks if c is not None), key=lambda c: (c.start, c.id))
    name = file_of(chunk.doc_id)
    loc = chunk.location.to_dict() if chunk.location is not None else None
    found = original_in(index, name)
    return {"id": chunk.id, "doc_id": chunk.doc_id, "title": chunk.title, "file": name,
            "format": _format(name, "folder"), "location": loc,
            "original": {"kept": found.kept, "size": found.size} if found is not None else None,
            "chunks": [{"id": c.id, "text": c.text, "location": c.location.to_dict() if c.location else None}
                       for c in chunks]}


def original_in(index: Any, name: str) -> Any:
    """The original of the file `name` of an opened on-disk index (gaji.index.originals.Original), else None."""
    from gaji.index.originals import find_original

    root, parts = getattr(index, "path", None), getattr(index, "dir", None)
    if root is None or parts is None:
        return None
    return find_original(root, parts, name)
