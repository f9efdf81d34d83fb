"""The original files behind an index's documents, kept content-addressed inside the index folder.

    kept = keep_originals("runs/idx", records)        # copy each record's file, once per sha256 (atomic)
    gone = collect_originals("runs/idx", records)     # remove the copies no document of `records` names
    found = find_original("runs/idx", records, "보고서.pdf")   # the stored copy, or the source if unchanged

A document read from a file records where it came from and the sha256 of the whole file
(gaji.index.sources `doc_record`: ``source``, ``file_sha256``). `keep_originals` copies that file to
``originals/<sha[:2]>/<sha>`` in the index folder: the copy is hashed while it is written and kept only
when it still has the recorded sha256 (a file edited since it was read is not kept under the old
digest). Several documents of one file (``보고서.pdf#page3``) and identical files share one copy.
The folder belongs to the index folder, not to one generation (gaji.index.layout ROOT_ONLY): writers
copy before they commit and remove unreferenced copies after (gaji.index.generations `collect`, under
the writer lock), so a committed document's original is in place when readers see the document.

An index built with ``originals=False`` (`gaji index build --no-originals`) keeps no copies;
`find_original` then gives the file at its recorded source path, and only while it still has the
recorded sha256, so a link never serves a file other than the one that was indexed.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from gaji.io import atomic_open, fsync_dir

from .layout import DOCUMENTS, ORIGINALS

__all__ = ["KeptOriginals", "Original", "keep_originals", "collect_originals", "find_original", "stored_path",
           "originals_size", "keeps_originals", "records_of_file", "file_of_doc"]

_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
_UNIT_RE = re.compile(r"^(page|slide|sheet|sec)\d+$")
_BLOCK = 1 << 20


@dataclass
class KeptOriginals:
    """What `keep_originals` did, by sha256."""

    copied: list[str] = field(default_factory=list)  # new copies written
    shared: list[str] = field(default_factory=list)  # already stored (another document or an earlier run)
    changed: list[str] = field(default_factory=list)  # the file no longer has the digest it was read with
    missing: list[str] = field(default_factory=list)  # the file is gone from its source path
    bytes: int = 0  # written by this run

    def to_dict(self) -> dict[str, Any]:
        return {"copied": len(self.copied), "shared": len(self.shared), "changed": len(self.changed),
                "missing": len(self.missing), "bytes": self.bytes}


@dataclass
class Original:
    """The original file of an index's document, ready to serve."""

    path: Path  # the stored copy, or the file at its source path
    name: str  # the file's name as the index names it (``자료/보고서.pdf``)
    sha256: str
    size: int
    kept: bool  # True: the copy inside the index; False: the source file, checked against sha256


def keeps_originals(config: Mapping[str, Any]) -> bool:
    """Whether an index (its manifest's config) keeps copies of its files; on unless built with --no-originals."""
    return bool(config.get("originals", True))


def stored_path(root: str | Path, sha: str) -> Path:
    """Where the copy of the file with digest `sha` sits in the index folder `root` (ValueError: not a digest)."""
    if not _SHA_RE.match(sha or ""):
        raise ValueError(f"not a sha256 digest: {sha!r}")
    return Path(root) / ORIGINALS / sha[:2] / sha


def _wanted(records: Mapping[str, Mapping[str, Any] | None]) -> dict[str, str]:
    """{sha256: source path} of the records that name a file and its digest."""
    out: dict[str, str] = {}
    for rec in records.values():
        if not rec:
            continue
        sha, source = str(rec.get("file_sha256") or ""), str(rec.get("source") or "")
        if _SHA_RE.match(sha) and source and sha not in out:
            out[sha] = source
    return out


def _copy_checked(source: Path, dest: Path, sha: str) -> int | None:
    """Copy `source` to `dest` atomically, hashing what is copied; the bytes written, or None (nothing left
    behind) when the copy does not have the digest `sha`."""
    h = hashlib.sha256()
    size = 0

    class _Changed(Exception):
        pass

    try:
        with atomic_open(dest) as out, open(source, "rb") as f:
            for block in iter(lambda: f.read(_BLOCK), b""):
                h.update(block)
                size += len(block)
                out.write(block)
            if h.hexdigest() != sha:
                raise _Changed
    except _Changed:
        return None
    return size


