"""Chunk expansion as a step of `gaji.index.build.build_index` (`gaji index build --expand --compose caseN`).

    idx = build_index(corpus, out, extension=expansion_step(expander=Expander(llm), compose="case6"))

- `ExpansionStep` is the build's extension (gaji.index.texts.BuildExtension): after chunking it attaches
  the expansions and hands the build the composition's texts; the index records the case (config
  "compose") and finds the texts again by that name (`gaji.registry.COMPOSITIONS`) when documents are added.
- The work file is ``.<index name>.expand/expansions.jsonl`` beside the index folder (an append-only
  `ExpansionStore`): it survives an interrupted build, whatever else the build redoes, so a rerun of
  the same command only expands the chunks not finished yet.
- Expansions already in the previous index at the same path (``<index>/expand/expansions.jsonl``) or
  in a sidecar file from `gaji expand run` (``--expansions FILE``) are reused when their key matches.
- Each chunk gets ``metadata["expansion"] = {"title", "questions", "model"}`` (stored with the chunk
  in chunks.jsonl); the finished file is copied into the index (``expand/expansions.jsonl``) and the
  work folder removed once the build is complete.
"""
from __future__ import annotations

import dataclasses
import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError
from gaji.index.texts import Prepared
from gaji.types import Chunk

from .compose import DEFAULT_CASE, check_case, texts
from .generator import Expander, Expansion, ExpansionStore
from .sidecar import EXPAND_DIR, EXPANSIONS_FILE, index_parts

__all__ = ["EXPAND_DIR", "EXPANSIONS_FILE", "work_dir", "resolve_compose", "attach_expansions", "finish",
           "load_expansions", "drop_work_dir", "ExpansionStep", "expansion_step"]



def work_dir(out: str | Path) -> Path:
    out = Path(out)
    return out.parent / f".{out.name}.expand"


def resolve_compose(compose: str | None, expanding: bool) -> str | None:
    """The composition an index is built with: the given case, the default when expanding, else None
    (the plain index: chunks embedded as before, no delimiters)."""
    if compose is None:
        return DEFAULT_CASE if expanding else None
    return check_case(compose)


def load_expansions(path: str | Path) -> dict[str, Expansion]:
    p = Path(path)
    if p.is_dir():
        parts = index_parts(p)
        p = parts / EXPAND_DIR / EXPANSIONS_FILE if (parts / EXPAND_DIR).is_dir() else p / EXPANSIONS_FILE
    if not p.exists():
        raise ConfigError(f"{path}: no expansions file here (make one with `gaji expand run`)")
    return ExpansionStore(p).load()


def attach_expansions(
    chunks: Sequence[Chunk],
    out: str | Path,
    expander: Expander | None = None,
    expansions: Any = None,
    progress: bool = False,
) -> tuple[list[Chunk], dict[str, Any], str, list[Expansion]]:
    """Chunks with `metadata["expansion"]` set; returns (chunks, stats, fingerprint of the expansions,
    the expansions used, in chunk order).

    `expander`: generate what is missing (resumably, in the work folder); `expansions`: a dict or a
    file/index path of ready expansions (used as they are when no expander is given: chunks without
    one fall back to the plain chunk text)."""
    given: dict[str, Expansion] = {}
    if isinstance(expansions, dict):
        given = dict(expansions)
    elif expansions is not None:
        given = load_expansions(expansions)
    previous = index_parts(out) / EXPAND_DIR / EXPANSIONS_FILE
    if previous.exists():
        prev = ExpansionStore(previous).load()
        given = {**prev, **given}
    stats: dict[str, Any] = {}
    if expander is not None:
        store = ExpansionStore(work_dir(out) / EXPANSIONS_FILE)
        res = expander.run(chunks, store, progress=progress, seed=given)
        got = res.expansions
        stats = {f"expand_{k}": v for k, v in res.stats().items()}
        if res.failed:
            stats["expand_failed_ids"] = [cid for cid, _ in res.failed[:50]]
    else:
        got = {c.id: given[c.id] for c in chunks if c.id in given}
        stats = {"expand_chunks": len(chunks), "expand_given": len(got)}
    h = hashlib.sha1()
    out_chunks: list[Chunk] = []
    used: list[Expansion] = []
    for c in chunks:
        e = got.get(c.id)
        if e is None:
            out_chunks.append(c)
            continue
        used.append(e)
        md = dict(c.metadata or {})
        md["expansion"] = e.brief()
        out_chunks.append(dataclasses.replace(c, metadata=md))
        h.update(f"{c.id}\x00{e.title}\x00{'|'.join(e.questions)}\x01".encode("utf-8"))
    stats["expanded_chunks"] = sum(1 for c in chunks if c.id in got)
    return out_chunks, stats, h.hexdigest()[:16], used


def finish(used: Sequence[Expansion], build_dir: str | Path, out: str | Path) -> None:
    """Write the expansions used into the finished build folder (full records, so a rebuild reuses
    them) and drop the work folder. Call before the build folder is swapped in."""
    import json

    from gaji.io import atomic_write_text

    if used:
        text = "".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in used)
        atomic_write_text(Path(build_dir) / EXPAND_DIR / EXPANSIONS_FILE, text)


def drop_work_dir(out: str | Path) -> None:
    shutil.rmtree(work_dir(out), ignore_errors=True)


@dataclasses.dataclass
class ExpansionStep:
    """Expansion inside a build: `expander` generates what is missing, `expansions` (a dict or a file/index
    path) supplies ready ones, `compose` is the case the chunks are indexed with."""

    compose: str
    expander: Expander | None = None
    expansions: Any = None
    used: list[Expansion] = dataclasses.field(default_factory=list)

    def prepare(self, chunks: list[Chunk], out: Path, progress: bool) -> Prepared:
        if self.expander is None and self.expansions is None:  # a composition without expansions
            return Prepared(list(chunks), texts(self.compose), f"{self.compose}/", {"expansion_model": None})
        chunks, stats, fp, self.used = attach_expansions(chunks, out, expander=self.expander,
                                                         expansions=self.expansions, progress=progress)
        model = self.used[0].model if self.used else None
        return Prepared(chunks, texts(self.compose), f"{self.compose}/{fp}", {"expansion_model": model}, stats)

    def finish(self, build_dir: Path, out: Path) -> None:
        finish(self.used, build_dir, out)

    def cleanup(self, out: Path) -> None:
        drop_work_dir(out)


def expansion_step(expander: Expander | None = None, expansions: Any = None,
                   compose: str | None = None) -> ExpansionStep | None:
    """The build extension for `--expand` / `--expansions` / `--compose` (None when none is given: the
    plain index). ConfigError for an unknown case."""
    case = resolve_compose(compose, expander is not None or expansions is not None)
    return ExpansionStep(case, expander, expansions) if case else None
