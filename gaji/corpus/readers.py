"""Corpus readers: files on disk -> `Document`s, with errors that name file, line and field.

Formats (chosen by path):
- ``*.jsonl``: one object per line with ``text`` (required), ``id`` and ``title``; every other key is kept
  in `Document.metadata`. A missing ``id`` becomes ``<file stem>-<line>``. Blank lines are ignored.
  The shared benchmark corpora (``<name>.corpus.jsonl``) are this format.
- ``*.json``: the official KorQuAD 1.0 file (``{"version", "data": [{"title", "paragraphs": [{"context",
  "qas"}]}]}``), converted in memory (never re-saved): one Document per paragraph with id
  ``korquad-{article_idx}-{paragraph_idx}`` (0-based) and the article title; or a JSON array of
  objects shaped like the JSONL lines.
- a folder: every document file under it, recursively (hidden ones skipped): ``.txt`` / ``.md`` /
  ``.markdown`` and the formats of `gaji.corpus.formats` (PDF, HWP, HWPX, DOCX, PPTX, XLSX, HTML),
  recognised by content as well as extension. Other files (images, JSONL, ...) are ignored and counted.
  Ids are the path relative to the folder (``notes/a.md``), with a unit suffix where a file makes
  several Documents (``report.pdf#page3``, ``deck.pptx#slide2``, ``budget.xlsx#sheet1``,
  ``guide.docx#sec2``). A .txt/.md title is its first Markdown heading (or front-matter ``title``),
  else the file name. A Markdown file with ``#`` headings makes one Document per section
  (``notes.md#sec2``, `read_text_documents`).
- a single document file: its Documents, ids as above with the file name.

Documents read from files carry a `Location` (file, sha256 of the file, page / slide / sheet / section).

Text is read in NFC (`gaji.text.normalize`): a document decomposed into jamo (NFD) is stored, searched
and shown like the same text typed on a keyboard.

Bad input (malformed JSON, missing or empty ``text``, a file that is not UTF-8, duplicate ids, an
empty corpus) raises `InputError`. With ``skip_bad=True`` bad records are skipped and listed in the
returned `ReadReport` instead (an empty corpus is still an error). A file that cannot be read
(damaged, encrypted, empty, wrong content for its extension) does not stop the reading: every such
file is listed with its reason in ``report.skipped`` (``report.refused()``) and the good files are
returned, a partial read (``report.partial``). ``strict=True`` keeps all-or-nothing: `read_documents`
then raises one `InputError` naming every unreadable file. When nothing at all could be read, the
error names the refused files and their reasons (not just "empty corpus").
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaji.corpus.chunking import document_id_problem
from gaji.errors import InputError
from gaji.text.normalize import normalize_keeping_offsets, normalize_text, surrogate_field
from gaji.types import Document, Location

__all__ = [
    "Skipped",
    "ReadReport",
    "read_documents",
    "iter_documents",
    "read_jsonl",
    "read_json",
    "read_folder",
    "read_text_file",
    "read_text_documents",
    "read_korquad",
    "is_korquad",
    "TEXT_SUFFIXES",
]

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
SURROGATE = "holds an unpaired surrogate (a \\ud800-\\udfff escape), which is not valid Unicode"


@dataclass
class Skipped:
    """One record left out by ``skip_bad=True``."""

    path: str
    line: int | None
    field: str | None
    reason: str
    record_id: str | None = None  # the "id" of a record left out for its text (gaji eval sets its gold references aside)
    whole_file: bool = False  # a file that could not be read at all (not one bad record of it)
    # the reason as a message of the table (gaji.messages.Msg.to_dict), so it can be shown in Korean; None: English only
    msg: dict[str, Any] | None = None

    def reason_in(self, lang: str | None) -> str:
        """The reason in `lang` where the message table has it, else as recorded."""
        from gaji.messages import Msg

        m = Msg.from_dict(self.msg)
        return m.text(lang) if m is not None else self.reason

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line is not None else "")
        if self.field:
            where += f" (field {self.field!r})"
        return f"{where}: {self.reason}"


@dataclass
class ReadReport:
    """What a read produced: document count per file and every record skipped."""

    documents: int = 0
    files: dict[str, int] = field(default_factory=dict)  # source path -> documents read from it
    skipped: list[Skipped] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # read, but worth telling: "a.pdf: 2 scanned page(s) ..."
    ignored: dict[str, int] = field(default_factory=dict)  # extension -> files in folders no reader takes
    unreadable: int = 0  # files (not records) that could not be read; they are in `skipped` too
    # path -> the limit a refused file hit (gaji.corpus.formats.limits), to tell it in the reader's language
    refusals: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        s = f"{self.documents} documents from {len(self.files)} source(s)"
        if self.skipped:
            s += f"; skipped {len(self.skipped)} bad record(s)"
            if self.unreadable:
                s += f" ({self.unreadable} unreadable file(s))"
        return s

    def refused(self) -> list[Skipped]:
        """The whole files that could not be read, each with its reason (bad records are not in it)."""
        return [s for s in self.skipped if s.whole_file]

    @property
    def partial(self) -> bool:
        """Whether something was left out: an unreadable file or a skipped record."""
        return bool(self.skipped)

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "files": dict(self.files),
            "skipped": [vars(s) for s in self.skipped],
            "refused": [{"path": s.path, "reason": s.reason} for s in self.refused()],
            "notices": list(self.notices),
            "ignored": dict(self.ignored),
        }


class _Ctx:
    """Error handling shared by the readers: raise, or record and skip; and how document files are read
    (`read_file(path, rel)`: in this process, or in a limited worker for untrusted files)."""

    def __init__(self, skip_bad: bool, report: ReadReport, read_file: Any = None):
        self.skip_bad = skip_bad
        self.report = report
        self.read_file = read_file

    def bad(self, message: str, path: Path | str, line: int | None = None, field: str | None = None,
            record_id: str | None = None) -> None:
        if not self.skip_bad:
            raise InputError(message + " (--skip-bad / skip_bad=True skips bad records)", path=str(path), line=line, field=field)
        self.report.skipped.append(Skipped(str(path), line, field, message, record_id))

    def unreadable(self, message: Any, path: Path | str, line: int | None = None, msg: dict | None = None) -> None:
        """A whole file that cannot be read: recorded, and reading goes on (see `read_documents`). `message`
        may be a gaji.messages.Msg (then the record keeps it, to be shown in the reader's language)."""
        from gaji.messages import Msg

        if isinstance(message, Msg):
            msg = message.to_dict()
        self.report.unreadable += 1
        self.report.skipped.append(Skipped(str(path), line, None, str(message), whole_file=True, msg=msg))


# ---------------------------------------------------------------------------------------------
# records (JSONL lines, JSON array items)
# ---------------------------------------------------------------------------------------------


def _doc_from_record(
    rec: Any, path: Path, line: int | None, ctx: _Ctx, default_id: str, where: str = ""
) -> Document | None:
    """Validate one {id, title, text, ...} record; None when it was skipped."""
    pre = where  # field prefix for JSON arrays: "[3]."
    if not isinstance(rec, dict):
        ctx.bad(f"expected a JSON object, got {type(rec).__name__}", path, line, pre.rstrip(".") or None)
        return None
    raw_id = rec.get("id")
    usable_id = None
    if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool):
        usable_id = str(raw_id).strip() or None

    def bad_text(message: str) -> None:  # the record is named in the report, so its gold references can be found
        ctx.bad(message, path, line, pre + "text", record_id=usable_id)

    bad_field = surrogate_field(rec)
    if bad_field is not None:
        ctx.bad(SURROGATE, path, line, (pre + bad_field) or None, record_id=usable_id)
        return None

    if "text" not in rec or rec["text"] is None:
        bad_text("missing 'text'")
        return None
    text = rec["text"]
    if not isinstance(text, str):
        bad_text(f"'text' must be a string, got {type(text).__name__}")
        return None
    if not text.strip():
        bad_text("empty 'text'")
        return None
    if raw_id is None:
        doc_id = default_id
    elif isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
        ctx.bad(f"'id' must be a string or an integer, got {type(raw_id).__name__}", path, line, pre + "id")
        return None
    else:
        doc_id = str(raw_id).strip()
        if not doc_id:
            ctx.bad("empty 'id'", path, line, pre + "id")
            return None
    title = rec.get("title")
    if title is None:
        title = ""
    elif isinstance(title, (int, float)) and not isinstance(title, bool):
        title = str(title)
    elif not isinstance(title, str):
        ctx.bad(f"'title' must be a string, got {type(title).__name__}", path, line, pre + "title")
        return None
    meta = {k: v for k, v in rec.items() if k not in ("id", "title", "text")}
    return Document(id=doc_id, text=text, title=title.strip(), metadata=meta, source=str(path))


