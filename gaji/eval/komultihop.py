"""KoMultiHop: gaji's hand-written Korean multi-hop question set over the KorQuAD 1.0 dev paragraphs.

    gaji eval check-set komultihop                  # check the four files of the set (exit 1 on problems)
    ds = load_part("komultihop-dev")                # a Dataset: the dev questions, corpus = all KorQuAD dev paragraphs

The questions live in `gaji/data/komultihop/<type>.jsonl`, one file per ToQ question type (bridging,
intersection, comparison, hybrid); see the dataset card beside them. They name their paragraphs only by id
(`korquad-{article_idx}-{paragraph_idx}`, the ids `gaji.eval.datasets` gives KorQuAD): the paragraph text is
CC BY-ND and is read from the official KorQuAD file at run time, never copied into the set.

The checker is strict because nothing else stands between a typo and a wrong benchmark figure: every
sub-answer must be a span of the paragraph it cites, every cited paragraph must exist and be used, and the
split must stay balanced. Every problem names file:line and field.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from gaji.errors import ConfigError, InputError
from gaji.types import Document

SET_NAME = "komultihop"
SET_DIR = Path(__file__).resolve().parents[1] / "data" / SET_NAME
TYPES = ("bridging", "intersection", "comparison", "hybrid")
SPLITS = ("dev", "report")
# selectable names -> the split they keep (None = every question)
PARTS: dict[str, str | None] = {SET_NAME: None, f"{SET_NAME}-dev": "dev", f"{SET_NAME}-report": "report"}
MIN_PER_TYPE = 30
MIN_SUPPORTING, MAX_SUPPORTING = 2, 4
# types whose answer is a span of a supporting paragraph; a comparison's answer may be one of the compared
# entities as the question names them
SPAN_ANSWER_TYPES = ("bridging", "intersection")
# a comparison may also be a yes/no question ("…둘 다 …인가?"); its answer is then no span at all
YES_NO = frozenset({"예", "네", "아니오", "아니요", "그렇다", "아니다", "yes", "no"})

REQUIRED_KEYS = ("id", "type", "question", "answers", "supporting", "decomposition", "split", "dataset", "language")
ID_RE = re.compile(r"^komh-(bridging|intersection|comparison|hybrid)-\d{3}$")
# a bridge entity shorter than this may occur in the question by chance ("2", "K")
MIN_BRIDGE_LEAK_CHARS = 2


def norm(text: str) -> str:
    """NFC, whitespace runs collapsed: the form in which spans are compared."""
    return " ".join(unicodedata.normalize("NFC", text).split())


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line is not None else "")
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


@dataclass
class CheckReport:
    files: list[Path]
    problems: list[Problem] = field(default_factory=list)
    # not errors: things a human should look at (a hop shared by a dev and a report question)
    warnings: list[Problem] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)  # (type, split) -> questions

    @property
    def ok(self) -> bool:
        return not self.problems

    def table(self) -> str:
        """Questions per type and split, as markdown."""
        rows = ["| type | dev | report | total |", "|---|---:|---:|---:|"]
        for t in TYPES:
            d, r = self.counts.get((t, "dev"), 0), self.counts.get((t, "report"), 0)
            if d or r:
                rows.append(f"| {t} | {d} | {r} | {d + r} |")
        d = sum(n for (_, s), n in self.counts.items() if s == "dev")
        r = sum(n for (_, s), n in self.counts.items() if s == "report")
        rows.append(f"| all | {d} | {r} | {d + r} |")
        return "\n".join(rows)


# -- the paragraphs ------------------------------------------------------------
def korquad_path(path: str | Path | None = None) -> Path:
    """The official KorQuAD 1.0 dev file: `path`, else the shared data folder's copy."""
    if path is not None:
        p = Path(path).expanduser()
        if not p.is_file():
            raise ConfigError(f"KorQuAD file {p} not found")
        return p
    from gaji.eval.datasets import resolve

    try:
        _, q, _ = resolve("korquad")
    except ConfigError as e:
        raise ConfigError(f"{SET_NAME} reads its paragraphs from the KorQuAD 1.0 dev file: {e}") from None
    return q


