"""What the index makes of a chunk: the text BM25 analyses and the text the embedder embeds.

    PLAIN.lexical(chunk), PLAIN.dense(chunk)          # title + text; a composition may say otherwise

Other packages extend a build through `BuildExtension` (chunk expansion, gaji/expand/index_hook.py, is
one): after chunking it may rewrite the chunks and choose the texts, and it gets a say before and after
the finished folder is swapped in. The index itself knows no extension and no composition by name: it
records the composition's name in the manifest and `Index.add` looks it up again in
`gaji.registry.COMPOSITIONS` (gaji.index.update). This module does no lookup, so the compositions can
import it while the registry imports them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gaji.types import Chunk

__all__ = ["chunk_text", "ChunkTexts", "PLAIN", "Prepared", "BuildExtension"]


def chunk_text(chunk: Chunk) -> str:
    """A chunk as the plain index holds it: its title (when any), a newline, its text."""
    return f"{chunk.title}\n{chunk.text}" if chunk.title else chunk.text


@dataclass(frozen=True)
class ChunkTexts:
    """How chunks become index texts. A named composition is recorded in the manifest (config "compose"),
    so that `Index.add` treats new chunks the same way; the plain texts have no name."""

    name: str | None = None
    lexical: Callable[[Chunk], str] = chunk_text
    dense: Callable[[Chunk], str] = chunk_text
    # drops what the composition keeps beside the chunks in a generation folder (e.g. expand/) about
    # chunk ids that leave the index, so that a removed document leaves nothing behind
    prune: Callable[[Path, set[str]], None] | None = None


PLAIN = ChunkTexts()


@dataclass
class Prepared:
    """What a `BuildExtension` hands back to the build after chunking."""

    chunks: list[Chunk]
    texts: ChunkTexts = PLAIN
    fingerprint: str = ""  # joins the build's fingerprint: an interrupted build resumes only when equal
    config: dict[str, Any] = field(default_factory=dict)  # extra manifest config entries
    stats: dict[str, Any] = field(default_factory=dict)  # extra manifest stats


class BuildExtension(Protocol):
    """A step another package adds to a build between chunking and indexing."""

    def prepare(self, chunks: list[Chunk], out: Path, progress: bool) -> Prepared:
        """Rewrite `chunks` (of the index to be built at `out`) and say how they become texts."""
        ...

    def finish(self, build_dir: Path, out: Path) -> None:
        """Add files to the finished build folder, before it is swapped in at `out`."""
        ...

    def cleanup(self, out: Path) -> None:
        """Remove work files once the index at `out` is in place."""
        ...
