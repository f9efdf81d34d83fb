"""The typed data that flows through gaji.

corpus -> Document -> Chunk -> (index) -> Passage -> (method) -> Trace(Node tree, LLMCall)

Everything here is a plain dataclass that serialises to JSON and back losslessly
(`to_dict` / `from_dict`); a Trace is the unit the CLI, the API and the web page render.
One interface sits beside them: `Retriever`, the contract every search backend meets (query -> Passages),
here because the methods, the index and the retrievers (gaji/retrieve/) all speak it.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterator


def _pick(cls, d: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


@dataclass
class Location:
    """Where a piece of text sits in its source file: one shape for every format.

    Only the parts a format has are set: ``page`` (PDF, 1-based), ``slide`` (PPTX, 1-based),
    ``sheet`` + ``rows`` (XLSX: sheet name, first and last spreadsheet row numbers of a chunk),
    ``section`` (the heading path below the document title: DOCX, HWP, HWPX, HTML). ``file`` is the
    path relative to the folder that was read (or the file name), ``sha256`` the digest of the whole
    file as read, so that a later sync can tell a changed file by its content.
    """

    file: str = ""
    page: int | None = None
    slide: int | None = None
    sheet: str | None = None
    rows: list[int] | None = None  # [first, last]
    section: list[str] = field(default_factory=list)
    sha256: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: "dict | Location | None") -> "Location | None":
        if d is None or isinstance(d, Location):
            return d
        return cls(**_pick(cls, d))

    def label(self) -> str:
        """A short human-readable place: ``보고서.pdf · p. 3``, ``예산.xlsx · 부서별 · rows 2–5``."""
        parts = [self.file] if self.file else []
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.slide is not None:
            parts.append(f"slide {self.slide}")
        if self.sheet:
            parts.append(self.sheet)
        if self.rows:
            a, b = self.rows[0], self.rows[-1]
            parts.append(f"row {a}" if a == b else f"rows {a}\u2013{b}")
        if self.section:
            parts.append(" \u203a ".join(self.section))
        return " \u00b7 ".join(parts)


@dataclass
class RowSpan:
    """Characters ``[start, end)`` of a Document's text holding one table row, which a chunk never
    cuts (unless the row alone exceeds the chunk size); ``row`` is the spreadsheet row number, if any."""

    start: int
    end: int
    row: int | None = None


def format_location(item: Any) -> str:
    """The place label of a Passage, Chunk or Document (``""`` when it has no location)."""
    loc = getattr(item, "location", None)
    return loc.label() if isinstance(loc, Location) else ""


@dataclass
class Document:
    """A source document as ingested (one JSONL line, one .txt/.md file)."""

    id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # file it came from
    location: Location | None = None  # where in that file (documents read from files; None for JSONL records)
    table_rows: list[RowSpan] = field(default_factory=list)  # table rows in `text` the chunker keeps whole

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Document":
        base = _pick(cls, d)
        base["location"] = Location.from_dict(base.get("location"))
        base["table_rows"] = [r if isinstance(r, RowSpan) else RowSpan(**r) for r in base.get("table_rows") or []]
        return cls(**base)


@dataclass
class Chunk:
    """A retrievable unit cut from a Document; `id` is stable across runs."""

    id: str
    doc_id: str
    text: str
    title: str = ""
    lang: str = ""  # "ko" | "en" | "" (unknown)
    start: int = 0  # character offsets in the document text
    end: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    location: Location | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Chunk":
        base = _pick(cls, d)
        base["location"] = Location.from_dict(base.get("location"))
        return cls(**base)


@dataclass
class Passage:
    """A chunk as retrieved: with its score, rank and the retriever that found it."""

    id: str  # chunk id
    doc_id: str
    text: str
    title: str = ""
    score: float = 0.0
    rank: int = 0  # 1-based rank in the result list that produced it
    source: str = ""  # retriever name: "bm25", "dense", "hybrid", ...
    metadata: dict[str, Any] = field(default_factory=dict)
    location: Location | None = None  # the file and its page / slide / sheet+rows / section

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Passage":
        base = _pick(cls, d)
        base["location"] = Location.from_dict(base.get("location"))
        return cls(**base)


class Retriever:
    """The contract every search backend meets (bm25, dense, hybrid, ConTRe, servers; gaji/retrieve/):

        r = index.retriever("hybrid")
        passages = r.search("Which battle occurred first?", k=5)   # list[Passage], best first

    Retrievers are registered in `gaji.registry.RETRIEVERS` by name; an on-disk index
    (`gaji.index.store.Index`) builds them from what it holds.
    """

    name: str = "retriever"

    def search(self, query: str, k: int = 5) -> list[Passage]:  # pragma: no cover - interface
        raise NotImplementedError

    def search_many(self, queries: list[str], k: int = 5) -> list[list[Passage]]:
        return [self.search(q, k) for q in queries]

    def describe(self) -> dict:
        return {"name": self.name}


@dataclass
class LLMCall:
    """One call to a language model, as counted: tokens, time, cache."""

    model: str
    purpose: str = ""  # which component made it: "answer", "decompose", "evaluate", ...
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens served from the backend's prompt (KV) cache
    wall_ms: float = 0.0
    cache_hit: bool = False  # answered from gaji's on-disk response cache
    ok: bool = True
    error: str | None = None
    attempts: int = 1
    finish_reason: str = ""
    prompt: Any = None  # messages or prompt text (kept for inspection; may be dropped to save space)
    output: str = ""
    # how the prompt was cut to fit the model's context, when it had to be (gaji/llm/fit.py: Trim.to_dict);
    # empty when it fitted as written
    trim: dict[str, Any] = field(default_factory=dict)
    # how sure the model was of its reply, when the call asked for log-probabilities (gaji/llm/confidence.py:
    # summarize); empty otherwise, or when the backend gives none
    confidence: dict[str, float] = field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "LLMCall":
        return cls(**_pick(cls, d))


FACT_TONES = ("note", "tag", "decision")


@dataclass
class Fact:
    """One line of a node's description, as its method words it (Method.describe): a label and a text.

    tone says how renderers show it without knowing the method: "tag" goes on the node's heading line
    (the label is not shown), "decision" is why the method went on, stopped or skipped here, "note" is
    anything else worth a line."""

    label: str
    text: str
    tone: str = "note"

    def __post_init__(self) -> None:
        if self.tone not in FACT_TONES:
            raise ValueError(f"fact tone must be one of {', '.join(FACT_TONES)}, not {self.tone!r}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Fact":
        f = _pick(cls, d)
        if f.get("tone") not in FACT_TONES:  # a tone this version does not know is shown as a note
            f["tone"] = "note"
        return cls(**f)


@dataclass
class Stop:
    """Whether a method stopped at a node and why, in one shape for every method.

    ToQ records why a node was not split (stop=True, reason "max depth"); the chain records its stop
    policy's verdict after every step (stop=False: the chain goes on)."""

    stop: bool = True
    reason: str = ""  # why, in words: "max depth", "the evaluator accepted the answer"
    by: str = ""  # what decided: a stop policy ("classifier", "evaluator") or a limit ("max_depth")
    score: float | None = None  # the deciding score, when there is one (P(sufficient), an overall score)
    detail: dict[str, Any] = field(default_factory=dict)  # e.g. {"threshold": 0.5, "ms": 1.3}

    def to_dict(self) -> dict:
        return json.loads(json.dumps(asdict(self), default=str))

    @classmethod
    def from_dict(cls, d: dict) -> "Stop":
        return cls(**_pick(cls, d))

    @classmethod
    def from_legacy(cls, v: Any) -> "Stop | None":
        """The `data["stop"]` of a version-1 trace: a reason string (ToQ) or a policy verdict dict (chain)."""
        if isinstance(v, str) and v:
            return cls(True, reason=v)
        if isinstance(v, dict) and "stop" in v:
            rest = {k: x for k, x in v.items() if k not in ("stop", "policy", "score")}
            return cls(bool(v["stop"]), by=str(v.get("policy") or ""), score=v.get("score"), detail=rest)
        return None


