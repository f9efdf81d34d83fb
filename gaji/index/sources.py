"""What goes into an index: sources (paths, shared dataset names, Documents) -> documents -> chunks.

    sources = resolve_sources(["notes/", "hotpotqa"])
    chunks = chunk_all(documents, ChunkingConfig())        # IndexError_ when two documents' chunk ids collide
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import ChunkingConfig, chunk_document
from gaji.errors import IndexError_
from gaji.types import Chunk, Document

__all__ = ["resolve_sources", "source_names", "chunk_all"]


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
                raise IndexError_(
                    f"chunk id {c.id!r} of document {d.id!r} collides with a chunk of document {seen[c.id]!r}; "
                    "rename one of the documents"
                )
            seen[c.id] = d.id
            chunks.append(c)
    return chunks
