"""The indexes a server answers over, by name. Clients never see or send a path.

    gaji serve --index hotpot=runs/hotpot --index runs/koblex     # names: hotpot, koblex

Each name holds one `Gaji` (its index, its retrievers); every `Gaji` shares the server's one LLM
backend. An on-disk index is read one committed generation at a time (gaji.index.generations): when a
request finds a newer one (written by an upload, or by `gaji index add` from a shell), the name gets a
new `Gaji` over it, while questions already running finish on the generation they started with.
Uploads and removals are writers like any other (the index's writer lock across processes,
gaji.index.lock), so the server never loses what another process wrote. An index without generations
(an in-memory one) is changed under its read/write lock instead.
"""
from __future__ import annotations

import json
import re
import threading
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass, replace
from pathlib import Path
from typing import Any, Iterator

from gaji.api import Gaji
from gaji.config import Settings
from gaji.corpus.chunking import document_id_problem
from gaji.errors import ConfigError, InputError
from gaji.llm.base import LLMBackend
from gaji.text.normalize import normalize_text, surrogate_field
from gaji.types import Document

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_UPLOAD_ERRORS = 20


class UnknownIndex(ConfigError):
    """A request named an index the server does not have (HTTP 404)."""


class UploadInvalid(InputError):
    """A JSONL upload with bad lines; `errors` lists them (line, field, message), first ones first."""

    def __init__(self, errors: list[dict[str, Any]]):
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(first["message"] + more, path="upload", line=first["line"], field=first.get("field"))
        self.errors = errors