@dataclass
class Node:
    """A node of a method's tree. Flat methods (oner, cot) have a root with steps as children.

    question: the node's question as first written (may hold [ANS_N] slots)
    filled_question: after slot filling / rewriting (equals question if none)
    query: the search query actually sent to the retriever
    passage_ids: retrieved passages, in rank order (full passages live in Trace.passages)
    relevance: per passage id, method-specific judgements ({"relevant": bool, "span": str})
    scores: evaluator scores, e.g. {"semantic_coherence": 8, "answerability": 70, ...}
    stop: whether (and why) the method stopped here, when it decided that at this node
    data: the method's trace facts for analysis (kept as JSON; each method documents its keys). A method
          keeps its control state in its own objects: it writes data, it never reads it back.
    display: how the node is shown, as its method describes it (Method.describe); renderers show these
          lines and the typed fields above, and nothing method-specific
    """

    question: str = ""
    kind: str = "node"  # "root", "sub", "step", "followup", "leaf", ...
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    level: int = 0
    filled_question: str = ""
    query: str = ""
    passage_ids: list[str] = field(default_factory=list)
    relevance: dict[str, dict] = field(default_factory=dict)
    answer: str = ""
    scores: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"  # "ok" | "failed" | "skipped" | "running" | "stopped" (the run ended under it unfinished)
    error: str | None = None
    calls: list[LLMCall] = field(default_factory=list)
    children: list["Node"] = field(default_factory=list)
    stop: Stop | None = None
    data: dict[str, Any] = field(default_factory=dict)
    display: list[Fact] = field(default_factory=list)
    wall_ms: float = 0.0

    def add(self, child: "Node") -> "Node":
        if not child.level:
            child.level = self.level + 1
        self.children.append(child)
        return child

    def walk(self) -> Iterator["Node"]:
        yield self
        for c in self.children:
            yield from c.walk()

    def to_dict(self) -> dict:
        typed = ("calls", "children", "stop", "display")
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in typed}
        d = json.loads(json.dumps(d, default=str))
        d["stop"] = self.stop.to_dict() if self.stop is not None else None
        d["display"] = [f.to_dict() for f in self.display]
        d["calls"] = [c.to_dict() for c in self.calls]
        d["children"] = [c.to_dict() for c in self.children]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Node":
        base = _pick(cls, d)
        base["calls"] = [LLMCall.from_dict(c) for c in d.get("calls", [])]
        base["children"] = [cls.from_dict(c) for c in d.get("children", [])]
        base["display"] = [Fact.from_dict(f) for f in d.get("display") or []]
        stop = d.get("stop")
        data = dict(d.get("data") or {})
        if stop is None and Stop.from_legacy(data.get("stop")) is not None:  # version 1 kept it in data
            stop = Stop.from_legacy(data.pop("stop"))
            base["data"] = data
        elif isinstance(stop, dict):
            stop = Stop.from_dict(stop)
        base["stop"] = stop
        return cls(**base)


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    llm_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, c: LLMCall) -> None:
        self.calls += 1
        self.prompt_tokens += c.prompt_tokens
        self.completion_tokens += c.completion_tokens
        self.cached_tokens += c.cached_tokens
        self.cache_hits += int(c.cache_hit)
        self.failed_calls += int(not c.ok)
        self.llm_ms += c.wall_ms

    def to_dict(self) -> dict:
        d = asdict(self)
        d["total_tokens"] = self.total_tokens
        return d


