"""The index of a dataset's own corpus, built once and cached for every later run.

    <cache>/<name>/              the index (`gaji index build` of the corpus, BM25 + dense)
    <cache>/<name>.source.json   which corpus it was built from (sha256), and the records left out of it

<name> is the dataset's name for a published set, else its name and the corpus hash, so two files called
alike never share an index. A changed corpus, or an index that no longer opens, is built again.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gaji.errors import GajiError
from gaji.eval.datasets import KNOWN_DATASETS, Dataset
from gaji.eval.record import now_iso
from gaji.io import atomic_write_json


@dataclass
class CorpusIndex:
    path: str
    unindexed: set[str]  # corpus ids left out of the index (records without text)


def corpus_index(ds: Dataset, cache_dir: str | Path, *, open_index: Callable[[Path], Any],
                 build: Callable | None = None, progress: bool = True,
                 say: Callable[[str], Any] = print) -> CorpusIndex:
    """The cached index of `ds`'s corpus, built (and cached) when there is none for this corpus yet."""
    fp = ds.corpus_fingerprint()
    name = ds.corpus_name or (ds.name if ds.name in KNOWN_DATASETS else f"{ds.name}-{fp[:8]}")
    root = Path(cache_dir)
    idx_dir = root / name
    marker = root / f"{name}.source.json"
    source = _read_marker(marker) if idx_dir.exists() else None
    if source is not None and source.get("corpus_sha256") == fp:
        try:
            open_index(idx_dir)
            return CorpusIndex(str(idx_dir), set(source.get("unindexed_ids") or []))
        except GajiError:
            pass  # it no longer opens: build it again
    if build is None:
        from gaji.index.build import build_index as build
    say(f"building the index of {ds.name} in {idx_dir} (once; cached) …")
    # A published set is used as it is: its records without text (ODSum-Story has 52, ASQA 1) are left out of
    # the index and listed, and gold references to them leave the recall denominators. A user's own file
    # stays strict: its first bad record is an error naming the line.
    index = build(ds.corpus_source(), str(idx_dir), lexical=True, dense=True, progress=progress,
                  skip_bad=ds.name in KNOWN_DATASETS)
    report = getattr(index, "read_report", None)
    unindexed = {sk.record_id for sk in report.skipped if sk.record_id} if report is not None else set()
    if unindexed:
        say(f"{ds.name}: {len(unindexed)} corpus record(s) without text left out of the index "
            "(gold references to them are not counted in recall)")
    atomic_write_json(marker, {"dataset": ds.name, "source": str(ds.corpus_path or ds.path), "corpus_sha256": fp,
                               "built_at": now_iso(), "unindexed_ids": sorted(unindexed)})
    return CorpusIndex(str(idx_dir), unindexed)


def _read_marker(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