class RWLock:
    """Many readers or one writer; a waiting writer stops new readers (uploads are not starved)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


def parse_index_spec(spec: str) -> tuple[str, str]:
    """`NAME=DIR` or `DIR` (named after its last path component) -> (name, dir)."""
    name, sep, path = spec.partition("=")
    if not sep or not NAME_RE.match(name) or Path(spec).exists():
        path = spec
        name = Path(spec.rstrip("/\\")).name
    if not NAME_RE.match(name):
        raise ConfigError(f"--index {spec!r}: cannot make an index name from it; write NAME=DIR "
                          "(NAME: letters, digits, '_', '-', '.')")
    return name, path


class IndexSet:
    """Named `Gaji` objects. The first is the default; with none, retrieval-free methods still work."""

    def __init__(self, gajis: dict[str, Gaji], fallback: Gaji | None = None, backend: LLMBackend | None = None):
        """`fallback` answers when no index is named and there is none; `backend` is closed by `close`."""
        for n in gajis:
            if not NAME_RE.match(n):
                raise ConfigError(f"bad index name {n!r}")
        self._gajis = dict(gajis)
        self._locks = {n: RWLock() for n in gajis}
        self._fallback = fallback
        self._backend = backend
        self._switch_lock = threading.Lock()

    @classmethod
    def from_specs(cls, specs: list[str], settings: Settings, backend: LLMBackend) -> "IndexSet":
        gajis: dict[str, Gaji] = {}
        for spec in specs:
            name, path = parse_index_spec(spec)
            if name in gajis:
                raise ConfigError(f"two indexes are named {name!r}: write NAME=DIR to tell them apart")
            gajis[name] = Gaji(index=path, llm=backend, settings=replace(settings, index=path))
        return cls(gajis, fallback=Gaji(llm=backend, settings=replace(settings, index=None)), backend=backend)

    # -- lookup ------------------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self._gajis)

    @property
    def default(self) -> str | None:
        return next(iter(self._gajis), None)

    def resolve(self, name: str | None) -> str | None:
        """The index a request means: its name, else the default; UnknownIndex if there is no such."""
        if name is None:
            return self.default
        if name not in self._gajis:
            raise UnknownIndex(f"unknown index {name!r}; known: {', '.join(self._gajis) or '(none)'}")
        return name

    def gaji(self, name: str | None) -> Gaji:
        """The `Gaji` of an index, over its newest committed generation."""
        resolved = self.resolve(name)
        if resolved is None:
            if self._fallback is None:
                raise UnknownIndex("this server has no index")
            return self._fallback
        return self._current(resolved)

    def _current(self, name: str) -> Gaji:
        g = self._gajis[name]
        try:
            index = g.index
            stale = index is not None and callable(getattr(index, "is_current", None)) and not index.is_current()
        except Exception:  # noqa: BLE001 - a broken index is reported by the request that uses it
            return g
        if not stale:
            return g
        with self._switch_lock:
            if self._gajis[name] is g:  # not switched by another request meanwhile
                fresh = Gaji(llm=g.backend, settings=g.settings)
                fresh._index = index.reopen()  # the way gaji demo hands a Gaji an opened index
                self._gajis[name] = fresh
            return self._gajis[name]

    def lock(self, name: str | None) -> RWLock:
        """The index's read/write lock (a private, never-written one for the index-less fallback)."""
        return self._locks[name] if name in self._locks else _FALLBACK_LOCK

    def scrub(self, name: str | None, message: str) -> str:
        """A message for clients, with the index directory and other absolute paths hidden."""
        g = self._gajis.get(name) if name else None
        return scrub_text(message, g.settings.index if g is not None else None)

    def scrub_value(self, name: str | None, value: Any) -> Any:
        """A JSON value for clients (a table message's dict), every string scrubbed as `scrub` does."""
        g = self._gajis.get(name) if name else None
        return scrub(value, g.settings.index if g is not None else None)

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()

    # -- status and uploads --------------------------------------------------------------------
    def status(self, name: str) -> dict[str, Any]:
        """Chunks, documents and configuration of an index, with any filesystem path removed."""
        g = self.gaji(self.resolve(name))
        out: dict[str, Any] = {"name": name, "status": "ok", "config": {}}
        try:
            index = g.index
        except Exception as e:  # noqa: BLE001 - a broken index is reported, not raised
            return {**out, "status": "unavailable", "error": scrub_text(str(e), g.settings.index)}
        if index is not None:
            out.update(describe_index(index))
            out["config"] = scrub(out.get("config", {}), g.settings.index)
        return out

    def _write(self, name: str, op: str, *args: Any, **kw: Any) -> dict[str, Any]:
        """Run `index.<op>(*args, **kw)` on a named index: on a handle of its own for an on-disk index (the
        writer lock; questions go on meanwhile), else under the index's write lock."""
        resolved = self.resolve(name)
        assert resolved is not None
        index = self.gaji(resolved).index
        if index is None or not hasattr(index, op):
            raise ConfigError(f"index {name!r} does not accept {'documents' if op == 'add' else 'removals'}")
        if callable(getattr(index, "reopen", None)):
            result = getattr(index.reopen(), op)(*args, **kw)
            self._current(resolved)
        elif kw:  # only an on-disk index knows which documents a file had (gaji.index.writer)
            raise ConfigError(f"index {name!r} does not accept files")
        else:
            with self.lock(resolved).write():
                result = getattr(index, op)(*args)
        to_dict = getattr(result, "to_dict", None)
        return to_dict() if callable(to_dict) else {}

    def add_documents(self, name: str, docs: list[Document]) -> dict[str, Any]:
        """Add documents to a named index (`Index.add`); returns what the index reports it did (chunks
        added / replaced / unchanged …) when it says."""
        return self._write(name, "add", docs)

    def add_files(self, name: str, docs: list[Document], files: list[str],
                  blobs: dict[str, bytes] | None = None) -> dict[str, Any]:
        """Add the documents read from uploaded files: each file replaces every document it had before
        (ids ``FILE`` and ``FILE#…``; gaji.index.writer.add_documents `files`); `blobs` ({sha256: bytes}) are the
        files themselves, kept as the documents' originals when the index keeps originals."""
        return self._write(name, "add", docs, files=files, blobs=blobs or {})

    def chunking(self, name: str) -> dict[str, Any]:
        """The chunking settings an index was built with ({} for one without a manifest)."""
        manifest = getattr(self.gaji(self.resolve(name)).index, "manifest", None)
        config = getattr(manifest, "config", None)
        return dict(config.get("chunking") or {}) if isinstance(config, dict) else {}

    def documents(self, name: str, offset: int = 0, limit: int = 200) -> tuple[list[Any], int]:
        """The index's files and documents, refused files among them (gaji.serve.documents)."""
        from gaji.serve.documents import list_documents

        index = self.gaji(self.resolve(name)).index
        if index is None or not hasattr(index, "store"):
            return [], 0
        return list_documents(index, offset, limit)

    def passage(self, name: str, chunk_id: str) -> dict[str, Any] | None:
        """A chunk of the index in its document (gaji.serve.documents.passage_in_document)."""
        from gaji.serve.documents import passage_in_document

        index = self.gaji(self.resolve(name)).index
        if index is None or not hasattr(index, "get_chunk"):
            return None
        return passage_in_document(index, chunk_id)

    def index_dir(self, name: str) -> Path | None:
        """The folder of an on-disk index (None for an in-memory one); never shown to clients."""
        index = self.gaji(self.resolve(name)).index
        path = getattr(index, "path", None)
        return Path(path) if path is not None and hasattr(index, "reopen") else None

    def sync_file(self, name: str, file: str) -> dict[str, Any]:
        """Read the file `file` of an index again from where it was read (its folder is synced: new, changed and
        gone files of that folder follow). ConfigError when its original is not known or gone."""
        from gaji.messages import Msg
        from gaji.serve.documents import sync_target

        index = self.gaji(self.resolve(name)).index
        target = sync_target(index, file) if index is not None and hasattr(index, "store") else None
        if target is None:
            raise ConfigError(Msg("error.no_source", {"name": file}))
        return self._write(name, "sync", target)

    def remove_documents(self, name: str, ids: list[str]) -> dict[str, Any]:
        """Remove documents from a named index (`Index.remove`); an unknown id removes nothing
        (gaji.index.writer.UnknownDocuments)."""
        return self._write(name, "remove", ids)


