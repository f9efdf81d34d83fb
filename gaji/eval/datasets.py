"""Question sets for evaluation, from a known name or from a file in one of the supported formats.

    ds = load_dataset("hotpotqa")               # ../shared/data/hotpotqa.jsonl (+ .corpus.jsonl)
    ds = load_dataset("path/to/hotpot_dev_distractor_v1.json")
    for item in ds.items: item.question, item.answers, item.gold

Formats (detected from the content, not the file name):

- gaji JSONL (/work/shared/data/README.md): {"id", "question", "answers", "supporting":
  [{"doc_id", "title", "text"}], "type", ...}; KoBLEX `background` is prepended to the question.
  The corpus is `<stem>.corpus.jsonl` beside it when present.
- KorQuAD 1.0 / SQuAD JSON ({"version", "data": [{"title", "paragraphs": [{"context", "qas"}]}]}),
  converted in memory at load time and never re-saved (CC BY-ND); paragraph ids
  `korquad-{article_idx}-{paragraph_idx}`.
- HotpotQA and 2WikiMultihopQA official JSON (a list of {"_id", "question", "answer",
  "supporting_facts", "context": [[title, [sentences]]]}).
- MuSiQue official JSONL ({"id", "question", "answer", "answer_aliases", "paragraphs":
  [{"idx", "title", "paragraph_text", "is_supporting"}]}).

The official formats carry their own paragraphs: `Dataset.documents` holds them (pooled over all
questions, deduplicated), ready for `gaji.index.build.build_index`.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from gaji.errors import ConfigError, InputError
from gaji.eval.metrics.retrieval import GoldRef
from gaji.io import file_sha256, iter_jsonl  # noqa: F401  (file_sha256: also this module's name for it)
from gaji.text.lang import detect_lang
from gaji.types import Document


@dataclass(frozen=True)
class KnownSet:
    questions: str  # file name in the data folder
    corpus: str | None  # corpus file name, None when the set has none
    long_form: bool = False  # score with ROUGE-L


KNOWN_DATASETS: dict[str, KnownSet] = {
    "hotpotqa": KnownSet("hotpotqa.jsonl", "hotpotqa.corpus.jsonl"),
    "2wikimultihopqa": KnownSet("2wikimultihopqa.jsonl", "2wikimultihopqa.corpus.jsonl"),
    "musique": KnownSet("musique.jsonl", "musique.corpus.jsonl"),
    "bamboogle": KnownSet("bamboogle.jsonl", None),
    "asqa": KnownSet("asqa.jsonl", "asqa.corpus.jsonl", long_form=True),
    "odsum_story": KnownSet("odsum_story.jsonl", "odsum_story.corpus.jsonl", long_form=True),
    "koblex": KnownSet("koblex.jsonl", "koblex.corpus.jsonl", long_form=True),
    "korquad": KnownSet("KorQuAD_v1.0_dev.json", None),  # corpus = its own paragraphs
}
ALIASES = {"2wiki": "2wikimultihopqa", "korquad1": "korquad", "korquad_v1": "korquad", "odsum": "odsum_story"}

# A set whose gold answers average more words than this is scored with ROUGE-L too.
LONG_FORM_WORDS = 12


@dataclass
class EvalItem:
    """One question as evaluated."""

    id: str
    question: str  # as asked (KoBLEX: background + question)
    answers: list[str] = field(default_factory=list)  # every acceptable answer; may be empty
    gold: list[GoldRef] = field(default_factory=list)  # supporting paragraphs
    lang: str = ""
    type: str = ""
    line: int = 0  # 1-based line (JSONL) or entry index (JSON) in the source file

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "question": self.question,
            "answers": list(self.answers),
            "gold": [{"doc_id": g.doc_id, "title": g.title} for g in self.gold],
            "lang": self.lang,
            "type": self.type,
        }


@dataclass
class Dataset:
    name: str
    path: Path
    format: str  # "gaji" | "korquad" | "hotpotqa" | "2wikimultihopqa" | "musique"
    items: list[EvalItem]
    sha256: str
    corpus_path: Path | None = None  # a corpus JSONL on disk (gaji format)
    documents: list[Document] | None = None  # paragraphs carried by an official-format file
    long_form: bool = False
    # a set asked over another known set's corpus (KoMultiHop over KorQuAD): its index is cached under that
    # set's name, and its paragraphs are that set's (with that set's licence)
    corpus_name: str | None = None

    @property
    def has_corpus(self) -> bool:
        return self.corpus_path is not None or bool(self.documents)

    def corpus_source(self) -> list[Any]:
        """What to give `build_index`: [corpus path] or the in-memory documents."""
        if self.corpus_path is not None:
            return [str(self.corpus_path)]
        return list(self.documents or [])

    def corpus_fingerprint(self) -> str:
        if self.corpus_path is not None:
            return file_sha256(self.corpus_path)
        h = hashlib.sha256()
        for d in self.documents or []:
            h.update(f"{d.id}\t{d.title}\t{d.text}\n".encode("utf-8"))
        return h.hexdigest()

    def limited(self, limit: int | None) -> list[EvalItem]:
        return self.items if not limit or limit <= 0 else self.items[:limit]


# -- locating ------------------------------------------------------------------
def data_dir() -> Path | None:
    """The shared data folder ($GAJI_DATA, else ../shared/data), or None when absent."""
    try:
        from gaji.corpus.shared_data import find_data_dir

        return find_data_dir()
    except ImportError:
        pass
    env = os.environ.get("GAJI_DATA")
    cands = [Path(env)] if env else [Path.cwd().parent / "shared" / "data",
                                     Path(__file__).resolve().parents[2].parent / "shared" / "data"]
    for c in cands:
        if c.is_dir():
            return c
    return None


def canonical_name(name: str) -> str | None:
    n = name.strip().lower()
    n = ALIASES.get(n, n)
    return n if n in KNOWN_DATASETS else None


def known_names() -> list[str]:
    return sorted(KNOWN_DATASETS)


def _locate_known(name: str) -> tuple[Path, Path | None]:
    try:  # the shared-data module (gaji.corpus.shared_data) knows where the files live
        from gaji.corpus.shared_data import dataset_paths

        q, c = dataset_paths(name)
        return Path(q), (Path(c) if c else None)
    except (ImportError, AttributeError):
        pass
    except ConfigError:
        pass
    d = data_dir()
    spec = KNOWN_DATASETS[name]
    if d is None:
        raise ConfigError(
            f"dataset {name!r}: data folder not found (set GAJI_DATA or pass the path to a question file)"
        )
    q = d / spec.questions
    if not q.exists():
        raise ConfigError(f"dataset {name!r}: {q} not found")
    c = d / spec.corpus if spec.corpus else None
    return q, (c if c and c.exists() else None)


def resolve(name_or_path: str, known: list[str] | None = None) -> tuple[str, Path, Path | None]:
    """(dataset name, question file, corpus file or None). Unknown names list the known ones."""
    p = Path(name_or_path).expanduser()
    if p.is_file():
        corpus = p.with_name(p.name[: -len(p.suffix)] + ".corpus.jsonl") if p.suffix else None
        return _name_of_file(p), p, (corpus if corpus and corpus.exists() and corpus != p else None)
    canon = canonical_name(name_or_path)
    if canon is None:
        hint = " (no such file either)" if ("/" in name_or_path or "." in name_or_path) else ""
        names = known if known is not None else known_names()
        raise ConfigError(f"unknown dataset {name_or_path!r}{hint}; known: {', '.join(names)}, or a path to a file")
    q, c = _locate_known(canon)
    return canon, q, c


def _name_of_file(p: Path) -> str:
    """A known set's name when `p` is that set's file in the data folder, else the file's stem."""
    d = data_dir()
    if d is not None and p.resolve().parent == d.resolve():
        for name, spec in KNOWN_DATASETS.items():
            if spec.questions == p.name:
                return name
    return p.stem



