"""A writer's session on an index: the writer lock, the leftovers of a crashed writer cleaned up, then the
committed generation to change.

    with writing("runs/idx", "add") as snap:     # IndexBusy when another writer holds it too long
        change = plan(...); apply(snap, change, ...)
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .folders import check_openable
from .generations import Snapshot, collect, snapshot
from .journal import redo_store
from .lock import IndexBusy, writer_lock

__all__ = ["writing", "collect_if_idle"]


@contextmanager
def writing(root: str | Path, action: str, wait_s: float | None = None) -> Iterator[Snapshot]:
    """The writer lock of the index at `root` (gaji.index.lock), then its committed generation. A crashed
    writer's work folders are removed and its vector-database changes redone first (gaji.index.journal);
    generations nobody reads any more are deleted after the block."""
    check_openable(Path(root))  # no index: say so, and leave no lock behind
    with writer_lock(root, wait_s, action):
        collect(root)
        snap = snapshot(root)
        try:
            redo_store(snap.root, snap.dir, snap.manifest)
            yield snap
        finally:
            snap.release()
            collect(root)


def collect_if_idle(root: str | Path) -> None:
    """Delete the generations nobody reads any more, unless a writer is at work (it will do it)."""
    try:
        with writer_lock(root, 0, "collect"):
            collect(root)
    except IndexBusy:
        pass