def read_jsonl(path: str | Path, *, skip_bad: bool = False, report: ReadReport | None = None) -> Iterator[tuple[Document, int]]:
    """(Document, line) pairs from a JSONL file."""
    path = Path(path)
    ctx = _Ctx(skip_bad, report if report is not None else ReadReport())
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                line = normalize_text(raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                ctx.bad(f"not valid UTF-8 (byte {e.start + 1} of the line); convert the file to UTF-8", path, lineno)
                continue
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                ctx.bad(f"malformed JSON: {e.msg} (column {e.colno})", path, lineno)
                continue
            doc = _doc_from_record(rec, path, lineno, ctx, default_id=f"{path.stem}-{lineno}")
            if doc is not None:
                yield doc, lineno


def _load_json(path: Path, ctx: _Ctx) -> Any:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            "not valid UTF-8; convert the file to UTF-8", path=str(path), line=data[: e.start].count(b"\n") + 1
        ) from None
    try:
        return json.loads(normalize_text(text))
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (column {e.colno})", path=str(path), line=e.lineno) from None


def is_korquad(obj: Any) -> bool:
    """Whether a parsed JSON value looks like a KorQuAD/SQuAD file."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("data"), list)
        and all(isinstance(a, dict) and "paragraphs" in a for a in obj["data"][:3])
    )


def read_korquad(
    path: str | Path, *, skip_bad: bool = False, report: ReadReport | None = None, data: Any = None
) -> Iterator[tuple[Document, int | None]]:
    """Paragraphs of a KorQuAD 1.0 (SQuAD-format) file as Documents ``korquad-{a}-{p}``."""
    path = Path(path)
    ctx = _Ctx(skip_bad, report if report is not None else ReadReport())
    if data is None:
        data = _load_json(path, ctx)
    if not is_korquad(data):
        raise InputError("not a KorQuAD/SQuAD file (expected {'data': [{'title', 'paragraphs'}]})", path=str(path))
    version = data.get("version", "")
    for a_idx, article in enumerate(data["data"]):
        title = article.get("title") if isinstance(article, dict) else None
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            ctx.bad("'paragraphs' must be a list", path, None, f"data[{a_idx}].paragraphs")
            continue
        for p_idx, para in enumerate(paragraphs):
            where = f"data[{a_idx}].paragraphs[{p_idx}].context"
            context = para.get("context") if isinstance(para, dict) else None
            if not isinstance(context, str) or not context.strip():
                ctx.bad("missing or empty 'context'", path, None, where)
                continue
            if surrogate_field([context, title]) is not None:
                ctx.bad(SURROGATE, path, None, where)
                continue
            yield Document(
                id=f"korquad-{a_idx}-{p_idx}",
                text=context,
                title=str(title or "").strip(),
                metadata={"dataset": "korquad", "version": version, "article": a_idx, "paragraph": p_idx},
                source=str(path),
            ), None


def read_json(path: str | Path, *, skip_bad: bool = False, report: ReadReport | None = None) -> Iterator[tuple[Document, int | None]]:
    """A .json file: KorQuAD/SQuAD, or an array of {id, title, text} objects."""
    path = Path(path)
    ctx = _Ctx(skip_bad, report if report is not None else ReadReport())
    data = _load_json(path, ctx)
    if is_korquad(data):
        yield from read_korquad(path, skip_bad=skip_bad, report=ctx.report, data=data)
        return
    if not isinstance(data, list):
        raise InputError(
            "a .json corpus must be a KorQuAD/SQuAD file or an array of {id, title, text} objects", path=str(path)
        )
    for i, rec in enumerate(data):
        doc = _doc_from_record(rec, path, None, ctx, default_id=f"{path.stem}-{i + 1}", where=f"[{i}].")
        if doc is not None:
            yield doc, None


# ---------------------------------------------------------------------------------------------
# plain-text files and folders
# ---------------------------------------------------------------------------------------------

_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split an optional YAML front-matter block (``---`` ... ``---``) off a Markdown text."""
    if not text.startswith("---"):
        return {}, text
    m = re.match(r"---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", text, re.S)
    if not m:
        return {}, text
    try:
        import yaml

        meta = yaml.safe_load(m.group(1))
    except Exception:
        return {}, text
    if not isinstance(meta, dict):
        return {}, text
    return {str(k): v for k, v in meta.items()}, text[m.end() :]


