"""BM25 over pre-analysed text, on disk with tantivy.

Each chunk is one tantivy document: ``row`` (u64, the chunk's row in the chunk store; indexed + fast)
and ``body``, the analyser's terms joined by single spaces, indexed with tantivy's ``whitespace``
tokenizer (no lower-casing, no stemming: all normalisation is ours, see gaji.text.analyzers) and
term frequencies without positions. Scoring is tantivy's BM25 (k1=1.2, b=0.75,
idf = ln(1 + (N - n + 0.5) / (n + 0.5))).

Queries are built programmatically -- one SHOULD term query per distinct query term, boosted by the
term's count in the query -- never parsed, so no query syntax needs escaping.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import tantivy

from gaji.errors import IndexUnusableError

__all__ = ["LexicalIndex", "LexicalWriter", "BODY", "ROW"]

BODY = "body"
ROW = "row"


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_unsigned_field(ROW, stored=False, indexed=True, fast=True)
    sb.add_text_field(BODY, stored=False, tokenizer_name="whitespace", index_option="freq")
    return sb.build()


def _clean(terms: Iterable[str]) -> list[str]:
    """Terms safe for the whitespace tokenizer: non-empty, no internal whitespace."""
    out: list[str] = []
    for t in terms:
        if not t:
            continue
        if any(c.isspace() for c in t):
            out.extend(t.split())
        else:
            out.append(t)
    return out


class LexicalWriter:
    """Adds (row, terms) documents; `commit()` makes them durable and searchable."""

    def __init__(self, index: tantivy.Index, heap_mb: int = 256, threads: int = 1):
        self._schema = index.schema
        self._writer = index.writer(heap_size=heap_mb * 1_000_000, num_threads=threads)
        self.added = 0

    def add(self, row: int, terms: Sequence[str]) -> None:
        doc = tantivy.Document()
        doc.add_unsigned(ROW, int(row))
        doc.add_text(BODY, " ".join(_clean(terms)))
        self._writer.add_document(doc)
        self.added += 1

    def add_text(self, row: int, body: str) -> None:
        """Add an already joined, whitespace-separated term string (the fast path for bulk loads)."""
        doc = tantivy.Document()
        doc.add_unsigned(ROW, int(row))
        doc.add_text(BODY, body)
        self._writer.add_document(doc)
        self.added += 1

    def delete(self, row: int) -> None:
        # (delete_documents_by_term sends a Python int as an i64 term, which never matches a u64 field)
        self._writer.delete_documents_by_query(tantivy.Query.term_query(self._schema, ROW, int(row)))

    def delete_many(self, rows: Sequence[int]) -> None:
        if rows:
            self._writer.delete_documents_by_query(tantivy.Query.term_set_query(self._schema, ROW, [int(r) for r in rows]))

    def commit(self) -> None:
        self._writer.commit()

    def close(self) -> None:
        """Commit and wait for background merges (fewer segments = faster queries)."""
        self._writer.commit()
        self._writer.wait_merging_threads()


class LexicalIndex:
    """A tantivy BM25 index in a folder."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not tantivy.Index.exists(str(self.path)):
            raise IndexUnusableError(f"{self.path}: no lexical (BM25) index here")
        try:
            self._index = tantivy.Index.open(str(self.path))
        except Exception as e:  # tantivy raises ValueError on format problems
            raise IndexUnusableError(
                f"{self.path}: cannot open the BM25 index ({e}); rebuild it with `gaji index build`"
            ) from None
        self._schema = self._index.schema
        self._searcher = self._index.searcher()

    @classmethod
    def create(cls, path: str | Path) -> tantivy.Index:
        """A new empty tantivy index in `path` (created); add documents with `LexicalWriter`."""
        p = Path(path)
        p.mkdir(parents=True, exist_ok=True)
        return tantivy.Index(_schema(), path=str(p), reuse=False)

    def writer(self, heap_mb: int = 256, threads: int = 1) -> LexicalWriter:
        return LexicalWriter(self._index, heap_mb=heap_mb, threads=threads)

    def reload(self) -> None:
        self._index.reload()
        self._searcher = self._index.searcher()

    @property
    def num_docs(self) -> int:
        return self._searcher.num_docs

    def doc_freq(self, term: str) -> int:
        return self._searcher.doc_freq(BODY, term)

    def query(self, terms: Sequence[str]) -> tantivy.Query | None:
        """OR of the distinct terms, each boosted by its count; None for no terms."""
        counts = Counter(_clean(terms))
        if not counts:
            return None
        clauses = []
        for term, c in counts.items():
            q = tantivy.Query.term_query(self._schema, BODY, term, index_option="freq")
            if c > 1:
                q = tantivy.Query.boost_query(q, float(c))
            clauses.append((tantivy.Occur.Should, q))
        if len(clauses) == 1:
            return clauses[0][1]
        return tantivy.Query.boolean_query(clauses)

    def search(self, terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Top-k (row, BM25 score), best first. Ties keep tantivy's order (by doc address)."""
        q = self.query(terms)
        if q is None or k <= 0:
            return []
        searcher = self._searcher
        hits = searcher.search(q, limit=k, count=False).hits
        if not hits:
            return []
        rows = searcher.fast_field_values(ROW, [addr for _, addr in hits])
        return [(int(r), float(s)) for (s, _), r in zip(hits, rows)]

    def rows(self) -> list[int]:
        """Every row this index holds, ascending (for consistency checks: gaji bench crash)."""
        n = self.num_docs
        if n == 0:
            return []
        searcher = self._searcher
        hits = searcher.search(tantivy.Query.all_query(), limit=n, count=False).hits
        return sorted(int(r) for r in searcher.fast_field_values(ROW, [addr for _, addr in hits]))
