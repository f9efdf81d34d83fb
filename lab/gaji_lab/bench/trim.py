"""`gaji bench trim`: what cutting passages to a character budget keeps of the evidence, without a model.

A method shows each retrieved passage cut to `passage_chars` (OneR) or `doc_chars` (the tree's readers): by its
head, or, with `passage_trim=relevant`, by its sentences most relevant to the question
(gaji.methods.common.trim_passage). Fewer characters are fewer prompt tokens, and prompt tokens are this CPU's
time; a cut that drops the sentence holding the evidence costs the answer.

For each question, the bench retrieves its top-k passages once (the index `gaji eval` uses for the set) and cuts
them every way asked for. It counts the evidence strings still there:
- on the Korean set (komultihop), each decomposition step's sub-answer in the step's own paragraph;
- on any other set, the gold answer (any accepted variant), in the passages that hold it.

Only evidence present in the uncut passage counts. Spaces are ignored when matching (Korean spacing varies). The
result is a proxy: it says what a cut cannot lose, not what the model does with what is left (benchmarks/auto/NOTES.md has
both for the Korean dev part).
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gaji.errors import ConfigError
from gaji.methods.common import PASSAGE_TRIMS, trim_passage
from gaji.text.select import keys

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Evidence:
    """A string a passage must keep: any of `variants`; in the passage `doc_id` ("" = whichever holds it)."""

    variants: tuple[str, ...]
    doc_id: str = ""


@dataclass
class Question:
    id: str
    type: str
    question: str
    evidence: list[Evidence]


@dataclass(frozen=True)
class Cut:
    trim: str  # "none" | a PASSAGE_TRIMS name
    chars: int  # 0 with "none"

    @property
    def name(self) -> str:
        return "uncut" if self.trim == "none" else f"{self.trim} {self.chars}"


@dataclass
class Row:
    cut: Cut
    kept: int = 0
    present: int = 0
    chars: int = 0  # characters of all passages shown, summed over the questions
    by_type: dict[str, list[int]] = field(default_factory=dict)  # type -> [kept, present]

    def to_dict(self, questions: int) -> dict[str, Any]:
        return {"cut": self.cut.name, "trim": self.cut.trim, "chars": self.cut.chars, "kept": self.kept,
                "present": self.present, "kept_share": round(self.kept / self.present, 4) if self.present else None,
                "chars_per_question": round(self.chars / max(1, questions), 1),
                "by_type": {t: {"kept": k, "present": p} for t, (k, p) in sorted(self.by_type.items())}}


def unspaced(s: str) -> str:
    return _SPACE.sub("", s)


def cuts(budgets: Sequence[int], trims: Sequence[str] = PASSAGE_TRIMS) -> list[Cut]:
    """The uncut passages first, then every trim at every budget."""
    for t in trims:
        if t not in PASSAGE_TRIMS:
            raise ConfigError(f"unknown trim {t!r}; known: {', '.join(PASSAGE_TRIMS)}")
    for b in budgets:
        if b < 1:
            raise ConfigError(f"a character budget must be at least 1, not {b}")
    return [Cut("none", 0)] + [Cut(t, b) for b in budgets for t in trims]


def apply(cut: Cut, text: str, question_keys: set[str]) -> str:
    if cut.trim == "none":
        return text
    return trim_passage(text, cut.chars, question_keys if cut.trim == "relevant" else None)


def holds(ev: Evidence, text: str) -> bool:
    t = unspaced(text)
    return any(unspaced(v) and unspaced(v) in t for v in ev.variants)


def holders(ev: Evidence, shown: Sequence[Any]) -> list[int]:
    """Indexes of the (uncut) passages that hold `ev`: only its own paragraph when it names one."""
    return [i for i, p in enumerate(shown) if (not ev.doc_id or ev.doc_id in (p.doc_id, p.id)) and holds(ev, p.text)]


def score(questions: Sequence[Question], passages: dict[str, list[Any]], plan: Sequence[Cut]) -> list[Row]:
    """`passages`: question id -> its retrieved passages (objects with id, doc_id, text), best first."""
    rows = [Row(c) for c in plan]
    for q in questions:
        shown = passages.get(q.id, [])
        question_keys = keys(q.question)
        # each evidence string with the uncut passages that hold it (the same for every cut); absent ones never count
        found = [(ev, where) for ev, where in ((ev, holders(ev, shown)) for ev in q.evidence) if where]
        for row in rows:
            cut_texts = [apply(row.cut, p.text, question_keys) for p in shown]
            row.chars += sum(len(t) for t in cut_texts)
            for ev, where in found:
                kept = any(holds(ev, cut_texts[i]) for i in where)
                row.present += 1
                row.kept += kept
                tally = row.by_type.setdefault(q.type or "untyped", [0, 0])
                tally[0] += kept
                tally[1] += 1
    return rows


def questions_of(data: str, limit: int | None = None) -> tuple[Any, list[Question]]:
    """The set's Dataset and its questions with their evidence (sub-answers on komultihop, answers elsewhere)."""
    from gaji.eval import komultihop
    from gaji.eval.sets import load_dataset

    ds = load_dataset(data)
    items = ds.limited(limit)
    steps: dict[str, list[Evidence]] = {}
    if komultihop.is_part_name(data):
        for rec in komultihop.read_records(komultihop.set_files()):
            steps[str(rec.data["id"])] = [Evidence((str(s["answer"]),), str(s["doc_id"]))
                                          for s in rec.data.get("decomposition") or []]
    out = []
    for it in items:
        ev = steps.get(it.id) or ([Evidence(tuple(it.answers))] if it.answers else [])
        out.append(Question(it.id, it.type, it.question, ev))
    return ds, out


