"""Query keyword extraction as BIO tagging over morphemes (paper 001, §3.1).

The query is split into morphemes (the paper: Mecab; here Kiwi, the project's Korean analyser;
English queries are split into words and punctuation). Each morpheme gets one of three labels:

    KB  keyword-begin     KI  keyword-inside     O  outside

A keyword is a maximal run ``KB KI*`` and reads as the query's text from the first morpheme's start
to the last one's end (so "대기오염경보" comes back whole although Kiwi cuts it into three nouns).

Teacher labels come from an LLM (`KeywordTeacher`): it lists the query's keywords, each is located
in the query (`bio_from_keywords`), the morphemes inside it are labelled KB/KI, and a keyword's
trailing particles / endings / punctuation (Kiwi tags J*, E*, S*) are left O ("only parts
corresponding to keywords are considered as correct labels").
"""
from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gaji.llm.base import LLMBackend
from gaji.llm.tracked import TrackedLLM
from gaji.text.lang import resolve_lang
from gaji.types import Node

from .prompts import KEYWORD_SCHEMA, keyword_messages

__all__ = [
    "LABELS",
    "Morpheme",
    "TaggedQuery",
    "morphemes",
    "bio_from_keywords",
    "decode_bio",
    "KeywordTeacher",
]

LABELS = ("O", "KB", "KI")
_EN_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]", re.UNICODE)
_KIWI = None
_KIWI_LOCK = threading.Lock()


@dataclass
class Morpheme:
    form: str
    tag: str
    start: int  # character span in the query
    end: int


@dataclass
class TaggedQuery:
    """A query, its morphemes and one BIO label per morpheme (a training example for the tagger)."""

    query: str
    morphemes: list[Morpheme]
    labels: list[str]
    keywords: list[str] = field(default_factory=list)  # the teacher's keywords found in the query
    lang: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "lang": self.lang,
            "tokens": [[m.form, m.tag, m.start, m.end] for m in self.morphemes],
            "labels": list(self.labels),
            "keywords": list(self.keywords),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TaggedQuery":
        ms = [Morpheme(str(f), str(t), int(s), int(e)) for f, t, s, e in d["tokens"]]
        labels = [str(x) for x in d["labels"]]
        if len(labels) != len(ms) or any(x not in LABELS for x in labels):
            raise ValueError("labels must be one of O/KB/KI per token")
        return cls(str(d["query"]), ms, labels, list(d.get("keywords") or []), str(d.get("lang") or ""))


def _kiwi():
    global _KIWI
    with _KIWI_LOCK:
        if _KIWI is None:
            from gaji.text.analyzers import get_kiwi

            _KIWI = get_kiwi()
        return _KIWI


def morphemes(query: str, lang: str = "auto") -> list[Morpheme]:
    """Kiwi morphemes (Korean) or words and punctuation (English), with character spans."""
    lg = resolve_lang(lang, query)
    if lg == "ko":
        toks = _kiwi().tokenize(query)
        return [Morpheme(t.form, str(t.tag), int(t.start), int(t.start + t.len)) for t in toks]
    return [Morpheme(m.group(0), "W" if m.group(0)[0].isalnum() or m.group(0)[0] == "_" else "SP",
                     m.start(), m.end()) for m in _EN_TOKEN.finditer(query)]


def _is_function(m: Morpheme) -> bool:
    """Particles, endings, punctuation/symbols: never the end of a keyword."""
    return m.tag[:1] in ("J", "E", "S") and not m.tag.startswith(("SL", "SH", "SN"))


def _find_spans(query: str, keyword: str) -> list[tuple[int, int]]:
    kw = keyword.strip()
    if not kw:
        return []
    out = []
    q, k = query.lower(), kw.lower()
    i = q.find(k)
    while i >= 0:
        out.append((i, i + len(k)))
        i = q.find(k, i + len(k))
    return out


def bio_from_keywords(query: str, toks: Sequence[Morpheme], keywords: Sequence[str]) -> tuple[list[str], list[str]]:
    """BIO labels for `toks` from keyword strings; returns (labels, the keywords found in the query).

    A morpheme belongs to a keyword span when it lies inside it; spans of different keywords that
    touch stay separate keywords (each starts with KB). Trailing function morphemes are left O."""
    labels = ["O"] * len(toks)
    found: list[str] = []
    spans: list[tuple[int, int]] = []
    for kw in sorted(dict.fromkeys(k.strip() for k in keywords if k and k.strip()), key=len, reverse=True):
        hit = False
        for a, b in _find_spans(query, kw):
            if any(a < y and x < b for x, y in spans):
                continue  # overlaps a longer keyword already placed
            spans.append((a, b))
            hit = True
        if hit:
            found.append(kw)
    for a, b in sorted(spans):
        idx = [i for i, m in enumerate(toks) if m.start >= a and m.end <= b and m.end > m.start]
        while idx and _is_function(toks[idx[-1]]):
            idx.pop()
        while idx and _is_function(toks[idx[0]]):
            idx.pop(0)
        for j, i in enumerate(idx):
            labels[i] = "KB" if j == 0 else "KI"
    return labels, [k for k in keywords if k.strip() in found]


def decode_bio(query: str, toks: Sequence[Morpheme], labels: Sequence[str]) -> list[str]:
    """Keywords from BIO labels: each run KB KI* (a stray KI starts a run too) -> the query's text
    from the run's first morpheme to its last. Duplicates are dropped, order kept."""
    out: list[str] = []
    cur: list[Morpheme] = []

    def flush() -> None:
        if cur:
            text = query[cur[0].start : cur[-1].end].strip()
            if text and text not in out:
                out.append(text)
            cur.clear()

    for m, lab in zip(toks, labels):
        if lab == "KB":
            flush()
            cur.append(m)
        elif lab == "KI":
            cur.append(m)
        else:
            flush()
    flush()
    return out


class KeywordTeacher:
    """LLM keyword labels for queries -> TaggedQuery (teacher data for the tagger)."""

    def __init__(self, llm: LLMBackend | TrackedLLM, max_tokens: int = 96):
        self.llm = llm if isinstance(llm, TrackedLLM) else TrackedLLM(llm, keep_prompts=False)
        self.max_tokens = max_tokens

    def keywords(self, query: str, lang: str = "auto", node: Node | None = None) -> list[str]:
        lg = resolve_lang(lang, query)
        node = node or Node(question=query, kind="keywords")
        obj = self.llm.json(node, "keywords", keyword_messages(query, lg), schema=KEYWORD_SCHEMA,
                            max_tokens=self.max_tokens)
        return [str(k) for k in obj.get("keywords") or [] if str(k).strip()]

    def label(self, query: str, lang: str = "auto") -> TaggedQuery:
        lg = resolve_lang(lang, query)
        toks = morphemes(query, lg)
        labels, found = bio_from_keywords(query, toks, self.keywords(query, lg))
        return TaggedQuery(query, toks, labels, found, lg)