_PARAGRAPHS: dict[str, list[Document]] = {}


def korquad_documents(path: str | Path | None = None) -> list[Document]:
    """Every KorQuAD dev paragraph as a Document, converted in memory exactly as `load_dataset("korquad")`
    does (same ids, titles and texts, so both share one cached index). Cached per file."""
    p = korquad_path(path)
    key = str(p.resolve())
    if key not in _PARAGRAPHS:
        from gaji.eval.datasets import read_questions

        fmt, _, docs = read_questions(p)
        if fmt != "korquad" or not docs:
            raise InputError("not a KorQuAD/SQuAD file", str(p))
        _PARAGRAPHS[key] = docs
    return _PARAGRAPHS[key]


# -- the files -----------------------------------------------------------------
def set_files(folder: str | Path = SET_DIR) -> list[Path]:
    """The set's files, one per type, in type order (present or not)."""
    return [Path(folder) / f"{t}.jsonl" for t in TYPES]


@dataclass
class Record:
    path: Path
    line: int
    data: dict[str, Any]


def read_records(paths: Iterable[Path], problems: list[Problem] | None = None) -> list[Record]:
    """Every JSON object line of the files. A file that cannot be read or a line that is not an object is a
    Problem when `problems` is given (the rest of that file is skipped), else an InputError."""
    from gaji.io import iter_jsonl

    out: list[Record] = []
    for p in paths:
        got: list[Record] = []
        try:
            for line, rec in iter_jsonl(p, nfc=False):  # as stored: the checker requires the files in NFC
                got.append(Record(p, line, rec))
        except InputError as e:
            if problems is None:
                raise
            problems.append(Problem(str(p), e.line, e.field or "", str(e).split(": ", 1)[-1] if e.path else str(e)))
        out.extend(got)
    return out