def render(rows: list[Row], questions: int, meta: dict[str, Any]) -> str:
    types = sorted({t for r in rows for t in r.by_type})
    head = "| cut | evidence kept | chars/question | " + " | ".join(types) + " |"
    lines = [f"# Passage cuts on {meta['data']}: top-{meta['k']} {meta['retriever']}, {questions} questions",
             "", head, "|---|---:|---:|" + "---:|" * len(types)]
    for r in rows:
        share = f"{r.kept}/{r.present} ({100 * r.kept / r.present:.0f} %)" if r.present else "–"
        per = " | ".join(f"{r.by_type.get(t, [0, 0])[0]}/{r.by_type.get(t, [0, 0])[1]}" for t in types)
        lines.append(f"| {r.cut.name} | {share} | {r.chars / max(1, questions):,.0f} | {per} |")
    return "\n".join(lines)


def run_bench(data: str, settings: Any, budgets: Sequence[int], *, trims: Sequence[str] = PASSAGE_TRIMS,
              limit: int | None = None, say: Callable[[str], Any] = print):
    """Retrieve each question's top-k once, score every cut; a ProbeReport (lab/gaji_lab/bench/probing.py)."""
    from gaji.api import Gaji
    from gaji_lab.bench.probing import ProbeReport
    from gaji.eval.corpus_index import corpus_index
    from gaji.eval.runner import INDEX_CACHE
    from gaji.index.store import open_index
    from gaji.eval.record import now_iso

    plan = cuts(budgets, trims)
    ds, qs = questions_of(data, limit)
    if not ds.has_corpus:
        raise ConfigError(f"set {data!r} has no corpus to retrieve from")
    s = dataclasses.replace(settings)
    if not s.index:
        s.index = corpus_index(ds, INDEX_CACHE, open_index=lambda d: open_index(str(d)), say=say).path
    retriever = Gaji(settings=s).retriever()
    k = int(s.k or 5)
    passages = {q.id: retriever.search(q.question, k) for q in qs}
    rows = score(qs, passages, plan)
    meta = {"data": data, "k": k, "retriever": s.retriever, "index": s.index, "date": now_iso()[:10]}
    payload = {**meta, "questions": len(qs), "rows": [r.to_dict(len(qs)) for r in rows]}
    return ProbeReport(render(rows, len(qs), meta), payload)
