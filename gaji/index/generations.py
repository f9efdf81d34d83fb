"""Generations of an index: how a writer commits a new state, and how a reader keeps the one it opened.

    snap = snapshot("runs/idx")            # the committed manifest and the folder of its parts, pinned
    work = new_work_dir("runs/idx")        # a writer's own folder (unique name), under the writer lock
    copy_parts(snap.dir, work)             # ... then the writer changes its copy ...
    commit("runs/idx", work, manifest)     # work -> gen-N, then manifest.json replaced: the one switch
    collect("runs/idx")                    # generations nobody reads any more, leftovers of dead writers

The commit point is the index folder's manifest.json, replaced atomically: before the rename a reader
opens the old generation, after it the new one, and the parts of a generation never change once
committed. A reader pins the generation it opened with a shared flock on its chunk file; `collect`
(run by writers) deletes a generation only when it can take that file exclusively, so an open reader,
a running server, keeps its files until it lets go of them. Names: gaji.index.layout.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable

from gaji.errors import IndexUnusableError
from gaji.io import fsync_dir

from .layout import (CHUNKS, DOCUMENTS, FILL_DIR, FILL_PARTS, FILL_PLAN, GEN_PREFIX, MANIFEST, ORIGINALS, TMP_PREFIX,
                     generation_name, is_root_only)
from .manifest import (FORMAT_VERSION, FORMAT_VERSION_GENERATIONS, Manifest, read_manifest, rebuild_hint,
                       write_manifest)
from .originals import collect_originals, keeps_originals

__all__ = ["Snapshot", "snapshot", "signature", "data_dir", "new_work_dir", "copy_parts", "commit",
           "commit_manifest", "install", "collect", "parts_dir"]

OPEN_ATTEMPTS = 50  # a reader racing that many commits in a row gives up
NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)


def signature(root: str | Path) -> tuple[int, int, int] | None:
    """What identifies the committed manifest (each commit writes a new file); None when there is none."""
    try:
        st = os.stat(Path(root) / MANIFEST)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def data_dir(root: str | Path, m: Manifest) -> Path:
    """The folder holding the parts of the generation `m` describes."""
    return Path(root) / m.data if m.data else Path(root)


def parts_dir(root: str | Path) -> Path:
    """The folder of the committed generation's parts of the index at `root`; `root` itself when it holds
    no index (where a first build puts them) or is a folder of parts (a generation, a writer's copy)."""
    try:
        d = data_dir(root, read_manifest(root))
    except IndexUnusableError:
        return Path(root)
    return d if d.is_dir() else Path(root)


@dataclass
class Snapshot:
    """One committed generation, pinned while this object lives (or until `release`)."""

    root: Path
    manifest: Manifest
    dir: Path  # where its parts are
    signature: tuple[int, int, int] | None
    pin: IO[bytes] | None = field(default=None, repr=False)

    def release(self) -> None:
        if self.pin is not None:
            self.pin.close()
            self.pin = None


def _in_place(f: IO[bytes], path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(f.fileno())
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _pin(d: Path) -> IO[bytes]:
    """A shared lock on the chunk file of the parts in `d`; FileNotFoundError when they are gone."""
    path = d / CHUNKS
    f = open(path, "rb")
    try:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH)  # waits while a writer deletes this generation
        except OSError as e:
            if e.errno not in NO_LOCKS:
                raise  # else a filesystem without locks (read-only media): the generation is read unpinned
        if not _in_place(f, path):
            raise FileNotFoundError(path)
    except BaseException:
        f.close()
        raise
    return f


def snapshot(root: str | Path) -> Snapshot:
    """The committed generation of the index at `root`, pinned. IndexUnusableError when there is no index."""
    root = Path(root)
    for _ in range(OPEN_ATTEMPTS):
        sig = signature(root)
        m = read_manifest(root)
        d = data_dir(root, m)
        try:
            return Snapshot(root, m, d, sig, _pin(d))
        except FileNotFoundError:
            if signature(root) != sig:
                continue  # a writer committed between our two reads: open the new generation
            raise IndexUnusableError(f"{root}: the parts of this index are missing ({d / CHUNKS}); "
                              f"{rebuild_hint(root, m)}") from None
    raise IndexUnusableError(f"{root}: the index changed {OPEN_ATTEMPTS} times while it was being opened; try again")


def new_work_dir(root: str | Path) -> Path:
    """A new folder of this writer's own inside the index folder (removed by `collect` if left behind),
    readable by whoever can read the index folder."""
    work = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=root))
    os.chmod(work, stat.S_IMODE(os.stat(root).st_mode))
    return work