def read_text_file(
    path: str | Path, root: str | Path | None = None, *, skip_bad: bool = False, report: ReadReport | None = None
) -> Document | None:
    """One .txt/.md file as a Document (id = path relative to `root`, or the file name)."""
    path = Path(path)
    ctx = _Ctx(skip_bad, report if report is not None else ReadReport())
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        ctx.bad("not valid UTF-8; convert the file to UTF-8", path, data[: e.start].count(b"\n") + 1)
        return None
    text = normalize_text(text)
    meta: dict[str, Any] = {}
    title = ""
    if path.suffix.lower() in (".md", ".markdown"):
        meta, text = _front_matter(text)
        title = str(meta.pop("title", "") or "")
        if not title:
            for line in text.splitlines()[:50]:
                m = _HEADING_RE.match(line)
                if m:
                    title = m.group(1).strip()
                    break
    if not text.strip():
        ctx.bad("empty file", path, None, "text")
        return None
    # file names from macOS are NFD: the id and the fallback title are normalised like the text
    doc_id = normalize_text(path.relative_to(root).as_posix() if root is not None else path.name)
    loc = Location(file=doc_id, sha256=hashlib.sha256(data).hexdigest())
    return Document(id=doc_id, text=text, title=title or normalize_text(path.stem), metadata=meta, source=str(path),
                    location=loc)


