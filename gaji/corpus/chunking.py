"""Cut Documents into Chunks: sentence-aware, by characters (default) or tokens, with overlap.

    >>> chunks = chunk_document(doc, ChunkingConfig(size=800, overlap=100))

- A document that fits in `size` is ONE chunk whose id is the document id; otherwise chunks are
  ``{doc_id}#{n}`` (n = 0, 1, ...). Ids depend only on the text and the config, so they are stable.
  A document id may not itself end in ``#`` and digits (`document_id_problem`): then no document's
  id or chunk ids can be another document's chunk id.
- Chunks are built from whole sentences (`gaji.text.sentences`, Korean and English rules); a chunk is
  cut inside a sentence only when that sentence alone exceeds `size` (then at word, or token, bounds).
- `overlap` repeats the last whole sentences of a chunk (at most `overlap` in size) at the start of
  the next one.
- ``by="chars"`` measures chunk text length in characters; ``by="tokens"`` counts whitespace words
  (English) or Kiwi morphemes (Korean; whitespace words without kiwipiepy).
- Chunk text is always an exact slice ``doc.text[start:end]``.
- A table row (`Document.table_rows`) is one unit: a chunk never cuts it unless the row alone is
  longer than `size`. A chunk's `Location` is its document's, with ``rows`` narrowed to the
  spreadsheet rows the chunk holds.

The default size (10,000 characters) keeps every passage of the shared QA corpora (at most ~8,300
characters; KorQuAD paragraphs at most ~3,000) as a single chunk, so their gold ``doc_id``s are chunk
ids. For long documents (books, reports) pass a smaller size, e.g. ``--chunk-size 1500``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from gaji.errors import ConfigError
from gaji.text.lang import detect_lang
from gaji.text.sentences import sentence_spans
from gaji.types import Chunk, Document, Location, RowSpan

__all__ = ["ChunkingConfig", "chunk_document", "chunk_documents", "token_spans", "document_id_problem",
           "DEFAULT_SIZE"]

DEFAULT_SIZE = {"chars": 10_000, "tokens": 2_000}
DEFAULT_OVERLAP = {"chars": 200, "tokens": 40}
_WORD_RE = re.compile(r"\S+")
_CHUNK_SUFFIX_RE = re.compile(r"^(.*)#([0-9]+)$", re.S)

Span = tuple[int, int]


@dataclass
class ChunkingConfig:
    """How documents are cut. `size`/`overlap` default by unit (chars: 10000/200, tokens: 2000/40)."""

    size: int | None = None
    overlap: int | None = None
    by: str = "chars"  # "chars" | "tokens"

    def __post_init__(self) -> None:
        if self.by not in DEFAULT_SIZE:
            raise ConfigError(f"chunking by {self.by!r} is not supported; use chars or tokens")
        if self.size is None:
            self.size = DEFAULT_SIZE[self.by]
        if self.overlap is None:
            self.overlap = min(DEFAULT_OVERLAP[self.by], self.size // 4)
        if self.size < 1:
            raise ConfigError(f"chunk size must be at least 1, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise ConfigError(f"chunk overlap must be >= 0 and smaller than the size ({self.size}), got {self.overlap}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ChunkingConfig":
        return cls(size=d.get("size"), overlap=d.get("overlap"), by=d.get("by", "chars"))


# ---------------------------------------------------------------------------------------------
# units and measures
# ---------------------------------------------------------------------------------------------


def token_spans(text: str, start: int, end: int, lang: str) -> list[Span]:
    """Token spans of text[start:end] in document offsets: Kiwi morphemes for Korean, else words."""
    if lang == "ko":
        from gaji.text.analyzers import kiwi_tokens

        toks = kiwi_tokens(text[start:end])
        if toks is not None:
            return [(start + t.start, start + t.start + t.len) for t in toks]
    return [(start + m.start(), start + m.end()) for m in _WORD_RE.finditer(text, start, end)]


class _Measure:
    """Size of a run of units i..j (inclusive): characters spanned, or summed token weights."""

    def __init__(self, spans: list[Span], weights: list[int] | None):
        self.spans = spans
        self.prefix: list[int] | None = None
        if weights is not None:
            self.prefix = [0]
            for w in weights:
                self.prefix.append(self.prefix[-1] + w)

    def __call__(self, i: int, j: int) -> int:
        if self.prefix is not None:
            return self.prefix[j + 1] - self.prefix[i]
        return self.spans[j][1] - self.spans[i][0]


def _pack(spans: list[Span], measure: _Measure, size: int, overlap: int) -> list[Span]:
    """Greedy packing of consecutive units into windows of at most `size`, overlapping by whole units."""
    out: list[Span] = []
    n, i = len(spans), 0
    while i < n:
        j = i
        while j + 1 < n and measure(i, j + 1) <= size:
            j += 1
        out.append((spans[i][0], spans[j][1]))
        if j == n - 1:
            break
        m = j + 1  # next window starts at m; pull back whole units for the overlap
        while m - 1 > i and measure(m - 1, j) <= overlap:
            m -= 1
        while m <= j and measure(m, j + 1) > size:
            m += 1
        i = m
    return out


def _hard_split(span: Span, size: int, overlap: int) -> list[Span]:
    """Character windows over one unit longer than `size` (a word with no space in it)."""
    s, e = span
    step = max(1, size - overlap)
    out, pos = [], s
    while True:
        out.append((pos, min(pos + size, e)))
        if pos + size >= e:
            return out
        pos += step


def _merge_rows(sents: list[Span], rows: list[RowSpan]) -> list[Span]:
    """Sentence spans with every table row made one unit (a row may hold several "sentences")."""
    if not rows:
        return sents
    out: list[Span] = []
    bounds = sorted((r.start, r.end) for r in rows)
    k = 0
    for s, e in sents:
        while k < len(bounds) and bounds[k][1] <= s:
            k += 1
        if k < len(bounds) and bounds[k][0] <= s and e <= bounds[k][1] and out and out[-1][0] >= bounds[k][0]:
            out[-1] = (out[-1][0], e)  # same row as the previous unit
        else:
            out.append((s, e))
    return out


def _spans(text: str, cfg: ChunkingConfig, lang: str, rows: list[RowSpan] | None = None) -> list[Span]:
    size, overlap = int(cfg.size or 0), int(cfg.overlap or 0)
    if cfg.by == "chars" and len(text.strip()) <= size:
        return [(0, len(text))] if text.strip() else []
    sents = _merge_rows(sentence_spans(text), rows or [])
    if not sents:
        return []
    by_tokens = cfg.by == "tokens"
    sent_tokens = [token_spans(text, s, e, lang) for s, e in sents] if by_tokens else None

    def sent_size(k: int) -> int:
        return len(sent_tokens[k]) if sent_tokens is not None else sents[k][1] - sents[k][0]

    whole = sum(sent_size(k) for k in range(len(sents))) if by_tokens else sents[-1][1] - sents[0][0]
    if whole <= size:
        return [(0, len(text))]

    out: list[Span] = []
    run: list[int] = []  # indexes of consecutive sentences that fit

    def flush() -> None:
        if run:
            spans = [sents[k] for k in run]
            weights = [sent_size(k) for k in run] if by_tokens else None
            out.extend(_pack(spans, _Measure(spans, weights), size, overlap))
            run.clear()

    for k in range(len(sents)):
        if sent_size(k) <= size:
            run.append(k)
            continue
        flush()  # an over-long sentence: cut it at word (or token) boundaries
        if by_tokens:
            units = sent_tokens[k]  # type: ignore[index]
            out.extend(_pack(units, _Measure(units, [1] * len(units)), size, overlap))
        else:
            units = []
            for w in _WORD_RE.finditer(text, *sents[k]):
                if w.end() - w.start() > size:
                    units.extend(_hard_split((w.start(), w.end()), size, overlap))
                else:
                    units.append((w.start(), w.end()))
            out.extend(_pack(units, _Measure(units, None), size, overlap))
    flush()
    return out


# ---------------------------------------------------------------------------------------------
# public
# ---------------------------------------------------------------------------------------------


def chunk_document(doc: Document, cfg: ChunkingConfig | None = None) -> list[Chunk]:
    """The chunks of one document (see the module docstring)."""
    cfg = cfg or ChunkingConfig()
    doc_lang = detect_lang(doc.text) if cfg.by == "tokens" else ""  # only token counting needs it
    spans = _spans(doc.text, cfg, doc_lang, doc.table_rows)
    chunks = []
    for n, (s, e) in enumerate(spans):
        text = doc.text[s:e]
        meta = dict(doc.metadata)
        if len(spans) > 1:
            meta.update(chunk=n, chunks=len(spans))
        chunks.append(
            Chunk(
                id=doc.id if len(spans) == 1 else f"{doc.id}#{n}",
                doc_id=doc.id,
                text=text,
                title=doc.title,
                lang=detect_lang(text),
                start=s,
                end=e,
                metadata=meta,
                location=_chunk_location(doc, s, e),
            )
        )
    return chunks


def _chunk_location(doc: Document, start: int, end: int) -> Location | None:
    if doc.location is None:
        return None
    loc = Location.from_dict(doc.location.to_dict())
    numbers = [r.row for r in doc.table_rows if r.row is not None and r.start < end and r.end > start]
    if numbers:
        loc.rows = [min(numbers), max(numbers)]
    return loc


def chunk_documents(docs: Iterable[Document], cfg: ChunkingConfig | None = None) -> Iterator[Chunk]:
    """Chunks of many documents, in order."""
    cfg = cfg or ChunkingConfig()
    for d in docs:
        yield from chunk_document(d, cfg)


def document_id_problem(doc_id: str) -> str | None:
    """Why `doc_id` cannot be a document id, or None. An id ending in ``#`` and digits has the form of
    a chunk id (``long#1`` is chunk 1 of ``long``): allowing it would let one document overwrite
    another's chunk."""
    m = _CHUNK_SUFFIX_RE.match(doc_id)
    if m:
        return (f"document id {doc_id!r} ends in '#{m.group(2)}', the form of chunk ids (chunk {m.group(2)} of "
                f"document {m.group(1)!r}); rename the document (no '#' followed by only digits at the end)")
    return None