# -- checking ------------------------------------------------------------------
class _Checker:
    def __init__(self, paragraphs: dict[str, Document]):
        self.paragraphs = paragraphs
        self.problems: list[Problem] = []

    def bad(self, rec: Record, fld: str, msg: str) -> None:
        self.problems.append(Problem(str(rec.path), rec.line, fld, msg))

    def text_field(self, rec: Record, value: Any, fld: str) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.bad(rec, fld, "must be a non-empty string")
            return None
        if unicodedata.normalize("NFC", value) != value:
            self.bad(rec, fld, "is not in Unicode NFC form")
        if value != value.strip():
            self.bad(rec, fld, "has leading or trailing whitespace")
        return value

    def record(self, rec: Record) -> None:
        d = rec.data
        for k in REQUIRED_KEYS:
            if k not in d:
                self.bad(rec, k, "missing")
        for k in d:
            if k not in REQUIRED_KEYS:
                self.bad(rec, k, f"unknown field (allowed: {', '.join(REQUIRED_KEYS)})")
        file_type = rec.path.stem
        qtype = d.get("type")
        if qtype not in TYPES:
            self.bad(rec, "type", f"must be one of {', '.join(TYPES)}, not {qtype!r}")
            qtype = None
        elif file_type in TYPES and qtype != file_type:
            self.bad(rec, "type", f"{qtype!r} in {rec.path.name} (this file holds {file_type} questions)")
        qid = self.text_field(rec, d.get("id"), "id")
        if qid is not None:
            m = ID_RE.match(qid)
            if not m:
                self.bad(rec, "id", f"{qid!r} does not look like komh-<type>-NNN")
            elif qtype and m.group(1) != qtype:
                self.bad(rec, "id", f"{qid!r} names another type than {qtype!r}")
        question = self.text_field(rec, d.get("question"), "question")
        if d.get("split") not in SPLITS:
            self.bad(rec, "split", f"must be one of {', '.join(SPLITS)}, not {d.get('split')!r}")
        if d.get("dataset") != SET_NAME:
            self.bad(rec, "dataset", f"must be {SET_NAME!r}")
        if d.get("language") != "ko":
            self.bad(rec, "language", "must be 'ko'")
        answers = self.answers(rec, d.get("answers"))
        docs = self.supporting(rec, d.get("supporting"))
        steps = self.decomposition(rec, d.get("decomposition"), docs)
        if qtype and question is not None and answers and docs is not None and steps is not None:
            self.answer_rules(rec, qtype, question, answers, docs, steps)

    def answers(self, rec: Record, raw: Any) -> list[str]:
        if not isinstance(raw, list) or not raw:
            self.bad(rec, "answers", "must be a non-empty list of strings")
            return []
        out: list[str] = []
        for i, a in enumerate(raw):
            a = self.text_field(rec, a, f"answers[{i}]")
            if a is None:
                continue
            if norm(a) in (norm(x) for x in out):
                self.bad(rec, f"answers[{i}]", f"repeats the variant {a!r}")
            out.append(a)
        return out

    def supporting(self, rec: Record, raw: Any) -> list[str] | None:
        """The supporting paragraph ids, or None when the field is unusable."""
        if not isinstance(raw, list):
            self.bad(rec, "supporting", "must be a list of {doc_id, title}")
            return None
        if not MIN_SUPPORTING <= len(raw) <= MAX_SUPPORTING:
            self.bad(rec, "supporting", f"needs {MIN_SUPPORTING} to {MAX_SUPPORTING} paragraphs, has {len(raw)}")
        ids: list[str] = []
        for i, s in enumerate(raw):
            f = f"supporting[{i}]"
            if not isinstance(s, dict):
                self.bad(rec, f, "must be an object {doc_id, title}")
                continue
            extra = sorted(set(s) - {"doc_id", "title"})
            if "text" in extra:
                self.bad(rec, f + ".text", "paragraph text must not be stored (KorQuAD is CC BY-ND; it is loaded at run time)")
            elif extra:
                self.bad(rec, f, f"unknown field(s) {', '.join(extra)} (allowed: doc_id, title)")
            doc_id = s.get("doc_id")
            if not isinstance(doc_id, str) or doc_id not in self.paragraphs:
                self.bad(rec, f + ".doc_id", f"{doc_id!r} is not a KorQuAD dev paragraph id (korquad-A-P)")
                continue
            if doc_id in ids:
                self.bad(rec, f + ".doc_id", f"{doc_id} is listed twice")
                continue
            ids.append(doc_id)
            want = self.paragraphs[doc_id].title
            if s.get("title") != want:
                self.bad(rec, f + ".title", f"{s.get('title')!r} is not the title of {doc_id} ({want!r})")
        return ids

    def decomposition(self, rec: Record, raw: Any, docs: list[str] | None) -> list[dict] | None:
        if not isinstance(raw, list) or len(raw) < 2:
            self.bad(rec, "decomposition", "must be a list of at least 2 steps {question, answer, doc_id}")
            return None
        steps: list[dict] = []
        used: set[str] = set()
        for i, st in enumerate(raw):
            f = f"decomposition[{i}]"
            if not isinstance(st, dict):
                self.bad(rec, f, "must be an object {question, answer, doc_id}")
                continue
            extra = sorted(set(st) - {"question", "answer", "doc_id"})
            if extra:
                self.bad(rec, f, f"unknown field(s) {', '.join(extra)} (allowed: question, answer, doc_id)")
            self.text_field(rec, st.get("question"), f + ".question")
            ans = self.text_field(rec, st.get("answer"), f + ".answer")
            doc_id = st.get("doc_id")
            if docs is not None and doc_id not in docs:
                self.bad(rec, f + ".doc_id", f"{doc_id!r} is not among the supporting paragraphs")
            elif isinstance(doc_id, str) and doc_id in self.paragraphs:
                used.add(doc_id)
                if ans is not None and norm(ans) not in norm(self.paragraphs[doc_id].text):
                    self.bad(rec, f + ".answer", f"{ans!r} does not appear in paragraph {doc_id}")
            steps.append(st)
        for d in docs or []:
            if d not in used:
                self.bad(rec, "supporting", f"{d} is used by no decomposition step")
        return steps

    def answer_rules(self, rec: Record, qtype: str, question: str, answers: list[str], docs: list[str],
                     steps: list[dict]) -> None:
        texts = [norm(self.paragraphs[d].text) for d in docs]
        variants = [norm(a) for a in answers]
        nq = norm(question)
        if qtype in SPAN_ANSWER_TYPES:
            if not any(v in t for v in variants for t in texts):
                self.bad(rec, "answers", "no variant appears in a supporting paragraph")
            leaked = [a for a, v in zip(answers, variants) if v in nq]
            if leaked:
                self.bad(rec, "question", f"names its own answer {leaked[0]!r}")
            last = steps[-1].get("answer") if steps else None
            if isinstance(last, str) and norm(last) not in variants:
                self.bad(rec, "answers", f"the last step's answer {last!r} is not one of the variants")
        elif not any(v in t for v in variants for t in texts + [nq]) and not all(v.lower() in YES_NO for v in variants):
            self.bad(rec, "answers", "no variant appears in the question or a supporting paragraph "
                     f"(nor is it a yes/no answer: {', '.join(sorted(YES_NO))})")
        if qtype == "bridging":
            for i, st in enumerate(steps[:-1]):
                a = st.get("answer")
                if isinstance(a, str) and len(norm(a)) >= MIN_BRIDGE_LEAK_CHARS and norm(a) in nq:
                    self.bad(rec, "question", f"names the bridge entity {a!r} (decomposition[{i}].answer): "
                             "the question must need the first hop")