def read_text_documents(
    path: str | Path, root: str | Path | None = None, *, skip_bad: bool = False, report: ReadReport | None = None
) -> list[Document]:
    """A .txt/.md file as Documents: one, or for Markdown with ``#`` headings one per section.

    A Markdown file whose headings make several sections (gaji.corpus.formats.markdown) gives Documents
    ``notes.md#sec1``, ``#sec2`` … titled ``file title › section › subsection``, each with its heading
    path in ``location.section``; a file of one section keeps the file's id and its whole text.
    """
    from gaji.corpus.formats.markdown import markdown_sections

    doc = read_text_file(path, root, skip_bad=skip_bad, report=report)
    if doc is None or Path(path).suffix.lower() not in (".md", ".markdown"):
        return [doc] if doc is not None else []
    pieces = markdown_sections(doc.text)
    if len(pieces) <= 1 and all(not section for section, _ in pieces):
        return [doc]
    out = []
    for n, (section, text) in enumerate(pieces, 1):
        loc = dataclasses.replace(doc.location, section=list(section)) if doc.location is not None else None
        shown = section[1:] if section and section[0] == doc.title else section  # the title once, not twice
        out.append(dataclasses.replace(doc, id=f"{doc.id}#sec{n}", text=text, location=loc,
                                       title=" \u203a ".join([doc.title, *shown]), metadata=dict(doc.metadata)))
    return out


