"""The vectors a published index still lacks: dense-fill/plan.json in the parts of its generation.

    plan = FillPlan.load(index_dir)            # None: nothing to fill (the committed generation's plan)
    plan.rows                                  # the rows to embed, ascending
    plan.parts_dir(index_dir)                  # their checkpoints (positions in `rows`, gaji.index.steps),
                                               # in dense-fill-parts/ of the index folder, not in a generation

A build publishes its index as soon as BM25 is in place, with a plan of every row; an add (or any
change made through gaji.index.update) publishes its BM25 rows with a plan of the rows it (re)indexed,
joined to a plan still pending (`join_change`: what that plan had already embedded goes into
dense/vectors.npy first, so no row is embedded twice). gaji.index.fill carries a plan out and switches the
manifest's `vectors` to complete. A plan whose rows change gets a new id, and checkpoints live in a
folder named by the id: a filler still working on an older plan can never mix its rows into a newer one.
"""
from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gaji.errors import IndexUnusableError
from gaji.io import atomic_write_json
from gaji.registry import COMPOSITIONS

from .dense import save_npy_atomic
from .generations import parts_dir
from .layout import DENSE_DIR, FILL_DIR, FILL_PARTS, FILL_PLAN, VECTORS
from .manifest import Manifest
from .steps import load_parts
from .texts import PLAIN, ChunkTexts

__all__ = ["FillPlan", "join_change", "base_vectors", "pending_state", "texts_of"]


def texts_of(m: Manifest) -> ChunkTexts:
    """The texts the index was built with: the composition its manifest names (config "compose"), else plain."""
    name = m.config.get("compose")
    return COMPOSITIONS.get(str(name)) if name else PLAIN


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass
class FillPlan:
    """Rows of an index whose vectors are still to be computed, and how the dense part is written then."""

    rows: list[int]
    model: str  # the embedder (model id) the vectors are made with
    dim: int
    backend: str  # the dense backend once filled ("exact" | "hnsw")
    patch_hnsw: bool = False  # add `rows` to the existing HNSW graph instead of building it again
    deleted: list[int] = field(default_factory=list)  # rows emptied since the vectors were complete
    action: str = "build"  # "build": a dense store gets every vector; otherwise only the changed rows
    fingerprint: str = ""  # of the build that made the plan (names its dense-store collection)
    joined: bool = False  # changed by an add since: a rerun of the same build may not resume it
    id: str = field(default_factory=_new_id)

    def save(self, index_dir: str | Path) -> None:
        atomic_write_json(Path(index_dir) / FILL_DIR / FILL_PLAN, asdict(self), indent=None)

    @classmethod
    def load(cls, index_dir: str | Path) -> "FillPlan | None":
        """The plan of the index at `index_dir` (of its committed generation; or in a folder of parts), None
        when there is none; IndexUnusableError when it cannot be read."""
        p = parts_dir(index_dir) / FILL_DIR / FILL_PLAN
        if not p.exists():
            return None
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
            known = set(cls.__dataclass_fields__)
            plan = cls(**{k: v for k, v in d.items() if k in known})
            plan.rows = [int(r) for r in plan.rows]
        except (OSError, ValueError, TypeError) as e:
            raise IndexUnusableError(f"{p}: unreadable plan of the vectors still to compute ({e}); rebuild the index "
                              "with `gaji index build`") from None
        return plan

    def parts_dir(self, index_dir: str | Path) -> Path:
        """Where the checkpoints of this plan go: in the index folder `index_dir`, beside its generations."""
        return Path(index_dir) / FILL_PARTS / f"parts-{self.id}"

    def is_current(self, index_dir: str | Path) -> bool:
        """Whether this is still the plan of the index at `index_dir` (an add may have replaced it)."""
        try:
            d = json.loads((parts_dir(index_dir) / FILL_DIR / FILL_PLAN).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(d, dict) and d.get("id") == self.id


def pending_state(plan: FillPlan, rows: int) -> dict[str, Any]:
    """The manifest's `vectors` while `plan` is being filled."""
    return {"state": "pending", "pending": len(plan.rows), "rows": int(rows), "plan": plan.id}


def base_vectors(index_dir: str | Path, rows: int, dim: int) -> np.ndarray:
    """dense/vectors.npy of the index as a writable array of `rows` rows (new rows zero), zeros if absent."""
    out = np.zeros((rows, dim), dtype=np.float32)
    p = Path(index_dir) / DENSE_DIR / VECTORS
    if p.exists():
        old = np.load(p)
        n = min(rows, old.shape[0])
        out[:n] = old[:n]
    return out


def _fold(root: Path, work: Path, plan: FillPlan, rows: int) -> int:
    """Write what `plan` has embedded so far (its checkpoints in the index folder `root`) into
    dense/vectors.npy of `work`; how many of its rows that was."""
    parts, done = load_parts(plan.parts_dir(root), len(plan.rows))
    if done:
        vecs = base_vectors(work, rows, plan.dim)
        vecs[np.asarray(plan.rows[:done], dtype=np.int64)] = np.concatenate(parts)
        (work / DENSE_DIR).mkdir(parents=True, exist_ok=True)
        save_npy_atomic(work / DENSE_DIR / VECTORS, vecs)
    shutil.rmtree(work / FILL_DIR, ignore_errors=True)
    return done


def join_change(root: str | Path, work: str | Path, m: Manifest, rows: Sequence[int], deleted: Sequence[int],
                total_rows: int, backend: str, patch_hnsw: bool, action: str) -> FillPlan:
    """The plan of the index copy `work` (manifest `m`; inside the index folder `root`) after a change that
    (re)indexes `rows` and empties `deleted`, joined to the plan still pending there, if any. Saved in `work`."""
    work = Path(work)
    old = FillPlan.load(work) if m.vectors_pending else None  # (a complete index's leftover plan is stale)
    if old is None:
        shutil.rmtree(work / FILL_DIR, ignore_errors=True)
    model, dim = str(m.config.get("embedding_model")), int(m.config.get("embedding_dim") or 0)
    if old is None:
        plan = FillPlan(sorted(int(r) for r in rows), model, dim, backend, patch_hnsw, sorted(deleted), action)
    else:
        done = _fold(Path(root), work, old, total_rows)
        gone = set(deleted)
        left = {r for r in old.rows[done:] if r not in gone}
        plan = FillPlan(sorted(left | {int(r) for r in rows}), model, dim, backend,
                        patch_hnsw and old.patch_hnsw and done == 0 and old.action != "build",
                        sorted(set(old.deleted) | gone), old.action, old.fingerprint, joined=True)
    plan.save(work)
    return plan