def check_set(files: Sequence[str | Path] | None = None, *, korquad: str | Path | None = None,
              paragraphs: dict[str, Document] | None = None, min_per_type: int = MIN_PER_TYPE) -> CheckReport:
    """Check the set's files (default: the four shipped ones). With the default files the set-level rules
    apply too: every type present with at least `min_per_type` questions, the same number for each type."""
    whole = files is None
    paths = set_files() if whole else [Path(f) for f in files]
    report = CheckReport(files=list(paths))
    if paragraphs is None:
        paragraphs = {d.id: d for d in korquad_documents(korquad)}
    chk = _Checker(paragraphs)
    for p in paths:
        if not p.is_file():
            chk.problems.append(Problem(str(p), None, "", "file not found"))
    records = read_records([p for p in paths if p.is_file()], chk.problems)
    seen_ids: dict[str, Record] = {}
    seen_q: dict[str, Record] = {}
    for rec in records:
        chk.record(rec)
        qid, q = rec.data.get("id"), rec.data.get("question")
        if isinstance(qid, str):
            if qid in seen_ids:
                first = seen_ids[qid]
                chk.bad(rec, "id", f"{qid!r} already used at {first.path.name}:{first.line}")
            else:
                seen_ids[qid] = rec
        if isinstance(q, str):
            key = norm(q)
            if key in seen_q:
                first = seen_q[key]
                chk.bad(rec, "question", f"same question as {first.path.name}:{first.line}")
            else:
                seen_q[key] = rec
        t, s = rec.data.get("type"), rec.data.get("split")
        if t in TYPES and s in SPLITS:
            report.counts[(t, s)] += 1
    _check_balance(report, chk.problems, paths, whole, min_per_type)
    report.problems = chk.problems
    report.warnings = _shared_hops(records)
    return report


def _shared_hops(records: list[Record]) -> list[Problem]:
    """A decomposition step (same paragraph, same sub-answer) used by both a dev and a report question: tuning
    on the dev part then touches a fact the report part is scored on. Reported, not refused: several questions
    may rightly start from one bridge, as long as they sit in the same part."""
    by_hop: dict[tuple[str, str], list[Record]] = {}
    for rec in records:
        steps = rec.data.get("decomposition")
        for st in steps if isinstance(steps, list) else []:
            if isinstance(st, dict) and isinstance(st.get("doc_id"), str) and isinstance(st.get("answer"), str):
                users = by_hop.setdefault((st["doc_id"], norm(st["answer"])), [])
                if rec not in users:
                    users.append(rec)
    out: list[Problem] = []
    for (doc_id, answer), users in by_hop.items():
        if {u.data.get("split") for u in users} >= set(SPLITS):
            first = users[0]
            names = ", ".join(f"{u.data.get('id')} ({u.data.get('split')})" for u in users)
            out.append(Problem(str(first.path), first.line, "split",
                               f"the step ({doc_id}, {answer!r}) is shared across dev and report: {names}"))
    return out