# -- loading -------------------------------------------------------------------
def load_dataset(name_or_path: str, known: list[str] | None = None) -> Dataset:
    """A shared set by name, or a question file in one of the formats above. gaji's own sets, which ship
    inside the package, are loaded by name through `gaji.eval.sets.load_dataset`."""
    name, qpath, cpath = resolve(name_or_path, known)
    fmt, items, docs = read_questions(qpath)
    spec = KNOWN_DATASETS.get(name)
    long_form = spec.long_form if spec else _looks_long_form(items)
    if docs is not None:
        cpath = None  # official formats: the file's own paragraphs are the corpus
    _dedupe_ids(items)
    return Dataset(
        name=name,
        path=qpath,
        format=fmt,
        items=items,
        sha256=file_sha256(qpath),
        corpus_path=cpath,
        documents=docs,
        long_form=long_form,
    )


def _dedupe_ids(items: list[EvalItem]) -> None:
    """Results are keyed by question id: a repeated id gets a `~N` suffix (N = its occurrence)."""
    seen: dict[str, int] = {}
    for it in items:
        n = seen.get(it.id, 0) + 1
        seen[it.id] = n
        if n > 1:
            it.id = f"{it.id}~{n}"


def _looks_long_form(items: list[EvalItem]) -> bool:
    lens = [len(a.split()) for it in items for a in it.answers]
    return bool(lens) and sum(lens) / len(lens) > LONG_FORM_WORDS


