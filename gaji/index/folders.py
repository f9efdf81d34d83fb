"""Replacing an index folder atomically: a build or an add writes a complete folder beside the index,
then swaps it in with two renames (`open_index` undoes a swap interrupted between them).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from gaji.errors import ConfigError
from gaji.io import fsync_dir

from .layout import MANIFEST, backup_dir

__all__ = ["check_target", "swap_in"]


def check_target(out: Path) -> None:
    """ConfigError unless `out` is absent, an empty folder or an index (a build may replace only those)."""
    if out.exists():
        if not out.is_dir():
            raise ConfigError(f"{out} exists and is not a folder")
        if not (out / MANIFEST).exists() and any(out.iterdir()):
            raise ConfigError(f"{out} exists, is not empty and is not a gaji index: refusing to overwrite it")


def swap_in(tmp: Path, out: Path) -> None:
    """Move the finished folder `tmp` to `out`, replacing an old index there."""
    if out.exists():
        backup = backup_dir(out)
        if backup.exists():
            shutil.rmtree(backup)
        os.rename(out, backup)
        os.rename(tmp, out)
        shutil.rmtree(backup, ignore_errors=True)
    else:
        os.rename(tmp, out)
    fsync_dir(out.parent)  # the renames are durable only once the parent folder is synced

