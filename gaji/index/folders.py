"""The folders around an index: what a build may replace, and the build folder beside it.

A build writes a complete folder ``.NAME.building`` beside the index and puts it in place when it is
finished (gaji.index.generations.install). While NAME does not exist yet, the writer lock lives in that
folder (gaji.index.lock), so emptying it for a new build keeps the lock file.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from gaji.errors import ConfigError, IndexUnusableError

from .layout import LOCK, MANIFEST, backup_dir, building_dir
from .manifest import read_manifest

__all__ = ["check_target", "check_openable", "empty_build_dir", "folder_bytes"]


def _is_index(p: Path) -> bool:
    try:
        read_manifest(p)
    except IndexUnusableError:
        return False
    return True


def check_openable(p: Path) -> None:
    """IndexUnusableError saying what to do when there is no index at `p` (an interrupted build, nothing)."""
    backup = backup_dir(p)
    if not p.exists() and backup.exists() and _is_index(backup):
        os.rename(backup, p)  # an older gaji's swap was interrupted between its two renames: restore it
    building = building_dir(p)
    if not (p / MANIFEST).exists() and building.exists():
        raise IndexUnusableError(
            f"{p}: the build of this index was interrupted (partial work in {building}); "
            "rerun the same `gaji index build` command to resume it"
        )
    if not p.exists():
        raise IndexUnusableError(f"{p}: no index here; build one with `gaji index build CORPUS --out {p}`")


def check_target(out: Path) -> None:
    """ConfigError unless `out` is absent, an empty folder or an index (a build may replace only those)."""
    if out.exists():
        if not out.is_dir():
            raise ConfigError(f"{out} exists and is not a folder")
        if not (out / MANIFEST).exists() and any(e.name != LOCK for e in out.iterdir()):
            raise ConfigError(f"{out} exists, is not empty and is not a gaji index: refusing to overwrite it")


def empty_build_dir(work: Path) -> None:
    """Make `work` an empty folder, but for the lock file a writer may hold in it."""
    if work.is_dir():
        for entry in work.iterdir():
            if entry.name == LOCK:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    elif work.exists():
        work.unlink()
    work.mkdir(parents=True, exist_ok=True)


def folder_bytes(path: Path) -> int:
    """The bytes of the files under `path` (an index's size on disk: every generation a reader still holds, the
    kept original files, the work of a writer at work); files that vanish while counted are left out."""
    total = 0
    for d, _, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(d, n)).st_size
            except OSError:
                continue
    return total