def read_questions(path: Path) -> tuple[str, list[EvalItem], list[Document] | None]:
    """Detect the format of a question file and read it: (format, items, documents or None)."""
    path = Path(path)
    first = _first_char(path)
    if first == "[" or (first == "{" and _is_single_json_object(path)):
        data = _load_json(path)
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            return "korquad", *_read_squad(path, data)
        if isinstance(data, list) and data and isinstance(data[0], dict):
            if "context" in data[0] and "supporting_facts" in data[0]:
                return _hotpot_kind(data[0]), *_read_hotpot(path, data, _hotpot_kind(data[0]))
            if "paragraphs" in data[0]:
                return "musique", *_read_musique(path, ((i + 1, r) for i, r in enumerate(data)))
        raise InputError("unrecognised JSON question file (expected KorQuAD/SQuAD, HotpotQA, 2Wiki or MuSiQue)", str(path))
    records = list(iter_jsonl(path))
    if records and "paragraphs" in records[0][1] and "answers" not in records[0][1]:
        return "musique", *_read_musique(path, iter(records))
    return "gaji", [_item_from_record(r, str(path), line) for line, r in records], None


def _first_char(path: Path) -> str:
    with open(path, "r", encoding="utf-8-sig") as f:
        while True:
            ch = f.read(1)
            if not ch or not ch.isspace():
                return ch


def _is_single_json_object(path: Path) -> bool:
    """A .json file holding one object (SQuAD) vs JSONL whose first line is an object."""
    with open(path, "r", encoding="utf-8-sig") as f:
        for line in f:
            if line.strip():
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    return True  # the object spans lines: one JSON document
                # one object on the first line: JSONL, unless it is a whole SQuAD-style file
                return isinstance(obj, dict) and isinstance(obj.get("data"), list) and "question" not in obj
    return False


def _load_json(path: Path) -> Any:
    try:
        with open(path, "r", encoding="utf-8-sig") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg} (column {e.colno})", str(path), e.lineno) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8", str(path)) from None


def _as_answers(rec: dict, path: str, line: int) -> list[str]:
    raw: Any = rec.get("answers")
    if raw is None:
        raw = rec.get("answer")
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise InputError("answers must be a list of strings", path, line, "answers")
    out = []
    for a in list(raw) + list(rec.get("answer_aliases") or []):
        if isinstance(a, dict):  # SQuAD-style {"text": ...}
            a = a.get("text", "")
        if not isinstance(a, (str, int, float)):
            raise InputError("answers must be strings", path, line, "answers")
        a = str(a).strip()
        if a and a not in out:
            out.append(a)
    return out