def usage_by_purpose(calls: list[LLMCall]) -> dict[str, Usage]:
    """The calls' usage per component (LLMCall.purpose: "answer", "decompose", "evaluate", ...), in order of
    first use; a call without a purpose counts under "other"."""
    out: dict[str, Usage] = {}
    for c in calls:
        out.setdefault(c.purpose or "other", Usage()).add(c)
    return out


# 2: Node.stop and Node.display (version 1 kept a stop in data: read and moved to Node.stop)
TRACE_VERSION = 2


@dataclass
class Trace:
    """What one question's run did: the answer, its sources and the whole tree of work."""

    question: str
    method: str
    root: Node = field(default_factory=lambda: Node(kind="root"))
    answer: str = ""  # the short answer: a span ("1995년", "Battle of Guam"), or a paragraph for long-form styles
    explanation: str = ""  # the sentence that explains the answer (from the model's reply or the cited evidence)
    citations: list[str] = field(default_factory=list)  # passage ids the answer cites
    passages: dict[str, Passage] = field(default_factory=dict)  # every passage seen, by id
    params: dict[str, Any] = field(default_factory=dict)
    lang: str = ""
    model: str = ""
    retriever: str = ""
    wall_ms: float = 0.0
    status: str = "ok"
    error: str | None = None
    version: int = TRACE_VERSION
    recipe: str = ""  # the recipe that ran, "name@version" (gaji/recipes.py); "" = the method and its options

    def __post_init__(self) -> None:
        if not self.root.question:
            self.root.question = self.question

    # -- passages -------------------------------------------------------
    def remember(self, passages: list[Passage]) -> list[str]:
        """Keep full passages once in the trace; return their ids (for Node.passage_ids)."""
        for p in passages:
            self.passages.setdefault(p.id, p)
        return [p.id for p in passages]

    # -- accounting -----------------------------------------------------
    def calls(self) -> list[LLMCall]:
        return [c for n in self.root.walk() for c in n.calls]

    def usage(self) -> Usage:
        u = Usage()
        for c in self.calls():
            u.add(c)
        return u

    def usage_by_purpose(self) -> dict[str, Usage]:
        """What each component spent (tokens, calls, time), by LLMCall.purpose."""
        return usage_by_purpose(self.calls())

    def retrieved_ids(self) -> list[str]:
        """Every retrieved passage id in first-seen order (tree order)."""
        seen: dict[str, None] = {}
        for n in self.root.walk():
            for pid in n.passage_ids:
                seen.setdefault(pid, None)
        return list(seen)

    def summary(self) -> dict:
        u = self.usage()
        return {
            "method": self.method,
            "model": self.model,
            "status": self.status,
            "nodes": sum(1 for _ in self.root.walk()),
            "wall_ms": round(self.wall_ms, 1),
            **u.to_dict(),
        }

    # -- serialisation --------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "version": self.version,
            "question": self.question,
            "method": self.method,
            "answer": self.answer,
            "explanation": self.explanation,
            "citations": list(self.citations),
            "lang": self.lang,
            "model": self.model,
            "retriever": self.retriever,
            **({"recipe": self.recipe} if self.recipe else {}),
            "params": json.loads(json.dumps(self.params, default=str)),
            "wall_ms": self.wall_ms,
            "status": self.status,
            "error": self.error,
            "usage": self.usage().to_dict(),
            "usage_by_purpose": {k: u.to_dict() for k, u in self.usage_by_purpose().items()},
            "passages": {k: p.to_dict() for k, p in self.passages.items()},
            "root": self.root.to_dict(),
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, d: dict) -> "Trace":
        t = cls(
            question=d["question"],
            method=d["method"],
            root=Node.from_dict(d["root"]),
            answer=d.get("answer", ""),
            explanation=d.get("explanation", ""),
            citations=list(d.get("citations", [])),
            passages={k: Passage.from_dict(p) for k, p in d.get("passages", {}).items()},
            params=d.get("params", {}),
            lang=d.get("lang", ""),
            model=d.get("model", ""),
            retriever=d.get("retriever", ""),
            wall_ms=d.get("wall_ms", 0.0),
            status=d.get("status", "ok"),
            error=d.get("error"),
            recipe=d.get("recipe", ""),
            version=TRACE_VERSION,  # an older trace is read into the current shape (Node.from_dict)
        )
        return t

    @classmethod
    def from_json(cls, s: str) -> "Trace":
        return cls.from_dict(json.loads(s))