def copy_parts(src: Path, dst: Path, root: Path) -> None:
    """Copy the parts of a generation (the files in `src`, without its manifest) into `dst`."""
    for entry in src.iterdir():
        if entry.name == MANIFEST or (src == root and is_root_only(entry.name)):
            continue
        if entry.is_dir():
            shutil.copytree(entry, dst / entry.name)
        else:
            shutil.copy2(entry, dst / entry.name)


def commit_manifest(root: Path, m: Manifest) -> None:
    """The switch: replace the index folder's manifest (atomically) and make it durable."""
    write_manifest(root, m)
    fsync_dir(root)


def commit(root: str | Path, work: Path, m: Manifest, previous: int) -> Manifest:
    """Make the finished folder `work` (inside `root`) generation `previous + 1` and switch readers to it."""
    root = Path(root)
    n = previous + 1
    name = generation_name(n)
    if (root / name).exists():  # a writer died after renaming its folder, before switching to it
        shutil.rmtree(root / name)
    m.generation, m.data, m.format_version = n, name, FORMAT_VERSION_GENERATIONS
    write_manifest(work, m)  # a copy: the folder describes itself; readers read the index folder's
    fsync_dir(work)
    os.rename(work, root / name)
    fsync_dir(root)
    commit_manifest(root, m)
    return m


def _current_generation(root: Path) -> int:
    try:
        return read_manifest(root).generation
    except IndexUnusableError:
        return 0


def install(folder: Path, target: Path, m: Manifest) -> Manifest:
    """Put a finished index `folder` (beside `target`, same filesystem) in place as the next generation of
    `target`: renamed to it when there is nothing there, else committed inside it."""
    if not target.exists():
        m.generation, m.data, m.format_version = 1, "", FORMAT_VERSION
        write_manifest(folder, m)
        fsync_dir(folder)
        os.rename(folder, target)
        fsync_dir(target.parent)
        return m
    for entry in folder.iterdir():  # a lock file from when `target` did not exist is nobody's now
        if is_root_only(entry.name) and entry.name != MANIFEST:
            entry.unlink() if entry.is_file() else shutil.rmtree(entry)
    return commit(target, folder, m, _current_generation(target))


def _remove_unpinned(d: Path, remove: Callable[[], Any]) -> bool:
    """Run `remove` (of the parts in `d`) unless a reader pins them; False when one does."""
    try:
        f = open(d / CHUNKS, "rb")
    except FileNotFoundError:  # nothing a reader could pin: a half-deleted or unfinished folder
        remove()
        return True
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        remove()
        return True


def _remove_root_parts(root: Path) -> None:
    for entry in root.iterdir():
        if not is_root_only(entry.name):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def collect(root: str | Path) -> list[str]:
    """Delete what no reader needs (the caller holds the writer lock): work folders of writers that died,
    generations before the committed one that nobody pins. Returns what it deleted."""
    root = Path(root)
    try:
        m = read_manifest(root)
    except IndexUnusableError:
        return []
    keep = m.data
    gone: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(TMP_PREFIX) and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
            gone.append(entry.name)
        elif entry.name.startswith(GEN_PREFIX) and entry.name != keep and entry.is_dir():
            if _remove_unpinned(entry, lambda e=entry: shutil.rmtree(e)):
                gone.append(entry.name)
    if keep and any(not is_root_only(e.name) for e in root.iterdir()):  # the parts of the first build
        if _remove_unpinned(root, lambda: _remove_root_parts(root)):
            gone.append(".")
    gone += _stale_fill_parts(root, keep)
    gone += [f"{ORIGINALS}/{sha}" for sha in _unreferenced_originals(root, m)]
    return gone


def _unreferenced_originals(root: Path, m: Manifest) -> list[str]:
    """Remove the kept original files no document of the committed generation `m` names (all of them when the
    index no longer keeps originals)."""
    if not (root / ORIGINALS).is_dir():
        return []
    if not keeps_originals(m.config):
        return collect_originals(root, {})
    try:
        records = json.loads((root / m.data / DOCUMENTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a generation without documents.json names none: keep them all
        return []
    return collect_originals(root, records) if isinstance(records, dict) else []


def _stale_fill_parts(root: Path, keep: str) -> list[str]:
    """Checkpoints of fill plans the committed generation no longer has (an add joined them into a new
    plan, or the vectors are complete). A filler still at work on such a plan stops at its next checkpoint."""
    folder = root / FILL_PARTS
    if not folder.is_dir():
        return []
    try:
        plan = json.loads((root / keep / FILL_DIR / FILL_PLAN).read_text(encoding="utf-8"))
        current = f"parts-{plan['id']}"
    except (OSError, ValueError, TypeError, KeyError):
        current = None
    gone = []
    for d in folder.iterdir():
        if d.name != current:
            shutil.rmtree(d, ignore_errors=True)
            gone.append(f"{FILL_PARTS}/{d.name}")
    if not any(folder.iterdir()):
        folder.rmdir()
    return gone