def _item_from_record(rec: dict, path: str, line: int) -> EvalItem:
    """One gaji-format question dict -> EvalItem (KoBLEX background prepended)."""
    q = rec.get("question")
    if not isinstance(q, str) or not q.strip():
        raise InputError("missing or empty question", path, line, "question")
    question = q.strip()
    background = rec.get("background")
    if isinstance(background, str) and background.strip():
        question = f"{background.strip()}\n{question}"
    gold: list[GoldRef] = []
    sup = rec.get("supporting") or []
    if not isinstance(sup, list):
        raise InputError("supporting must be a list", path, line, "supporting")
    for s in sup:
        if isinstance(s, dict):
            ref = GoldRef(str(s.get("doc_id") or ""), str(s.get("title") or ""))
        elif isinstance(s, str):
            ref = GoldRef(s, "")
        else:
            raise InputError("supporting entries must be objects or ids", path, line, "supporting")
        if (ref.doc_id or ref.title) and ref not in gold:
            gold.append(ref)
    if not gold:
        for fact in rec.get("supporting_facts") or []:
            if isinstance(fact, (list, tuple)) and fact and isinstance(fact[0], str):
                ref = GoldRef("", fact[0])
                if ref not in gold:
                    gold.append(ref)
    qid = rec.get("id", rec.get("_id"))
    return EvalItem(
        id=str(qid) if qid not in (None, "") else f"{Path(path).stem}-{line}",
        question=question,
        answers=_as_answers(rec, path, line),
        gold=gold,
        lang=str(rec.get("language") or "") or detect_lang(question),
        type=str(rec.get("type") or ""),
        line=line,
    )


# -- official formats ----------------------------------------------------------
def _doc_id(prefix: str, title: str, text: str) -> str:
    return f"{prefix}-" + hashlib.sha1(f"{title}\n{text}".encode("utf-8")).hexdigest()[:12]


def _join_sentences(sents: Iterable[str]) -> str:
    out = ""
    for s in sents:
        s = str(s)
        if out and not out[-1].isspace() and not s[:1].isspace():
            out += " "
        out += s
    return out.strip()


def _hotpot_kind(rec: dict) -> str:
    return "2wikimultihopqa" if ("evidences" in rec or rec.get("type") in ("compositional", "inference", "bridge_comparison")) else "hotpotqa"


def _read_hotpot(path: Path, data: list, prefix: str) -> tuple[list[EvalItem], list[Document]]:
    docs: dict[str, Document] = {}
    items: list[EvalItem] = []
    for n, rec in enumerate(data, 1):
        if not isinstance(rec, dict):
            raise InputError(f"entry {n} is not an object", str(path))
        title_to_id: dict[str, str] = {}
        for para in rec.get("context") or []:
            if not (isinstance(para, (list, tuple)) and len(para) == 2):
                raise InputError(f"entry {n}: context items must be [title, [sentences]]", str(path), field="context")
            title, sents = str(para[0]), para[1]
            text = _join_sentences(sents if isinstance(sents, list) else [sents])
            did = _doc_id(prefix, title, text)
            title_to_id[title] = did
            docs.setdefault(did, Document(id=did, title=title, text=text, source=str(path)))
        gold = []
        for fact in rec.get("supporting_facts") or []:
            t = str(fact[0]) if isinstance(fact, (list, tuple)) and fact else ""
            ref = GoldRef(title_to_id.get(t, ""), t)
            if t and ref not in gold:
                gold.append(ref)
        rec2 = {"id": rec.get("_id", rec.get("id")), "question": rec.get("question"), "answer": rec.get("answer"),
                "type": rec.get("type", "")}
        item = _item_from_record(rec2, str(path), n)
        item.gold = gold
        items.append(item)
    return items, list(docs.values())