def _read_document_file(path: Path, root: Path | None, ctx: _Ctx) -> Iterator[Document]:
    """The Documents of one file in a folder (or named alone): read by its content's format.

    A file no reader takes yields nothing (counted in ``report.ignored`` when in a folder); a file
    that cannot be read is recorded with `_Ctx.unreadable` and yields nothing.
    """
    from gaji.corpus.formats import LimitExceeded, Unreadable
    from gaji.corpus.formats.limits import ReadLimits
    from gaji.corpus.formats.worker import read_in_process

    rel = normalize_text(path.relative_to(root).as_posix() if root is not None else path.name)
    read_file = ctx.read_file or (lambda p, r: read_in_process(p, r, ReadLimits()))
    try:
        out = read_file(path, rel)
    except Unreadable as e:
        if isinstance(e, LimitExceeded):
            ctx.report.refusals[str(path)] = e.refusal
        ctx.unreadable(getattr(e, "msg", None) or str(e), path)
        return
    except OSError as e:
        ctx.unreadable(f"cannot be opened ({e.strerror or e})", path)
        return
    fmt, notice = out.fmt, out.notice
    if fmt is None:
        if root is None:
            raise InputError(
                f"unknown corpus format {path.suffix.lower() or '(no extension)'!r}; use .jsonl, .json (KorQuAD), "
                ".txt, .md, .pdf, .hwp, .hwpx, .docx, .pptx, .xlsx, .html or a folder",
                path=str(path),
            )
        ext = path.suffix.lower() or "(no extension)"
        ctx.report.ignored[ext] = ctx.report.ignored.get(ext, 0) + 1
        return
    if notice:
        ctx.report.notices.append(f"{path}: {notice}")
    if fmt == "text":
        scratch = ReadReport()
        docs = read_text_documents(path, root, skip_bad=True, report=scratch)
        for s in scratch.skipped:
            ctx.unreadable(s.reason, s.path, s.line, msg=s.msg)
        yield from docs
        return
    ctx.report.notices.extend(f"{path}: {n}" for n in out.notices)
    for d in out.docs:  # PDF and HWP extractors often hand out decomposed (NFD) Hangul
        yield _nfc_document(d)


def _nfc_document(d: Document) -> Document:
    """A Document read from a file, in NFC: its text (table-row spans moved with it), title and location labels."""
    text, at = normalize_keeping_offsets(d.text, [x for r in d.table_rows for x in (r.start, r.end)])
    rows = [dataclasses.replace(r, start=at[r.start], end=at[r.end]) for r in d.table_rows]
    loc = d.location
    if loc is not None:
        loc = dataclasses.replace(loc, section=[normalize_text(s) for s in loc.section],
                                  sheet=normalize_text(loc.sheet) if loc.sheet else loc.sheet)
    return dataclasses.replace(d, text=text, title=normalize_text(d.title), table_rows=rows, location=loc)