def keep_originals(root: str | Path, records: Mapping[str, Mapping[str, Any] | None],
                   blobs: Mapping[str, bytes] | None = None) -> KeptOriginals:
    """Copy the file of every record (documents.json entries: ``source``, ``file_sha256``) into the index folder
    `root`, once per digest. A file that is gone or changed since it was read is not kept (listed instead).
    `blobs`: {sha256: bytes} of files that exist only in memory (uploaded to the server), kept when their bytes
    have that digest."""
    done = KeptOriginals()
    for sha, source in _wanted(records).items():
        dest = stored_path(root, sha)
        if dest.is_file():
            done.shared.append(sha)
            continue
        data = (blobs or {}).get(sha)
        if data is not None:
            if hashlib.sha256(data).hexdigest() != sha:
                done.changed.append(sha)
                continue
            with atomic_open(dest) as out:
                out.write(data)
            done.copied.append(sha)
            done.bytes += len(data)
            continue
        src = Path(source)
        if not src.is_file():
            done.missing.append(sha)
            continue
        try:
            size = _copy_checked(src, dest, sha)
        except FileNotFoundError:  # removed while being copied
            done.missing.append(sha)
            continue
        if size is None:
            done.changed.append(sha)
        else:
            done.copied.append(sha)
            done.bytes += size
    return done


def collect_originals(root: str | Path, records: Mapping[str, Mapping[str, Any] | None]) -> list[str]:
    """Remove the stored copies that no record of `records` (the committed generation's) names; the digests removed.
    The caller holds the writer lock."""
    folder = Path(root) / ORIGINALS
    if not folder.is_dir():
        return []
    keep = {str(r.get("file_sha256") or "") for r in records.values() if r}
    gone = []
    for sub in sorted(folder.iterdir()):
        if not sub.is_dir():
            sub.unlink(missing_ok=True)  # a stray file (an interrupted copy's temp file sits in a subfolder)
            continue
        for f in sorted(sub.iterdir()):
            if f.name.startswith("."):  # a copy being written by a writer that died: its temp file
                f.unlink(missing_ok=True)
            elif f.name not in keep:
                f.unlink(missing_ok=True)
                gone.append(f.name)
        if not any(sub.iterdir()):
            sub.rmdir()
    if gone:
        fsync_dir(folder)
    if not any(folder.iterdir()):
        shutil.rmtree(folder, ignore_errors=True)
    return gone


def originals_size(root: str | Path) -> tuple[int, int]:
    """(files, bytes) of the copies kept in the index folder `root`."""
    folder = Path(root) / ORIGINALS
    n = size = 0
    if folder.is_dir():
        for sub in folder.iterdir():
            if sub.is_dir():
                for f in sub.iterdir():
                    if not f.name.startswith("."):
                        n += 1
                        size += f.stat().st_size
    return n, size


def file_of_doc(doc_id: str) -> str:
    """The file a document id belongs to: ``보고서.pdf#page3`` -> ``보고서.pdf``; any other id is its own."""
    head, sep, unit = doc_id.rpartition("#")
    return head if sep and head and _UNIT_RE.match(unit) else doc_id


def records_of_file(parts_dir: str | Path, name: str) -> list[Mapping[str, Any]]:
    """The documents.json entries of the documents read from the file `name` of a generation's parts."""
    try:
        records = json.loads((Path(parts_dir) / DOCUMENTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(records, dict):
        return []
    return [r for d, r in records.items() if isinstance(r, dict) and file_of_doc(d) == name]


_hash_cache: dict[tuple[str, int, int, int], str] = {}
_hash_lock = threading.Lock()


def _source_digest(path: Path) -> str:
    """The sha256 of a source file, remembered by (path, inode, size, mtime) so a page full of links hashes it once."""
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _hash_lock:
        if key in _hash_cache:
            return _hash_cache[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_BLOCK), b""):
            h.update(block)
    digest = h.hexdigest()
    with _hash_lock:
        if len(_hash_cache) > 1000:
            _hash_cache.clear()
        _hash_cache[key] = digest
    return digest


def find_original(root: str | Path, parts_dir: str | Path, name: str) -> Original | None:
    """The original of the file `name` of the index at `root` (its committed parts in `parts_dir`): the stored
    copy, else the file at its recorded source path when it still has the recorded sha256; None otherwise
    (never kept and moved or edited since, or a document that did not come from a file)."""
    for rec in records_of_file(parts_dir, name):
        sha = str(rec.get("file_sha256") or "")
        if not _SHA_RE.match(sha):
            continue
        stored = stored_path(root, sha)
        if stored.is_file():
            return Original(stored, name, sha, stored.stat().st_size, True)
        source = Path(str(rec.get("source") or ""))
        try:
            if source.is_file() and _source_digest(source) == sha:
                return Original(source, name, sha, source.stat().st_size, False)
        except OSError:
            pass
    return None