def _read_musique(path: Path, records: Iterator[tuple[int, dict]]) -> tuple[list[EvalItem], list[Document]]:
    docs: dict[str, Document] = {}
    items: list[EvalItem] = []
    for line, rec in records:
        gold = []
        paras = rec.get("paragraphs")
        if not isinstance(paras, list):
            raise InputError("paragraphs must be a list", str(path), line, "paragraphs")
        for p in paras:
            if not isinstance(p, dict):
                raise InputError("paragraphs must be objects", str(path), line, "paragraphs")
            title, text = str(p.get("title", "")), str(p.get("paragraph_text", p.get("text", "")))
            did = _doc_id("musique", title, text)
            docs.setdefault(did, Document(id=did, title=title, text=text, source=str(path)))
            if p.get("is_supporting"):
                gold.append(GoldRef(did, title))
        item = _item_from_record(rec, str(path), line)
        item.gold = gold
        if not item.type and isinstance(item.id, str) and "hop" in item.id:
            item.type = item.id.split("__")[0]
        items.append(item)
    return items, list(docs.values())


def korquad_doc_id(article_idx: int, paragraph_idx: int) -> str:
    return f"korquad-{article_idx}-{paragraph_idx}"


def _read_squad(path: Path, data: dict) -> tuple[list[EvalItem], list[Document]]:
    """KorQuAD 1.0 (SQuAD 1.1 layout): questions and their paragraphs, converted in memory."""
    records = None
    try:  # the shared-data module yields our question dicts with the same paragraph ids
        from gaji.corpus.shared_data import load_korquad_questions

        records = list(load_korquad_questions(path))
    except (ImportError, AttributeError):
        records = None
    docs: list[Document] = []
    own: list[dict] = []
    for a, art in enumerate(data["data"]):
        if not isinstance(art, dict) or not isinstance(art.get("paragraphs"), list):
            raise InputError(f"data[{a}] has no paragraphs list", str(path), field="paragraphs")
        title = str(art.get("title", ""))
        for p, para in enumerate(art["paragraphs"]):
            did = korquad_doc_id(a, p)
            context = str(para.get("context", ""))
            docs.append(Document(id=did, title=title, text=context, source=str(path)))
            for qa in para.get("qas") or []:
                own.append({
                    "id": qa.get("id"),
                    "question": qa.get("question"),
                    "answers": [x.get("text", "") for x in qa.get("answers") or [] if isinstance(x, dict)],
                    "supporting": [{"doc_id": did, "title": title}],
                    "type": "single-hop (extractive)",
                })
    recs = records if records else own
    items = [_item_from_record(r, str(path), i) for i, r in enumerate(recs, 1)]
    return items, docs


def write_corpus(ds: Dataset, path: str | Path) -> int:
    """Write the paragraphs of an official-format file as a gaji corpus JSONL (for `gaji index build`);
    returns the number written. KorQuAD is refused: its licence (CC BY-ND) allows no re-saved copy, and
    `gaji index build` reads the official file directly."""
    from gaji.io import atomic_write_text

    if ds.format == "korquad" or ds.corpus_name == "korquad":
        raise ConfigError("KorQuAD is converted at load time and never re-saved (CC BY-ND); "
                          "index the official file directly: gaji index build KorQuAD_v1.0_dev.json")
    docs = ds.documents if ds.documents is not None else (read_corpus(ds.corpus_path) if ds.corpus_path else [])
    if not docs:
        raise ConfigError(f"dataset {ds.name!r} has no corpus to write")
    lines = [json.dumps({"id": d.id, "title": d.title, "text": d.text, **d.metadata}, ensure_ascii=False) + "\n" for d in docs]
    atomic_write_text(path, "".join(lines))
    return len(docs)


def read_corpus(path: str | Path) -> list[Document]:
    """A gaji corpus JSONL ({"id", "title", "text", ...} per line) as Documents."""
    out = []
    for line, rec in iter_jsonl(Path(path)):
        if "id" not in rec or "text" not in rec:
            raise InputError("corpus lines need id and text", str(path), line, "id" if "id" not in rec else "text")
        meta = {k: v for k, v in rec.items() if k not in ("id", "title", "text")}
        out.append(Document(id=str(rec["id"]), title=str(rec.get("title", "")), text=str(rec["text"]), metadata=meta, source=str(path)))
    return out