_FALLBACK_LOCK = RWLock()


INFO_KEYS = ("created", "updated", "build_seconds", "counts", "versions", "analyzer_note", "size_bytes", "originals")


def describe_index(index: Any) -> dict[str, Any]:
    """Chunks, documents and configuration of an opened index (`Index.info()` where it has one)."""
    info_fn = getattr(index, "info", None)
    info = info_fn() if callable(info_fn) else {}
    info = info if isinstance(info, dict) else {}
    config = info.get("config") or getattr(index, "config", None) or {}
    if is_dataclass(config) and not isinstance(config, type):
        config = asdict(config)
    elif not isinstance(config, dict):
        config = {"value": str(config)}
    extra = {k: info[k] for k in INFO_KEYS if k in info}
    if info.get("sources"):  # file names only: where they live is nobody's business
        extra["sources"] = [Path(str(s)).name for s in info["sources"]]
    chunks = info.get("chunks")
    return {"chunks": chunks if isinstance(chunks, int) else _count(index), "documents": info.get("documents"),
            "config": {**config, **extra}}


def _count(obj: Any) -> int | None:
    for attr in ("num_chunks", "n_chunks", "size"):
        v = getattr(obj, attr, None)
        v = v() if callable(v) else v
        if isinstance(v, int):
            return v
    try:
        return len(obj)  # type: ignore[arg-type]
    except TypeError:
        return None


def scrub_text(text: str, root: str | None) -> str:
    """Hide the index directory (and other absolute paths) in a message meant for clients."""
    if root:
        text = text.replace(str(Path(root).resolve()), "<index>").replace(root, "<index>")
    return re.sub(r"(?<![\w.])/(?:[\w.~-]+/)+[\w.~-]*", "<path>", text)


def scrub(value: Any, root: str | None) -> Any:
    """A JSON value with every string scrubbed of paths (keys that are only paths are dropped)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, str) and (v.startswith("/") or (root and root in v)):
                continue
            out[k] = scrub(v, root)
        return out
    if isinstance(value, (list, tuple)):
        return [scrub(v, root) for v in value]
    if isinstance(value, str):
        return scrub_text(value, root)
    return json.loads(json.dumps(value, default=str))


# -- JSONL uploads ---------------------------------------------------------------------------------
def parse_documents_jsonl(data: bytes, max_errors: int = MAX_UPLOAD_ERRORS) -> list[Document]:
    """One document per line: {"id", "text", "title"?, "metadata"?, ...}; other fields go to metadata.

    Raises UploadInvalid listing the bad lines (1-based) when any line is bad; nothing is added then."""
    errors: list[dict[str, Any]] = []
    docs: list[Document] = []
    seen: dict[str, int] = {}

    def bad(line: int, message: str, field: str | None = None) -> None:
        errors.append({"line": line, "field": field, "message": message})

    for n, raw in enumerate(data.split(b"\n"), 1):
        if len(errors) >= max_errors:
            break
        if not raw.strip():
            continue
        try:
            text = normalize_text(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            bad(n, f"not UTF-8 (byte {e.start + 1})")
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            bad(n, f"not valid JSON: {e.msg} (column {e.colno})")
            continue
        if not isinstance(obj, dict):
            bad(n, "a line must be a JSON object")
            continue
        where = surrogate_field(obj)
        if where is not None:
            bad(n, "holds an unpaired surrogate (a \\ud800-\\udfff escape), which is not valid Unicode", where or None)
            continue
        doc = _document(obj, n, bad)
        if doc is None:
            continue
        if doc.id in seen:
            bad(n, f"duplicate id {doc.id!r} (first on line {seen[doc.id]})", "id")
            continue
        seen[doc.id] = n
        docs.append(doc)
    if errors:
        raise UploadInvalid(errors)
    if not docs:
        raise UploadInvalid([{"line": 1, "field": None, "message": "no documents in the upload"}])
    return docs


def _document(obj: dict[str, Any], n: int, bad: Any) -> Document | None:
    ok = True
    doc_id = obj.get("id")
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id.strip() or len(doc_id) > 256:
        bad(n, "'id' must be a non-empty string (at most 256 characters)", "id")
        ok = False
    elif document_id_problem(doc_id):
        bad(n, str(document_id_problem(doc_id)), "id")
        ok = False
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        bad(n, "'text' must be a non-empty string", "text")
        ok = False
    title = obj.get("title", "")
    if not isinstance(title, str):
        bad(n, "'title' must be a string", "title")
        ok = False
    meta = obj.get("metadata", {})
    if not isinstance(meta, dict):
        bad(n, "'metadata' must be an object", "metadata")
        ok = False
    if not ok:
        return None
    extra = {k: v for k, v in obj.items() if k not in ("id", "text", "title", "metadata", "source")}
    return Document(id=doc_id, text=text, title=title, metadata={**meta, **extra}, source="upload")
