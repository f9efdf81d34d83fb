"""The two costly steps a build and an add share: BM25 analysis + indexing, and checkpointed embedding.
Both add their timings to a stats dict (the manifest's "stats").
"""
from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gaji.progress import Bars
from gaji.types import Chunk

from .dense import save_npy_atomic
from .progress_file import format_eta
from .texts import chunk_text

__all__ = ["ANALYZE_BATCH", "EMBED_BATCH_ROWS", "EMBED_BATCH_CHARS", "CHECKPOINT_CHARS", "index_lexical", "embed_rows",
           "batch_end", "load_parts"]

ANALYZE_BATCH = 512
CHECKPOINT_S = 30.0  # a slow machine loses at most this much embedding to a kill, however few rows that is
# Embedding work is counted in characters as well as rows: a chunk of a huge document (10,000 characters by
# default) costs ~15 passages' worth, so 64 of them per embedder call or 256 per checkpoint would put minutes
# between progress updates and checkpoints. A call gets at most EMBED_BATCH_ROWS rows and EMBED_BATCH_CHARS
# characters (one longer row alone); a checkpoint comes after `checkpoint_rows` rows or CHECKPOINT_CHARS
# characters, whichever is first. Passages of the usual sizes (under ~1,000 characters) hit the row limits.
EMBED_BATCH_ROWS = 64
EMBED_BATCH_CHARS = 64 * 1024
CHECKPOINT_CHARS = 256 * 1024


def _passages_per_s(task) -> str:
    rate = task.rate()
    eta = (task.total - task.done) / rate if rate > 0 and task.done < task.total else None
    shown = f"{rate:,.1f}" if rate < 10 else f"{rate:,.0f}"
    return f"{shown} passages/s" + (f", ETA {format_eta(eta)}" if eta is not None else "")


def _open_lexical(lex_dir: Path, create: bool):
    from .lexical import LexicalIndex  # tantivy: loaded only when a BM25 part is written

    if create:
        if lex_dir.exists():
            shutil.rmtree(lex_dir)
        LexicalIndex.create(lex_dir)
    return LexicalIndex(lex_dir)


def index_lexical(
    lex_dir: Path, items: Sequence[tuple[int, Chunk]], analyzer, prog: Bars, stats: dict[str, Any],
    create: bool, delete_rows: Sequence[int] = (), text: Callable[[Chunk], str] = chunk_text,
) -> None:
    """Analyse chunks (their `text`) and add them as (row, terms) to the BM25 index in `lex_dir`, after
    deleting the rows `delete_rows`; `create` starts a new index there."""
    lex = _open_lexical(lex_dir, create)
    t0 = time.perf_counter()
    if hasattr(analyzer, "warmup"):
        analyzer.warmup()
    stats["analyzer_load_s"] = stats.get("analyzer_load_s", 0.0) + time.perf_counter() - t0
    t_index = 0.0
    t_analyze = 0.0
    t0 = time.perf_counter()
    writer = lex.writer()
    t_index += time.perf_counter() - t0
    writer.delete_many(list(delete_rows))
    task = prog.task("BM25 analyse + index", len(items))
    for start in range(0, len(items), ANALYZE_BATCH):
        batch = items[start : start + ANALYZE_BATCH]
        t0 = time.perf_counter()
        terms = list(analyzer.analyze_many([text(c) for _, c in batch], [c.lang for _, c in batch]))
        bodies = [" ".join(t) for t in terms]
        t1 = time.perf_counter()
        for (row, _), body in zip(batch, bodies):
            writer.add_text(row, body)
        t2 = time.perf_counter()
        t_analyze += t1 - t0
        t_index += t2 - t1
        task.advance(len(batch), status=_passages_per_s)
    t0 = time.perf_counter()
    writer.close()
    t_index += time.perf_counter() - t0
    stats["analyze_s"] = stats.get("analyze_s", 0.0) + t_analyze
    stats["lexical_index_s"] = stats.get("lexical_index_s", 0.0) + t_index
    stats["lexical_docs"] = stats.get("lexical_docs", 0) + len(items)


def load_parts(parts_dir: Path, n: int) -> tuple[list[np.ndarray], int]:
    """The checkpoints in `parts_dir` that continue each other from row 0, and the rows they cover.
    Anything else (unreadable, out of order, too long) is deleted, so those rows are embedded again."""
    parts: list[np.ndarray] = []
    done = 0
    for p in sorted(parts_dir.glob("*.npy")):
        try:
            a, b = (int(x) for x in p.stem.split("-"))
            arr = np.load(p)
        except (ValueError, OSError):
            p.unlink()
            continue
        if a != done or b > n or arr.shape[0] != b - a:
            p.unlink()
            continue
        parts.append(arr)
        done = b
    return parts, done


def batch_end(lengths: Sequence[int], start: int, max_rows: int, max_chars: int) -> int:
    """The end of the embedder call that starts at row `start`: at most `max_rows` rows and `max_chars`
    characters of `lengths` (always at least one row)."""
    end, chars = start, 0
    n = len(lengths)
    while end < n and end - start < max_rows and (end == start or chars + lengths[end] <= max_chars):
        chars += lengths[end]
        end += 1
    return end


def embed_rows(
    texts: Sequence[str], embedder, parts_dir: Path, prog: Bars, checkpoint_rows: int, stats: dict[str, Any],
    before_save: Callable[[], None] | None = None, checkpoint_s: float = CHECKPOINT_S,
    checkpoint_chars: int = CHECKPOINT_CHARS,
) -> np.ndarray:
    """Embed `texts`, checkpointing every `checkpoint_rows` rows, `checkpoint_chars` characters or
    `checkpoint_s` seconds, whichever comes first, into parts_dir; resumes from existing parts. `before_save`
    runs before each checkpoint is written (it may raise to stop the work)."""
    parts_dir.mkdir(parents=True, exist_ok=True)
    n = len(texts)
    lengths = [len(t) for t in texts]
    parts, done = load_parts(parts_dir, n)
    stats["resumed_rows"] = done
    task = prog.task("embedding (e5)", n, completed=done)
    t0 = time.perf_counter()
    batch = max(1, min(checkpoint_rows, EMBED_BATCH_ROWS))
    pending: list[np.ndarray] = []
    pending_start, pending_chars = done, 0
    saved_at = time.perf_counter()
    while done < n:
        end = batch_end(lengths, done, batch, EMBED_BATCH_CHARS)
        pending.append(embedder.embed_passages(list(texts[done:end])))
        task.advance(end - done, status=_passages_per_s)
        pending_chars += sum(lengths[done:end])
        done = end
        if (done - pending_start >= checkpoint_rows or pending_chars >= checkpoint_chars or done == n
                or time.perf_counter() - saved_at >= checkpoint_s):
            block = np.concatenate(pending) if len(pending) > 1 else pending[0]
            if before_save is not None:
                before_save()
            save_npy_atomic(parts_dir / f"{pending_start:09d}-{done:09d}.npy", block)
            parts.append(block)
            pending, pending_start, pending_chars, saved_at = [], done, 0, time.perf_counter()
    stats["embed_s"] = stats.get("embed_s", 0.0) + time.perf_counter() - t0
    stats["embedded_rows"] = stats.get("embedded_rows", 0) + n - int(stats["resumed_rows"])
    if not parts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.concatenate(parts) if len(parts) > 1 else parts[0]