def _walk_folder(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def read_folder(path: str | Path, *, skip_bad: bool = False, report: ReadReport | None = None,
                read_file: Any = None) -> Iterator[tuple[Document, int | None]]:
    """Every document file under a folder, in path order (hidden files and folders skipped).

    Unreadable files are recorded in ``report.skipped`` (and ``report.unreadable``) and the rest is
    read; `read_documents` turns them into an error unless ``skip_bad``.
    """
    root = Path(path)
    ctx = _Ctx(skip_bad, report if report is not None else ReadReport(), read_file)
    for p in _walk_folder(root):
        if p.suffix.lower() in (".jsonl", ".json"):  # record corpora are named explicitly, never collected
            ctx.report.ignored[p.suffix.lower()] = ctx.report.ignored.get(p.suffix.lower(), 0) + 1
            continue
        for doc in _read_document_file(p, root, ctx):
            yield doc, None


# ---------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------


def iter_documents(
    path: str | Path, *, skip_bad: bool = False, report: ReadReport | None = None, read_file: Any = None
) -> Iterator[tuple[Document, int | None]]:
    """(Document, line-or-None) pairs from one source, by its kind (see the module docstring).

    `read_file(path, rel) -> FileOutcome` reads a document file (default: in this process, default limits).
    Duplicate ids and empty corpora are checked by `read_documents`, not here.
    """
    p = Path(path)
    if not p.exists():
        raise InputError("no such file or folder", path=str(p))
    if p.is_dir():
        yield from read_folder(p, skip_bad=skip_bad, report=report, read_file=read_file)
        return
    suffix = p.suffix.lower()
    if suffix == ".jsonl":
        yield from read_jsonl(p, skip_bad=skip_bad, report=report)
    elif suffix == ".json":
        yield from read_json(p, skip_bad=skip_bad, report=report)
    elif suffix in TEXT_SUFFIXES:
        for doc in read_text_documents(p, None, skip_bad=skip_bad, report=report):
            yield doc, None
    else:
        ctx = _Ctx(skip_bad, report if report is not None else ReadReport(), read_file)
        for doc in _read_document_file(p, None, ctx):
            yield doc, None


def _unreadable_error(report: ReadReport, strict: bool, limit: int = 20) -> InputError:
    files = report.refused()
    hint = " (without --strict / strict=True the other files are indexed and these listed)" if strict else ""
    if len(files) == 1:
        s = files[0]
        from gaji.messages import Msg

        reason = Msg.from_dict(s.msg)
        if reason is not None:
            return InputError(Msg("read.strict_hint", {"reason": reason}) if strict else reason, path=s.path, line=s.line)
        return InputError(s.reason + hint, path=s.path, line=s.line)
    lines = [f"  {s}" for s in files[:limit]]
    if len(files) > limit:
        lines.append(f"  ... and {len(files) - limit} more")
    what = "could not be read" + hint if strict else "could not be read, and there is nothing else to index"
    return InputError(f"{len(files)} files {what}:\n" + "\n".join(lines))


@contextlib.contextmanager
def _file_reader(limits: Any, isolate: bool) -> Iterator[Any]:
    """`read_file(path, rel) -> FileOutcome` under `limits`: in a worker process when `isolate`, which is
    stopped when the read is over."""
    from gaji.corpus.formats.limits import default_limits
    from gaji.corpus.formats.worker import IsolatedReader, read_in_process

    limits = limits or default_limits()
    if not isolate:
        yield lambda path, rel: read_in_process(path, rel, limits)
        return
    with IsolatedReader(limits) as reader:
        yield reader.read


def read_documents(
    sources: Iterable[str | Path | Document] | str | Path,
    *,
    skip_bad: bool = False,
    limit: int | None = None,
    allow_empty: bool = False,
    strict: bool = False,
    limits: Any = None,
    isolate: bool = False,
) -> tuple[list[Document], ReadReport]:
    """Read every source (paths and/or Document objects) into one list of Documents.

    A file that cannot be read is listed in ``report.skipped`` with its reason and the others are read
    (a partial read, ``report.partial``); ``strict=True`` makes any such file an error instead.
    Document files (PDF, HWP, DOCX …) are read under `limits` (a gaji.corpus.formats.ReadLimits; default: the
    settings' `read_limits`); `isolate` reads them in a limited worker process (untrusted files: uploads, the
    folders `gaji index build` and `sync` read), so no file can exhaust this process.

    Duplicate ids are an error naming both places (with ``skip_bad`` the later one is skipped).
    An empty result is an error (unless `allow_empty`: a folder synced after its last file went).
    `limit` keeps only the first N documents. A document id of the form of a chunk id (``doc#3``) is a
    bad record (gaji.corpus.chunking.document_id_problem).
    """
    if isinstance(sources, (str, Path)):
        sources = [sources]
    report = ReadReport()
    docs: list[Document] = []
    seen: dict[str, str] = {}  # id -> "path:line" where first seen
    names: list[str] = []
    ctx = _Ctx(skip_bad, report)

    def accept(doc: Document, where: str, path: str, line: int | None) -> bool:
        problem = document_id_problem(doc.id)
        if problem:
            ctx.bad(problem, path, line, "id")
            return False
        if doc.id in seen:
            ctx.bad(f"duplicate id {doc.id!r} (first at {seen[doc.id]})", path, line, "id")
            return False
        seen[doc.id] = where
        docs.append(doc)
        report.files[path] = report.files.get(path, 0) + 1
        return True

    with _file_reader(limits, isolate) as read_file:
        for src in sources:
            if limit is not None and len(docs) >= limit:
                break
            if isinstance(src, Document):
                names.append(f"<Document {src.id}>")
                if not src.text or not src.text.strip():
                    ctx.bad("empty 'text'", src.source or "<documents>", None, "text")
                    continue
                accept(src, src.source or "<documents>", src.source or "<documents>", None)
                continue
            path = str(src)
            names.append(path)
            report.files.setdefault(path, 0)
            for doc, line in iter_documents(path, skip_bad=skip_bad, report=report, read_file=read_file):
                where = path + (f":{line}" if line is not None else "")
                accept(doc, where, path, line)
                if limit is not None and len(docs) >= limit:
                    break
    report.documents = len(docs)
    if report.unreadable and strict:
        raise _unreadable_error(report, strict=True)
    if report.unreadable and not docs and not allow_empty:
        raise _unreadable_error(report, strict=False)
    if not docs and not allow_empty:
        detail = f" ({len(report.skipped)} bad record(s) skipped)" if report.skipped else ""
        raise InputError(f"empty corpus: no documents found{detail}", path=", ".join(names) or "<no sources>")
    return docs, report
