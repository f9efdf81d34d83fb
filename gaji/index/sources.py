"""What goes into an index: sources (paths, shared dataset names, Documents) -> documents -> chunks.

    sources = resolve_sources(["notes/", "hotpotqa"])
    chunks = chunk_all(documents, ChunkingConfig())        # IndexUnusableError when two documents' chunk ids collide
    records = {d.id: doc_record(d) for d in documents}    # documents.json: where each came from, its hash

A document's record holds its source (the absolute path of its file when it was read from one) and
the sha256 of what the index takes from it (title, text, metadata), so that `gaji index sync` can tell
new, changed and gone documents; ``file_sha256`` is the digest of the whole file when the reader gives
one (`Document.location.sha256`).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import ChunkingConfig, chunk_document
from gaji.errors import IndexUnusableError
from gaji.io import atomic_write_json
from gaji.types import Chunk, Document

from .layout import DOCUMENTS

__all__ = ["resolve_sources", "source_names", "chunk_all", "doc_source", "doc_record", "read_records",
           "write_records"]


def resolve_sources(sources: Any) -> list[Any]:
    """Paths, dataset names and Documents -> paths/Documents (dataset names resolved)."""
    from gaji.corpus.shared_data import resolve_corpus

    if isinstance(sources, (str, Path, Document)):
        sources = [sources]
    out: list[Any] = []
    for s in sources:
        out.append(s if isinstance(s, Document) else resolve_corpus(s))
    return out


def source_names(sources: Sequence[Any]) -> list[str]:
    """How the manifest lists `sources`: each path, and the number of Documents given directly."""
    names = [str(s) for s in sources if not isinstance(s, Document)]
    n_docs = sum(1 for s in sources if isinstance(s, Document))
    if n_docs:
        names.append(f"<{n_docs} documents>")
    return names


def chunk_all(docs: Sequence[Document], cfg: ChunkingConfig) -> list[Chunk]:
    """The chunks of `docs` in order; two documents whose chunk ids collide are an error."""
    chunks: list[Chunk] = []
    seen: dict[str, str] = {}
    for d in docs:
        for c in chunk_document(d, cfg):
            if c.id in seen:
                raise IndexUnusableError(
                    f"chunk id {c.id!r} of document {d.id!r} collides with a chunk of document {seen[c.id]!r}; "
                    "rename one of the documents"
                )
            seen[c.id] = d.id
            chunks.append(c)
    return chunks


def doc_source(doc: Document) -> str:
    """Where a document came from: the absolute path of its file when that exists, else as given."""
    if doc.source:
        p = Path(doc.source)
        try:
            if p.exists():
                return str(p.resolve())
        except OSError:
            pass
    return doc.source


def doc_record(doc: Document) -> dict[str, str]:
    """The documents.json entry of `doc`."""
    body = json.dumps([doc.title, doc.text, doc.metadata], ensure_ascii=False, sort_keys=True, default=str)
    loc = getattr(doc, "location", None)
    return {"source": doc_source(doc), "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
            "file_sha256": str(getattr(loc, "sha256", "") or "")}


def read_records(parts_dir: str | Path) -> dict[str, dict[str, str]]:
    """documents.json of a generation's parts ({} for an index built before it was kept)."""
    try:
        d = json.loads((Path(parts_dir) / DOCUMENTS).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError) as e:
        raise IndexUnusableError(f"{Path(parts_dir) / DOCUMENTS}: unreadable ({e}); rebuild the index") from None
    return d if isinstance(d, dict) else {}


def write_records(parts_dir: str | Path, records: dict[str, dict[str, str]]) -> None:
    atomic_write_json(Path(parts_dir) / DOCUMENTS, records, indent=None)