def _check_balance(report: CheckReport, problems: list[Problem], paths: list[Path], whole: bool,
                   min_per_type: int) -> None:
    """Each type split evenly between dev and report; with the whole set, every type equally large."""
    where = str(paths[0].parent) if paths else "."
    per_type = {t: report.counts.get((t, "dev"), 0) + report.counts.get((t, "report"), 0) for t in TYPES}
    for t in TYPES:
        d, r = report.counts.get((t, "dev"), 0), report.counts.get((t, "report"), 0)
        if abs(d - r) > 1:
            problems.append(Problem(where, None, "split", f"{t}: {d} dev vs {r} report questions (must differ by at most 1)"))
    if not whole:
        return
    for t, n in per_type.items():
        if n < min_per_type:
            problems.append(Problem(where, None, "type", f"{t}: {n} questions, needs at least {min_per_type}"))
    if len(set(per_type.values())) > 1:
        sizes = ", ".join(f"{t} {n}" for t, n in per_type.items())
        problems.append(Problem(where, None, "type", f"types are not balanced: {sizes}"))


# -- loading for evaluation ----------------------------------------------------
def is_part_name(name: str) -> bool:
    return name.strip().lower() in PARTS


def load_part(name: str = SET_NAME, *, korquad: str | Path | None = None, folder: str | Path | None = None):
    """The set (or its dev/report part) as a `gaji.eval.datasets.Dataset` whose corpus is every KorQuAD dev
    paragraph (open retrieval over all 964). The set is checked first: a broken set is refused with its
    problems rather than scored."""
    from gaji.eval.datasets import Dataset, _item_from_record

    key = name.strip().lower()
    if key not in PARTS:
        raise ConfigError(f"unknown part {name!r}; known: {', '.join(PARTS)}")
    split = PARTS[key]
    docs = korquad_documents(korquad)
    by_id = {d.id: d for d in docs}
    files = set_files(folder) if folder is not None else None
    report = check_set(files, paragraphs=by_id)
    if not report.ok:
        shown = "\n  ".join(str(p) for p in report.problems[:10])
        more = f"\n  … {len(report.problems) - 10} more" if len(report.problems) > 10 else ""
        raise InputError(f"the {SET_NAME} set has {len(report.problems)} problem(s) "
                         f"(run `gaji eval check-set komultihop`):\n  {shown}{more}")
    recs = [r for r in read_records(report.files) if split is None or r.data["split"] == split]
    items = []
    h = hashlib.sha256()
    for r in recs:
        h.update((json.dumps(r.data, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
        item = _item_from_record(r.data, str(r.path), r.line)
        items.append(item)
    return Dataset(name=key, path=Path(folder) if folder is not None else SET_DIR, format="gaji", items=items,
                   sha256=h.hexdigest(), documents=list(docs), long_form=False, corpus_name="korquad")


def supporting_texts(records: Iterable[dict], korquad: str | Path | None = None) -> list[dict]:
    """The records with each `supporting` entry's paragraph `text` filled in from KorQuAD (in memory only),
    the shape of the shared sets' question files."""
    by_id = {d.id: d for d in korquad_documents(korquad)}
    out = []
    for rec in records:
        sup = [{**s, "text": by_id[s["doc_id"]].text} for s in rec.get("supporting") or []]
        out.append({**rec, "supporting": sup})
    return out


# -- command -------------------------------------------------------------------
def run_check(files: Sequence[str] | None, korquad: str | None) -> int:
    """Print every problem (file:line: field: message) to stderr and the counts to stdout; 0 when the set
    is clean, else 1."""
    out, err = sys.stdout, sys.stderr
    report = check_set(files or None, korquad=korquad)
    for p in report.problems:
        print(p, file=err)
    for w in report.warnings:
        print(f"warning: {w}", file=err)
    print(report.table(), file=out)
    n = sum(report.counts.values())
    if report.ok:
        print(f"ok: {n} questions in {len(report.files)} file(s)", file=out)
        return 0
    print(f"{len(report.problems)} problem(s) in {len(report.files)} file(s)", file=err)
    return 1
